"""Where a credential can live: value slots found in any text, whatever its language.

A slot is the character span of one *value* (never its key, quotes or scheme word) together with
the name it is bound to, if any, and what kind of place it is:

``pem``            a private-key block, ``-----BEGIN ... PRIVATE KEY-----`` to its END line
``public-block``   a certificate or public-key block, or a block of encoded data (three or more
                   lines of base64 of one width, as YAML ``!!binary`` or an embedded image):
                   kept only so that no line of it is taken for a token
``url-userinfo``   the password in ``scheme://user:password@host``
``header``         the token after an ``Authorization`` scheme word (``Bearer``, ``Basic``, ...)
``vendor``         a token in a format a vendor publishes (``xoxb-...``, ``glrt-...``, a JWT, an AWS
                   key id), wherever it sits (:mod:`smscan.detectors.vendor_prefixes`); it takes
                   the name of a slot with the same span
``query``          the value of a secret-named URL query parameter (``?token=``, ``X-Amz-Credential=``)
``argument``       the value of a command-line option (``--token X``, ``-u user:password``)
``string``         a quoted string literal, or a part of one (``"k1=v1;k2=v2"``, ``"NAME=value"``)
``label``          a value after a secret-saying label in prose or a table (``PW:...``, ``API Secret:
                   ...``, ``the password is ...``, a ``Password`` column), or a password glued to
                   ``-p`` on a database client's command line
``assignment``     an unquoted config/env value (``key = value``, ``key: value``, ``KEY=value``,
                   ``<key>value</key>``, Dockerfile ``ENV NAME value``)
``token``          a long run of token characters anywhere else (comments, prose)

The finder is lexical, not a parser: it reads lines the way a person skims a file for secrets,
so it works on code, config, shell, Markdown and logs alike. Overlapping slots are resolved by the
order above (a PEM block swallows everything in it; a password inside a URL beats the URL string).
Judging whether a slot's value is a credential is :mod:`smscan.detectors.credential`'s job.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from smscan.detectors.bindings import LEFT_CHARS, binding_before
from smscan.detectors.command_forms import docker_env_value, glued_passwords
from smscan.detectors.prose_labels import label_values, table_values
from smscan.detectors.query_strings import query_values
from smscan.detectors.secret_names import is_secret_name
from smscan.detectors.vendor_prefixes import find_vendor_tokens

# Slot kinds, strongest first: the order resolves overlaps.
PEM = "pem"
PUBLIC_BLOCK = "public-block"
URL_USERINFO = "url-userinfo"
HEADER = "header"
VENDOR = "vendor"
QUERY = "query"
ARGUMENT = "argument"
STRING = "string"
LABEL = "label"
ASSIGNMENT = "assignment"
TOKEN = "token"
_PRIORITY = {kind: rank for rank, kind in enumerate(
    (PEM, PUBLIC_BLOCK, URL_USERINFO, HEADER, VENDOR, QUERY, ARGUMENT, STRING, ASSIGNMENT, LABEL, TOKEN)
)}


@dataclass(frozen=True, slots=True)
class Slot:
    """One value: ``text[start:end]``, the name it is bound to (``""`` if none), its place."""

    start: int
    end: int
    key: str
    where: str


_PEM_BEGIN = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----")
_URL_USERINFO = re.compile(
    r"\b[A-Za-z][A-Za-z0-9+.\-]*://(?P<user>[^\s:/@'\"`<>]*):(?P<password>[^\s@'\"`<>/]+)@"
    r"(?=[\w\[.\-])"
)
_AUTH_SCHEME = re.compile(
    r"\b(?P<scheme>Bearer|Basic|Token|token|bearer)[ \t]+(?P<value>[A-Za-z0-9][\w.~+/=\-]{7,})"
)
# A quoted string on one line: "...", '...' or `...`, with backslash escapes.
_QUOTED = re.compile(r"""(?P<q>["'`])(?P<body>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)""")
# Command-line options with a value: --name value, --name=value, -x value.
_OPTION = re.compile(
    r"(?<![\w\-])(?P<name>--?[A-Za-z][\w\-]*)(?:=|[ \t]+)(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s'\"`|;&<>\-][^\s'\"`|;&<>]*)"
)
# `user:password` under a name that says it holds both (CURLOPT_USERPWD, userpass, basic_auth).
_USER_PASSWORD = re.compile(r"^[\w.@\-]+:(?P<p>[^\s:]+)$")
_USER_PASSWORD_NAME = re.compile(r"(?i)user_?pwd|user_?pass|basic_?auth")
_TRAILING_SECRET_PAIR = re.compile(r"^\S*[:/]_?(?P<k>[A-Za-z][\w\-]*)=(?P<v>[^=\s]\S*)$")
_OPTION_PAIR = re.compile(r"^(?P<k>[A-Za-z_][\w.\-]*)=(?P<v>.+)$")
_HEADER_LINE = re.compile(r"^(?P<name>[A-Za-z][\w\-]*):[ \t]*(?P<value>\S+)$")
# An unquoted value bound to a name: key = value, key: value, KEY=value, export KEY=value.
_ASSIGNED = re.compile(
    r"(?P<key>[A-Za-z_$@][\w.\-$@]*)[\"']?[ \t]*(?::=|=>|=|:(?=[ \t]))[ \t]*(?P<value>[^\s'\"`,;]+)"
)
_XML_ELEMENT = re.compile(r"<(?P<tag>[A-Za-z_][\w:.\-]*)(?:\s[^<>]*)?>(?P<value>[^<>\s]+)</(?P=tag)>")
# Strings that are names, not values: the first argument of a lookup, or a subscript.
_LOOKUP_CALL = re.compile(
    r"(?:\b(?:getenv|environ|env|get|fetch|getattr|hasattr|setdefault|pop|getProperty|"
    r"GetEnvironmentVariable|Getenv|LookupEnv|require|import|include|ENV)\s*[\(\[]|\[)\s*$"
)
_KEY_AFTER = re.compile(r"^\s*[\"'`]?\s*(?::(?!:)|=>)")
# `k1=v1;k2=v2` (connection strings), `?k=v&k2=v2` (query strings), `NAME=value`. A key is a
# plain name in one case (`Password`, `api_key`, `API_KEY`), which random text rarely is.
_PAIR = re.compile(r"(?:^|[;&?])(?P<k>[A-Za-z_][\w.\-]*)=(?P<v>[^;&]*)")
_NAME_SHAPE = re.compile(
    r"^(?:[A-Z][A-Z0-9_.\-]*|[a-z][a-z0-9_.\-]*|[A-Z]?[a-z]+(?:[A-Z][a-z0-9]+)+|[A-Z][a-z]+)$"
)
# Letter words of a name (`api_key` -> api, key; `mNf` -> m, Nf).
_NAME_LETTER_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_TOKEN_PAIR = re.compile(r"(?P<k>[A-Za-z_][\w.\-]*)=(?P<v>[^=][^=]*=*)")
_TOKEN_RUN = re.compile(r"[A-Za-z0-9+/=_\-.~]{20,}")
# Lines that are code statements rather than `key = value` settings: a value that calls,
# indexes or combines things is an expression, not a literal.
_EXPRESSION_CHARS = re.compile(r"[()\[\]{}]")




def find_slots(text: str) -> list[Slot]:
    """Every value slot of ``text``, sorted by position, with overlaps resolved.

    Args:
        text: a whole document.

    Returns:
        Disjoint slots sorted by ``start``.

    Example:
        >>> [(text[s.start:s.end], s.key, s.where) for text in ['db = "postgres://u:hunter2@h/x"']
        ...  for s in find_slots(text)]
        [('hunter2', 'url', 'url-userinfo')]
    """
    return list(_slots_of(text))


# A scan asks twice per document (what to score, then what to judge): remember the last few.
@lru_cache(maxsize=32)
def _slots_of(text: str) -> tuple[Slot, ...]:
    found: list[Slot] = []
    pem_blocks = list(_pem_blocks(text))
    found.extend(pem_blocks)
    found.extend(_url_passwords(text, 0, text))
    found.extend(_header_values(text))
    lines = text.split("\n")
    line_starts = []
    offset = 0
    for line in lines:
        line_starts.append(offset)
        found.extend(_line_slots(text, line, offset))
        offset += len(line) + 1
    found.extend(_data_blocks(lines, line_starts))
    for index, start, end, column in table_values(lines):
        found.append(Slot(line_starts[index] + start, line_starts[index] + end, column, LABEL))
    found.extend(Slot(start, end, "", VENDOR) for start, end, _ in find_vendor_tokens(text))
    return tuple(_resolve(_share_secret_names(found)))


_BASE64_LINE = re.compile(r"[A-Za-z0-9+/=]{16,}")


def _data_blocks(lines: list[str], line_starts: list[int]) -> Iterator[Slot]:
    """Blocks of three or more lines that are each one base64 run of the same width (the last
    one may be shorter): encoded data wrapped at a fixed width, not a key."""
    index = 0
    while index < len(lines):
        width = len(lines[index].strip())
        end = index
        while (end < len(lines) and _BASE64_LINE.fullmatch(lines[end].strip())
               and len(lines[end].strip()) == width):
            end += 1
        if end < len(lines) and end > index and _BASE64_LINE.fullmatch(lines[end].strip() or "-") and len(lines[end].strip()) < width:
            end += 1  # the shorter last line
        if end - index >= 3 and _BASE64_LINE.fullmatch(lines[index].strip()):
            yield Slot(line_starts[index], line_starts[end - 1] + len(lines[end - 1]), "", PUBLIC_BLOCK)
            index = end
        else:
            index += 1


def _share_secret_names(slots: list[Slot]) -> list[Slot]:
    """Give every slot the secret-saying name another finder read for exactly its span.

    ``Activation key : X`` is an assignment to ``key`` and a value labelled ``Activation key``;
    a vendor token is also a string bound to ``api_key``. Whichever slot the overlap order
    keeps, it keeps the name that says secret.
    """
    secret = {(s.start, s.end): s.key for s in slots if s.key and s.where != PEM and is_secret_name(s.key)}
    return [
        Slot(s.start, s.end, secret[(s.start, s.end)], s.where)
        if (s.start, s.end) in secret and not is_secret_name(s.key) else s
        for s in slots
    ]


def _resolve(slots: list[Slot]) -> list[Slot]:
    """Keep slots by priority, dropping any that overlaps one already kept."""
    # Kept slots never overlap, so their starts and ends are sorted alike: one binary search
    # finds the only kept slot that could overlap a new one from the left.
    starts: list[int] = []
    ends: list[int] = []
    kept: list[Slot] = []
    for slot in sorted(slots, key=lambda s: (_PRIORITY[s.where], s.start, -(s.end - s.start))):
        if slot.end <= slot.start:
            continue
        index = bisect_right(starts, slot.start)
        if index > 0 and ends[index - 1] > slot.start:
            continue
        if index < len(starts) and starts[index] < slot.end:
            continue
        starts.insert(index, slot.start)
        ends.insert(index, slot.end)
        kept.insert(index, slot)
    return kept


def _pem_blocks(text: str) -> Iterator[Slot]:
    """Armoured blocks: private keys are slots; certificates and public keys are public and
    swallow their lines so no part of them is taken for a token."""
    for begin in _PEM_BEGIN.finditer(text):
        label = begin.group(1)
        end_marker = f"-----END {label}-----"
        end = text.find(end_marker, begin.end())
        if end != -1:
            where = PEM if "PRIVATE KEY" in label else PUBLIC_BLOCK
            yield Slot(begin.start(), end + len(end_marker), label, where)


def _url_passwords(text: str, offset: int, key: str) -> Iterator[Slot]:
    for match in _URL_USERINFO.finditer(text):
        yield Slot(
            offset + match.start("password"), offset + match.end("password"), "url", URL_USERINFO
        )


def _header_values(text: str) -> Iterator[Slot]:
    for match in _AUTH_SCHEME.finditer(text):
        yield Slot(match.start("value"), match.end("value"), match.group("scheme"), HEADER)


def _line_slots(text: str, line: str, offset: int) -> Iterator[Slot]:
    yield from _option_values(line, offset)
    for start, end, name in query_values(line):
        yield Slot(offset + start, offset + end, name, QUERY)
    for start, end, label in label_values(line):
        yield Slot(offset + start, offset + end, label, LABEL)
    for start, end in glued_passwords(line):
        yield Slot(offset + start, offset + end, "password", LABEL)
    docker = docker_env_value(line)
    if docker:
        yield Slot(offset + docker[0], offset + docker[1], docker[2], ASSIGNMENT)
    quoted_spans: list[tuple[int, int]] = []
    for match in _QUOTED.finditer(line):
        quoted_spans.append((match.start(), match.end()))
        if _is_name_position(line, match.start(), match.end()):
            continue
        key = binding_before(line, match.start())
        yield from _split_value(line, match.start("body"), match.end("body"), key, offset, STRING)
    for match in _XML_ELEMENT.finditer(line):
        yield Slot(offset + match.start("value"), offset + match.end("value"), match.group("tag"), ASSIGNMENT)
    for match in _ASSIGNED.finditer(line):
        if _inside(match.start("value"), quoted_spans):
            continue
        value_end = match.end("value")
        rest = line[value_end:].lstrip()
        if _EXPRESSION_CHARS.search(match.group("value")) or rest.startswith(("(", "[", ".")):
            continue
        yield from _split_value(
            line, match.start("value"), value_end, match.group("key"), offset, ASSIGNMENT
        )
    # Host and path of each URL (up to its query): only path segments there can be tokens.
    urls = [(match.start(), match.start() + (match.group().find("?") % (len(match.group()) + 1)))
            for match in _URL.finditer(line)]
    # In a URL's query a `name=value` run is always a parameter and its value.
    for match in _TOKEN_RUN.finditer(line):
        start, end = _trim_token(line, match.start(), match.end())
        if any(url_start <= start < url_end for url_start, url_end in urls):
            # Inside a URL only a path segment can be a token (`/services/T0/B0/<token>`): the
            # host names a place, and secret-named query values are slots of their own.
            yield from _url_path_tokens(line, offset, start, end)
            continue
        key = ""
        pair = _TOKEN_PAIR.fullmatch(line, start, end)
        in_query = start > 0 and line[start - 1] in "?&" and any(query <= start for _, query in urls)
        if pair and (in_query or _is_lone_pair_name(pair.group("k"))):
            # `name=value` run together (a query string in prose): the value, bound to the name.
            key, start = pair.group("k"), pair.start("v")
        if end - start >= 20:
            yield Slot(offset + start, offset + end, key, TOKEN)


_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s'\"`<>]+")


def _url_path_tokens(line: str, offset: int, start: int, end: int) -> Iterator[Slot]:
    """The path segments of 20 characters or more in a token run inside a URL."""
    run = line[start:end]
    host_end = run.find("/")
    position = host_end + 1 if host_end != -1 else len(run)
    for segment in re.finditer(r"[^/=&]+", run[position:]):
        if segment.end() - segment.start() >= 20:
            yield Slot(offset + start + position + segment.start(), offset + start + position + segment.end(), "", TOKEN)


def _option_values(line: str, offset: int) -> Iterator[Slot]:
    for match in _OPTION.finditer(line):
        start, end = match.start("value"), match.end("value")
        if line[start] in "\"'":
            start, end = start + 1, end - 1
        name = match.group("name").lstrip("-")
        value = line[start:end]
        if name in ("u", "user") and ":" in value:
            # curl -u user:password: the password is the secret.
            colon = value.index(":")
            yield Slot(offset + start + colon + 1, offset + end, "password", ARGUMENT)
        elif name in ("H", "header") and _HEADER_LINE.match(value):
            # -H "X-Api-Key: value": the header's value, named by the header.
            header = _HEADER_LINE.match(value)
            assert header is not None
            if not _AUTH_SCHEME.match(header.group("value")):
                yield Slot(offset + start + header.start("value"), offset + start + header.end("value"),
                           header.group("name"), ARGUMENT)
        elif _OPTION_PAIR.match(value):
            # -var client_secret=..., -e API_TOKEN=..., --build-arg NPM_TOKEN=...: the pair's name.
            pair = _OPTION_PAIR.match(value)
            assert pair is not None
            yield Slot(offset + start + pair.start("v"), offset + end, pair.group("k"), ARGUMENT)
        elif not value.startswith("-"):
            yield Slot(offset + start, offset + end, name, ARGUMENT)


def _split_value(line: str, start: int, end: int, key: str, offset: int, where: str) -> Iterator[Slot]:
    """The values inside one literal: URL passwords, ``k=v`` pairs, or the whole of it."""
    body = line[start:end]
    if not body.strip():
        return
    if _URL_USERINFO.search(body):
        yield from _url_passwords(body, offset + start, key)
        return
    user_password = _USER_PASSWORD.match(body)
    if user_password and _USER_PASSWORD_NAME.search(key):
        # CURLOPT_USERPWD, "user:password": the password is the secret.
        yield Slot(offset + start + user_password.start("p"), offset + end, key, where)
        return
    scheme = _AUTH_SCHEME.match(body)
    if scheme:
        yield Slot(offset + start + scheme.start("value"), offset + start + scheme.end("value"),
                   scheme.group("scheme"), HEADER)
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
    if pairs and (len(pairs) > 1 or (pairs[0].start() == 0 and _is_lone_pair_name(pairs[0].group("k")))):
        for pair in pairs:
            if pair.end("v") > pair.start("v"):
                yield Slot(offset + start + pair.start("v"), offset + start + pair.end("v"),
                           pair.group("k"), where)
        return
    yield Slot(offset + start, offset + end, key, where)


# `Data Source=db; User ID=sa; Password=...`: two or more `;`-separated pairs, keys of words.
_SPACED_PAIR = re.compile(r"(?:^|;)\s*(?P<k>[A-Za-z][A-Za-z0-9_ ]{0,30}?)\s*=\s*(?P<v>[^;\s]*)\s*(?=;|$)")


def _spaced_pairs(body: str) -> list[tuple[str, int, int]]:
    pairs = list(_SPACED_PAIR.finditer(body))
    if len(pairs) < 2 or body.count(";") < 1:
        return []
    return [(p.group("k"), p.start("v"), p.end("v")) for p in pairs if p.end("v") > p.start("v")]


def _is_lone_pair_name(key: str) -> bool:
    """Whether a lone ``key=value`` reads as a name and its value (``Password=...``), not as a
    random value that holds ``=`` (``mNf=V78u...``): a name has a word of three letters or more."""
    key = key.lstrip("_")  # .npmrc's `_authToken`, `_password`
    return bool(_NAME_SHAPE.match(key)) and any(len(word) >= 3 for word in _NAME_LETTER_WORDS.findall(key))


def _is_name_position(line: str, quote_start: int, quote_end: int) -> bool:
    """A string used as a name: a mapping key (``"k": v``) or the first argument of a lookup."""
    if _KEY_AFTER.match(line[quote_end:]) and not line[quote_end:].lstrip().startswith("::"):
        return True
    return bool(_LOOKUP_CALL.search(line[max(quote_start - LEFT_CHARS, 0) : quote_start]))


def _inside(position: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= position < end for start, end in spans)


def _trim_token(line: str, start: int, end: int) -> tuple[int, int]:
    # Sentence punctuation around a token is not part of it; '=' padding at the end is.
    while start < end and line[start] in ".-~/":
        start += 1
    while end > start and line[end - 1] in ".-~":
        end -= 1
    return start, end
