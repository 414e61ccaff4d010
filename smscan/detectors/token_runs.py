"""Long runs of token characters anywhere in a line: comments, prose, logs, URL paths.

The last resort of the slot finder: a run of 20 or more characters of the base64/URL-safe
alphabet, with sentence punctuation trimmed. ``name=value`` run together (a query string in
prose) gives the value bound to the name; inside a URL only path segments count
(``/services/T0/B0/<token>``): the host names a place, and secret-named query values are slots
of their own (:mod:`smscan.detectors.query_strings`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from smscan.detectors.literal_values import is_lone_pair_name
from smscan.detectors.secret_names import ID_TYPE_PREFIX, SECRET_PATH_WORD
from smscan.detectors.slot_kinds import TOKEN, Slot

MIN_LENGTH = 20
_TOKEN_RUN = re.compile(r"[A-Za-z0-9+/=_\-.~]{20,}")
_TOKEN_PAIR = re.compile(r"(?P<k>[A-Za-z_][\w.\-]*)=(?P<v>[^=][^=]*=*)")
# A scheme is a short word: unbounded, a long run of `a.a.a...` is read again from each word.
_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.\-]{0,39}://[^\s'\"`<>]+")
_URL_SEGMENT = re.compile(r"[^/=&]+")
# How far before a value a URL holding it is looked for.
_URL_REACH = 2048
# An id's type written before it (:data:`ID_TYPE_PREFIX`, `dbid:AAH4f99T...`): a short word, looked
# for within `_TYPE_REACH` characters before the run.
_TYPED_ID_PREFIX = re.compile(rf"(?<![\w\-]){ID_TYPE_PREFIX}$")
_TYPE_REACH = 16
# An image's path: what a badge URL ends in before its query.
_IMAGE_PATH = re.compile(r"\.(?:svg|png|gif|jpe?g|webp)$", re.IGNORECASE)
# Markdown's image syntax up to its URL: `![Codecov](`, the alt text on one line.
_MARKDOWN_IMAGE_BEFORE = re.compile(r"!\[[^\]\n]*\]\($")
_MARKDOWN_ALT_REACH = 200
# The hosts and paths of status badges, whose tokens are made to be shown.
_BADGE_URL = re.compile(r"://(?:img\.shields\.io|badgen\.net|codecov\.io|coveralls\.io|[\w.\-]*circleci\.com|"
                        r"[\w.\-]*travis-ci\.(?:com|org)|sonarcloud\.io|[\w.\-]*codacy\.com)/|/badges?\b", re.IGNORECASE)


def token_runs(line: str, offset: int) -> Iterator[Slot]:
    """The token runs of ``line`` as ``token`` slots (spans shifted by ``offset``).

    Example:
        >>> line = "# see https://hooks.example.com/services/T0/B0/Zq8xP1sV9kL2mN4bT7wRaa"
        >>> [line[s.start:s.end] for s in token_runs(line, 0)]
        ['Zq8xP1sV9kL2mN4bT7wRaa']
    """
    # Host and path of each URL (up to its query): only path segments there can be tokens.
    urls = [(match.start(), match.start() + (match.group().find("?") % (len(match.group()) + 1)))
            for match in _URL.finditer(line)]
    for match in _TOKEN_RUN.finditer(line):
        start, end = _trim_token(line, match.start(), match.end())
        if any(url_start <= start < url_end for url_start, url_end in urls):
            yield from _url_path_tokens(line, offset, start, end)
            continue
        if _TYPED_ID_PREFIX.search(line, max(start - _TYPE_REACH, 0), start):
            continue
        key = ""
        pair = _TOKEN_PAIR.fullmatch(line, start, end)
        # In a URL's query a `name=value` run is always a parameter and its value.
        in_query = start > 0 and line[start - 1] in "?&" and any(query <= start for _, query in urls)
        if pair and (in_query or is_lone_pair_name(pair.group("k"))):
            # `name=value` run together (a query string in prose): the value, bound to the name.
            key, start = pair.group("k"), pair.start("v")
        if end - start >= MIN_LENGTH:
            yield Slot(offset + start, offset + end, key, TOKEN)


def in_plain_query(text: str, start: int) -> bool:
    """True when ``start`` is in the query of a URL on its line whose host, path and parameter
    names before it hold no word that says secret (`youtube.com/playlist?list=<id>`).

    Example:
        >>> line = "see https://www.example.com/playlist?list=PLy1nL-pvL2M55YVn0mGoQ5r"
        >>> in_plain_query(line, line.index("PLy")), in_plain_query(line.replace("list=", "token="), line.index("PLy") + 1)
        (True, False)
    """
    url = _url_with_query_at(text, start)
    return url is not None and not SECRET_PATH_WORD.search(text, url.start(), start)


def in_image_query(text: str, start: int) -> bool:
    """True when ``start`` is in the query of a URL on its line whose path names an image: a
    badge's token (Codecov's `graph/badge.svg?token=...`) is made to be shown in every README.

    Example:
        >>> line = ".. image:: https://codecov.io/gh/o/r/graph/badge.svg?token=Jq7Xw2Lp9K"
        >>> in_image_query(line, line.index("Jq7")), in_image_query(line.replace(".svg", ""), line.index("Jq7") - 4)
        (True, False)
        >>> line = "[![Codecov](https://img.shields.io/codecov/c/github/o/r?token=Jq7Xw2Lp9K)](https://codecov.io)"
        >>> in_image_query(line, line.index("Jq7"))
        True
    """
    url = _url_with_query_at(text, start)
    if url is None:
        return False
    # Markdown shows the URL after `![alt](` as an image: a badge's (shields.io's) has no image suffix.
    return _IMAGE_PATH.search(url.group(), 0, url.group().find("?")) is not None or (
        _BADGE_URL.search(url.group()) is not None
        and _MARKDOWN_IMAGE_BEFORE.search(text, max(url.start() - _MARKDOWN_ALT_REACH, 0), url.start()) is not None
    )


def _url_with_query_at(text: str, start: int) -> re.Match[str] | None:
    """The URL on ``start``'s line whose query holds ``start``, or None."""
    # Read back at most a long URL's length: a minified line is never read once per value.
    window = max(start - _URL_REACH, 0)
    line_start = text.rfind("\n", window, start) + 1 or window
    if text.rfind("?", line_start, start) == -1:  # no query opens before it: most values, cheaply
        return None
    for match in _URL.finditer(text, line_start, start + 1):
        query = match.group().find("?")
        if query != -1 and match.start() + query < start <= match.end():
            return match
    return None


def has_path_token(value: str) -> bool:
    """True when ``value`` is one URL with a path segment long enough to be a token
    (``https://hooks.example.com/services/T0/B0/<token>``): its token, not the URL, is the slot.

    Example:
        >>> has_path_token("https://chat.example.net/hooks/8Kq2Vx7Lm4Tz9Wn3Rb6Hd1Fp"), has_path_token("https://example.com/a/b")
        (True, False)
    """
    if _URL.fullmatch(value) is None:
        return False
    # The URL up to its query, read as token_runs reads a line: only path segments are tokens.
    return any(True for _ in token_runs(value[: _path_end(value)], 0))


def _path_end(url: str) -> int:
    """Where the path of ``url`` ends: at its query, its fragment, or its end."""
    ends = [index for index in (url.find("?"), url.find("#")) if index != -1]
    return min(ends, default=len(url))


def _url_path_tokens(line: str, offset: int, start: int, end: int) -> Iterator[Slot]:
    """The path segments of 20 characters or more in a token run inside a URL whose host or
    earlier path segments say it carries a secret (``SECRET_PATH_WORD``)."""
    run = line[start:end]
    host_end = run.find("/")
    position = host_end + 1 if host_end != -1 else len(run)
    for segment in _URL_SEGMENT.finditer(run[position:]):
        if segment.end() - segment.start() >= MIN_LENGTH and SECRET_PATH_WORD.search(run, 0, position + segment.start()):
            yield Slot(offset + start + position + segment.start(), offset + start + position + segment.end(), "", TOKEN)


def _trim_token(line: str, start: int, end: int) -> tuple[int, int]:
    # Sentence punctuation around a token is not part of it; '=' padding at the end is.
    while start < end and line[start] in ".-~/":
        start += 1
    while end > start and line[end - 1] in ".-~":
        end -= 1
    return start, end
