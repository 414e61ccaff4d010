"""Places whose syntax alone says secret: the password of a URL and the value of an ``Authorization``.

``scheme://user:password@host`` gives ``password``; ``Bearer <token>``, ``Basic <token>``,
``Token <token>`` give the token. Both are read in whole texts and inside one string literal.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from smscan.detectors.slot_kinds import HEADER, URL_USERINFO, Slot

# A scheme is a short word (`https`, `mongodb+srv`): read unbounded, a long run of its characters
# without `://` (`a.a.a.a...`) was read again from each of its words.
_URL_USERINFO = re.compile(
    r"\b[A-Za-z][A-Za-z0-9+.\-]{0,39}://(?P<user>[^\s:/@'\"`<>]*):(?P<password>[^\s@'\"`<>/]+)@"
    r"(?=[\w\[.\-])"
)
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

    Example:
        >>> text = "postgres://app:hunter2@db/x"
        >>> [text[s.start:s.end] for s in url_passwords(text)]
        ['hunter2']
    """
    for match in _URL_USERINFO.finditer(text):
        yield Slot(offset + match.start("password"), offset + match.end("password"), "url", URL_USERINFO)


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
