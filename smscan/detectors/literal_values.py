"""The values inside one literal: a whole string or unquoted value, or the parts of it that are values.

A literal can hold more than one value, or a value behind syntax: a URL with a password
(``postgres://u:<password>@h``), ``user:password`` under a name that holds both
(``CURLOPT_USERPWD``), an ``Authorization`` value (``"Bearer <token>"``), a connection or query
string (``k1=v1;Password=v2``, ``Data Source=x; User ID=y; Password=v``), ``NAME=value``, a
note's ``ID:name,PW:value``, or an
``.npmrc`` line ending in ``:_authToken=<token>``. Each comes out as its own slot, with the name
that binds it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from smscan.detectors.prose_labels import label_values
from smscan.detectors.secret_names import is_secret_name, name_words
from smscan.detectors.secret_places import (
    has_url_password,
    leading_header_value,
    url_passwords,
)
from smscan.detectors.slot_kinds import Slot

# `user:password` under a name that says it holds both (CURLOPT_USERPWD, userpass, basic_auth).
_USER_PASSWORD = re.compile(r"^[\w.@\-]+:(?P<p>[^\s:]+)$")
_USER_PASSWORD_NAME = re.compile(r"(?i)user_?pwd|user_?pass|basic_?auth")
_TRAILING_SECRET_PAIR = re.compile(r"^\S*[:/]_?(?P<k>[A-Za-z][\w\-]*)=(?P<v>[^=\s]\S*)$")
# `k1=v1;k2=v2` (connection strings), `?k=v&k2=v2` (query strings), `NAME=value`. A key is a
# plain name in one case (`Password`, `api_key`, `API_KEY`), which random text rarely is.
_PAIR = re.compile(r"(?:^|[;&?])(?P<k>[A-Za-z_][\w.\-]*)=(?P<v>[^;&]*)")
_NAME_SHAPE = re.compile(
    r"^(?:[A-Z][A-Z0-9_.\-]*|[a-z][a-z0-9_.\-]*|[A-Z]?[a-z]+(?:[A-Z][a-z0-9]+)+|[A-Z][a-z]+)$"
)
# `Data Source=db; User ID=sa; Password=...`: two or more `;`-separated pairs, keys of words.
_SPACED_PAIR = re.compile(r"(?:^|;)\s*(?P<k>[A-Za-z][A-Za-z0-9_ ]{0,30}?)\s*=\s*(?P<v>[^;\s]*)\s*(?=;|$)")


def literal_values(line: str, start: int, end: int, key: str, offset: int, where: str) -> Iterator[Slot]:
    """The value slots of the literal ``line[start:end]``, bound to ``key``, of kind ``where``.

    Spans are shifted by ``offset`` (the line's position in its text).

    Example:
        >>> line = 'conn = "Server=db;Password=Zq8xP1sV9"'
        >>> [(line[s.start:s.end], s.key) for s in literal_values(line, 8, 36, "conn", 0, "string")]
        [('db', 'Server'), ('Zq8xP1sV9', 'Password')]
    """
    body = line[start:end]
    if not body.strip():
        return
    if has_url_password(body):
        yield from url_passwords(body, offset + start)
        return
    user_password = _USER_PASSWORD.match(body)
    if user_password and _USER_PASSWORD_NAME.search(key):
        # CURLOPT_USERPWD, "user:password": the password is the secret.
        yield Slot(offset + start + user_password.start("p"), offset + end, key, where)
        return
    header = leading_header_value(body, offset + start)
    if header is not None:
        yield header
        return
    if any(c.isspace() for c in body):
        # A connection string whose keys hold spaces (`User ID=sa; Password=...`): its pairs.
        # Otherwise prose or a command line: the line-wide passes (options, tokens, URLs) cover it.
        for pair_key, value_start, value_end in _spaced_pairs(body):
            yield Slot(offset + start + value_start, offset + start + value_end, pair_key, where)
        return
    trailing = _TRAILING_SECRET_PAIR.match(body)
    if trailing and is_secret_name(trailing.group("k")):
        # `//registry.npmjs.org/:_authToken=...` (.npmrc), `host/:password=...`: the last pair.
        yield Slot(offset + start + trailing.start("v"), offset + end, trailing.group("k"), where)
        return
    pairs = [pair for pair in _PAIR.finditer(body) if _NAME_SHAPE.match(pair.group("k"))]
    if pairs and pairs[0].start() > 0 and body[pairs[0].start()] == "&":
        # The rest of a query string written bare (`oauth_token=<value>&oauth_verifier=<value>`):
        # the first value ends at the `&`, and each pair after it is a value of its own.
        yield Slot(offset + start, offset + start + pairs[0].start(), key, where)
        for pair in pairs:
            if pair.end("v") > pair.start("v"):
                yield Slot(offset + start + pair.start("v"), offset + start + pair.end("v"), pair.group("k"), where)
        return
    if pairs and (len(pairs) > 1 or (pairs[0].start() == 0 and is_lone_pair_name(pairs[0].group("k")))):
        for pair in pairs:
            value_start, value_end = _inside_quotes(body, pair.start("v"), pair.end("v"))
            if value_end > value_start:
                yield Slot(offset + start + value_start, offset + start + value_end, pair.group("k"), where)
        return
    labelled = [(a, b, label) for a, b, label in label_values(body) if body[a - 1] == ":"]
    if labelled:
        # `ID:deploy,PW:<value>` in one literal (a note quoted in docs): the label's value.
        for value_start, value_end, label in labelled:
            yield Slot(offset + start + value_start, offset + start + value_end, label, where)
        return
    yield Slot(offset + start, offset + end, key, where)


def _inside_quotes(body: str, start: int, end: int) -> tuple[int, int]:
    """A pair's value without the quotes it is written in (`auth='ntlm'` quoted in prose holds `ntlm`)."""
    if end - start >= 2 and body[start] == body[end - 1] and body[start] in "'\"":
        return start + 1, end - 1
    return start, end


def _spaced_pairs(body: str) -> list[tuple[str, int, int]]:
    pairs = list(_SPACED_PAIR.finditer(body))
    if len(pairs) < 2 or body.count(";") < 1:
        return []
    return [(p.group("k"), p.start("v"), p.end("v")) for p in pairs if p.end("v") > p.start("v")]


def is_lone_pair_name(key: str) -> bool:
    """Whether a lone ``key=value`` reads as a name and its value (``Password=...``), not as a
    random value that holds ``=`` (``mNf=V78u...``): a name has a word of three letters or more.

    Example:
        >>> is_lone_pair_name("Password"), is_lone_pair_name("_authToken"), is_lone_pair_name("mNf")
        (True, True, False)
    """
    key = key.lstrip("_")  # .npmrc's `_authToken`, `_password`
    return bool(_NAME_SHAPE.match(key)) and any(len(word) >= 3 and word.isalpha() for word in name_words(key))
