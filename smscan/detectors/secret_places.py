"""Places whose syntax alone says secret: the password of a URL and the value of an ``Authorization``.

``scheme://user:password@host`` gives ``password``; ``Bearer <token>``, ``Basic <token>``,
``Token <token>`` give the token. Both are read in whole texts and inside one string literal.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

from smscan.detectors.expansion_defaults import defaulted_span
from smscan.detectors.slot_kinds import HEADER, URL_USERINFO, Slot

# A scheme is a short word (`https`, `mongodb+srv`): read unbounded, a long run of its characters
# without `://` (`a.a.a.a...`) was read again from each of its words. The password runs to the
# last `@` before the host: people write an `@` in it unencoded (`app:myP@ssw0rd@cluster0`).
_URL_USERINFO = re.compile(
    r"\b[A-Za-z][A-Za-z0-9+.\-]{0,39}://(?P<user>[^\s:/@'\"`<>]*):(?P<password>[^\s'\"`<>/]+)@"
    r"(?=[\w\[.\-])"
)
# A URL whose user part alone is a token (`https://<token>@github.com`): letters, digits and
# `_` with both a letter and a digit, at least 20 of them; a person's user name is shorter or
# holds a dot or a hyphen. Drawn, letters and digits alternate often (`_MIN_ALTERNATIONS`); a
# name with a number after it (`http://jdoe1984@mail.example`, a mangled address) changes once.
_URL_TOKEN_USER = re.compile(
    r"\b[A-Za-z][A-Za-z0-9+.\-]{0,39}://(?P<user>(?=[A-Za-z_]*\d)(?=\d*[A-Za-z])[A-Za-z0-9_]{20,})@(?=[\w\[.\-])"
)
_MIN_ALTERNATIONS = 4
# A Sentry DSN's user is the project's public key, sent from every browser that reports to it
# (`https://<32 hex>@o1.ingest.sentry.io/1`): no secret.
_SENTRY_HOST = re.compile(r"[\w.\-]*sentry[\w.\-]*[/:]")
# A service's fixed password word, an extension's `x-` name: GitHub's
# `https://<token>:x-oauth-basic@github.com` carries the token as the user.
_FIXED_PASSWORD = re.compile(r"x-[a-z]+(?:-[a-z]+)*")
# A user part written as a template or a variable (`{token}`, `${GH_TOKEN}`, `$TOKEN`, `%s`,
# `<token>`): the secret is filled in there.
_TEMPLATE_USER = re.compile(r"^(?:\{[^{}]*\}|\$\{[^{}]*\}|\$[A-Za-z_]\w*|%\(?\w*\)?s|<[^<>]*>|\{\{[^{}]*\}\})$")
# The token: RFC 6750's characters, and inside them any sign a password holds (`j^TU2y6#3C`,
# a password sent as a bearer token); it ends at a space, a quote, a bracket or a separator,
# and on a token character (`Token authentication:` stops before its colon).
_AUTH_SCHEME = re.compile(
    r"\b(?P<scheme>Bearer|Basic|Token|token|bearer)[ \t]+"
    r"(?P<value>[A-Za-z0-9][^\s'\"`<>(){}\[\],;]{6,}[\w.~+/=\-])"
)

# What is written before a lower-case scheme word in a header: `Authorization: `, `: `, a quote.
_HEADER_BEFORE = re.compile(r"(?:[Aa]uthorization\W{0,4}|:[ \t]*|[\"'`][ \t]*)$")


def has_url_password(text: str) -> bool:
    """True when ``text`` holds a URL with a ``user:password@`` part."""
    return _URL_USERINFO.search(text) is not None


def url_passwords(text: str, offset: int = 0) -> Iterator[Slot]:
    """The password of each ``scheme://user:password@host`` in ``text`` (spans shifted by ``offset``).
    Where the password is a word the service fixes, the user is the token (none when the user is a
    template the token is filled into: ``https://{token}:x-oauth-basic@github.com``); where it is an
    expansion with a default (``${DB_PASSWORD:-x}``), the default; where the user part alone is
    token-shaped (``https://<token>@github.com``), the user.

    Example:
        >>> text = "postgres://app:hunter2@db/x https://Zq8xP1sV9kL2:x-oauth-basic@github.com/a.git"
        >>> [text[s.start:s.end] for s in url_passwords(text)]
        ['hunter2', 'Zq8xP1sV9kL2']
        >>> text = "pg://app:${PGPASSWORD:-Zq8xP1sV9kL2}@db https://Zq8xP1sV9kL2mN4bW7cRtY5@github.com/a"
        >>> [text[s.start:s.end] for s in url_passwords(text)]
        ['Zq8xP1sV9kL2', 'Zq8xP1sV9kL2mN4bW7cRtY5']
        >>> text = "pg://${U:-app}:${PGPASSWORD:-Zq8xP1sV9kL2}@db pg://${U:-app}:${PGPASSWORD}@db pg://${U:-app}:Zq8xP1sV9kL3@db"
        >>> [text[s.start:s.end] for s in url_passwords(text)]
        ['Zq8xP1sV9kL2', 'Zq8xP1sV9kL3']
    """
    for match in _URL_USERINFO.finditer(text):
        user, password, start = match.group("user"), match.group("password"), match.start("password")
        # A user written as an expansion with a default (`${DB_USER:-app}:${DB_PASSWORD:-x}@`) holds
        # a `:`; the password starts after the `}:` that closes it.
        expanded_user = user.startswith("${") and "}:" in password
        if expanded_user:
            start += password.index("}:") + 2
            password = text[start : match.end("password")]
        elif _FIXED_PASSWORD.fullmatch(password):
            if user and not _TEMPLATE_USER.match(user):
                yield Slot(offset + match.start("user"), offset + match.end("user"), "url", URL_USERINFO)
            continue
        default = defaulted_span(password)
        if default is not None:
            yield Slot(offset + start + default[0], offset + start + default[1], "url", URL_USERINFO)
        elif not (expanded_user and password.startswith("$")):  # after an expanded user, an expansion is a reference
            yield Slot(offset + start, offset + match.end("password"), "url", URL_USERINFO)
    for match in _URL_TOKEN_USER.finditer(text):
        user = match.group("user")
        if _SENTRY_HOST.match(text, match.end()):
            continue
        if sum(a.isdigit() != b.isdigit() for a, b in zip(user, user[1:])) >= _MIN_ALTERNATIONS:
            yield Slot(offset + match.start("user"), offset + match.end("user"), "url", URL_USERINFO)


_MIN_PRINTABLE_SHARE = 0.9


def is_basic_credentials(value: str) -> bool:
    """True when an ``Authorization: Basic`` value is what the scheme carries: base64 of
    ``user:password`` (RFC 7617). Anything else after ``Basic`` (``notabase64token``) is no
    credential of that scheme.

    Example:
        >>> is_basic_credentials(base64.b64encode(b"deploy:pw").decode()), is_basic_credentials("not-base64")
        (True, False)
    """
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False
    # User and password are text (RFC 7617): random bytes hold a `:` one time in ten, but only a
    # third of them are printable; a login with a character or two mangled still reads as one.
    login = decoded.strip()
    printable = sum(32 <= byte < 127 for byte in login)
    return b":" in decoded and printable >= _MIN_PRINTABLE_SHARE * len(login)


def header_values(text: str) -> Iterator[Slot]:
    """The token after each ``Authorization`` scheme word in ``text``, named by the scheme.

    A lower-case ``token``/``bearer`` is a scheme only where a header is written (after
    ``Authorization``, a colon or a quote: ``Authorization: token X``, ``"bearer " + t``); in prose
    it is a word (``the reference-token figures.``, ``p(token start+k+1 | ...)``).
    """
    for match in _AUTH_SCHEME.finditer(text):
        if match.group("scheme").islower() and not _HEADER_BEFORE.search(text, max(match.start() - 40, 0), match.start()):
            continue
        yield Slot(match.start("value"), match.end("value"), match.group("scheme"), HEADER)


def leading_header_value(text: str, offset: int = 0) -> Slot | None:
    """The token when ``text`` starts with an ``Authorization`` scheme word (``Bearer x``), else None."""
    match = _AUTH_SCHEME.match(text)
    if match is None:
        return None
    return Slot(offset + match.start("value"), offset + match.end("value"), match.group("scheme"), HEADER)
