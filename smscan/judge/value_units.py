"""Where the values of a text lie: the character spans value-aware masking masks whole.

A *value* is data a program carries rather than code it is made of: a string literal's body, a
number, the value bound to a name (``USER = jdoe42``, ``user: jdoe42``, ``--user jdoe42``), a
value-shaped word anywhere (one holding a digit or an ``@``: ids, emails, recovery codes; or six
or more capitals that read as no word: ``WEAKFYMSKB``, see :func:`is_letter_id`; or eight or more
letters, perhaps after a short prefix, that pair as no word: ``ws-iqsqfapghp``, see
:func:`is_random_letters`) and the words of a comment. Any other plain word or ordinary identifier (letters and underscores only) is never a
value, wherever it stands: everything but values (keywords, punctuation, ordinary identifiers,
prose words, indentation) is *code structure*.

Units come from the credential detector's slot finder (:func:`smscan.detectors.slots.find_slots`:
string bodies, config and env values, option values, URL passwords, long tokens), completed with
what a private value needs and a credential does not: strings holding spaces are cut into their
words (``"contact jdoe42 for access"`` -> ``jdoe42``), and value-shaped and comment words are
units of their own. Overlaps are resolved by that order (a slot beats a word inside it).

Lexical, not a parser, like the slot finder: it reads code, config, shell and Markdown alike.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from functools import lru_cache

from smscan.detectors.slots import PUBLIC_BLOCK, find_slots
from smscan.detectors.letter_pairs import reads_as_word

# A quoted string on one line, with backslash escapes (the slot finder skips strings holding
# spaces and strings in name position; value-aware masking wants their words).
_QUOTED = re.compile(r"""(?P<q>["'`])(?P<body>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)""")
# One word of a string or a comment: a run without spaces, quotes or brackets.
_WORD = re.compile(r"""[^\s"'`()\[\]{}<>,;]+""")
# A value-shaped word in code: holds a digit or an '@' (ids, numbers, emails, codes).
_VALUE_WORD = re.compile(r"[\w.@+\-]*(?:\d|@)[\w.@+\-]*")
# Where a line's comment starts: '#' or '//' at the start or after a space (not in 'a#b' or a URL).
_COMMENT = re.compile(r"(?:^|(?<=\s))(?:#|//|--|;|\*|/\*)\s")
# Sentence punctuation around a word is not part of it.
_TRIM_LEFT = ".:-~/*#=!?"
_TRIM_RIGHT = ".:-~/*!?"
_MIN_WORD_CHARS = 2
# A plain word or ordinary identifier (letters and underscores only: `account`, `WORKSPACE_ID`,
# `humanReadableArgName`) is code structure or prose wherever it stands, not a value...
_PLAIN_WORD = re.compile(r"[A-Za-z_]+")
# ...unless it is a run of capitals that reads as no word (`WEAKFYMSKB`: an id drawn from letters
# only). Shorter runs are acronyms and constants (`HTTP`, `DEBUG`).
_CAPITALS = re.compile(r"(?<![\w$])[A-Z]{6,}(?![\w$])")
_CONSONANT_RUN = re.compile(r"[^AEIOU]+")
_MAX_WORD_CONSONANTS = 4  # `STRENGTH`, `WORKSPACE`; random letters soon hold a longer run
_MIN_WORD_VOWELS = 0.15  # `STRICT` (1 in 6); random capitals hold one in five
# ...or a run of 8+ letters, alone or after a short prefix and '-' or '_' (`ws-iqsqfapghp`,
# `acct_qzvnkwpd`), whose letters pair as no word does (an id drawn from letters only).
_MIN_ID_LETTERS = 5  # distinct letters; 8 random letters of 26 hold about 7
_LETTER_RUN = re.compile(r"(?<![\w$])(?:[A-Za-z]{1,5}[-_])?(?P<run>[A-Za-z]{8,})(?![\w$])")


def value_units(text: str) -> list[tuple[int, int]]:
    """The disjoint value spans of ``text``, sorted (see the module docstring).

    Args:
        text: a whole document.

    Returns:
        ``(char_start, char_end)`` spans, 0-based half-open, disjoint and sorted.

    Example:
        >>> text = 'API_TOKEN = "x9f2"  # ask jdoe42\\nif ok: run()'
        >>> [text[a:b] for a, b in value_units(text)]
        ['x9f2', 'jdoe42']
    """
    return list(_units_of(text))


@lru_cache(maxsize=64)
def _units_of(text: str) -> tuple[tuple[int, int], ...]:
    ranked: list[tuple[int, int, int]] = []  # (rank, start, end): lower rank wins an overlap
    for slot in find_slots(text):
        if slot.where != PUBLIC_BLOCK:
            ranked.append((0, slot.start, slot.end))
    offset = 0
    for line in text.split("\n"):
        ranked.extend((1, offset + a, offset + b) for a, b in _string_words(line))
        ranked.extend((2, offset + a, offset + b) for a, b in _value_words(line))
        ranked.extend((2, offset + m.start(), offset + m.end()) for m in _CAPITALS.finditer(line) if is_letter_id(m.group()))
        ranked.extend((2, offset + m.start(), offset + m.end()) for m in _LETTER_RUN.finditer(line) if is_random_letters(m.group()))
        ranked.extend((3, offset + a, offset + b) for a, b in _comment_words(line))
        offset += len(line) + 1
    return tuple(
        (a, b)
        for a, b in _resolve(ranked)
        if not _PLAIN_WORD.fullmatch(text, a, b) or is_letter_id(text[a:b]) or is_random_letters(text[a:b])
    )


def is_letter_id(word: str) -> bool:
    """Whether ``word`` is an id made of capital letters rather than a word or constant: six or
    more capitals that do not alternate vowels and consonants as words do (a run of more than
    four consonants, or under 15% vowels; `Y` counts as a consonant).

    Such a word is a value wherever it stands, judged by its randomness like any other, so a
    word read wrongly as an id is still left alone when the model predicts it.

    Example:
        >>> is_letter_id("WEAKFYMSKB"), is_letter_id("README"), is_letter_id("WORKSPACE_ID")
        (True, False, False)
    """
    if len(word) < 6 or not word.isascii() or not word.isalpha() or not word.isupper():
        return False
    longest = max((len(run) for run in _CONSONANT_RUN.findall(word)), default=0)
    vowels = sum(c in "AEIOU" for c in word) / len(word)
    return longest > _MAX_WORD_CONSONANTS or vowels < _MIN_WORD_VOWELS


def is_random_letters(word: str) -> bool:
    """Whether ``word`` is an id drawn from letters only: 8 or more letters, alone or after a
    prefix of at most 5 letters and '-' or '_', whose letters pair as no word's do
    (:func:`smscan.detectors.letter_pairs.reads_as_word`).

    Like :func:`is_letter_id`, such a word is a value judged by its randomness, not masked as such.

    Example:
        >>> is_random_letters("ws-iqsqfapghp"), is_random_letters("getattribute"), is_random_letters("non-interactive")
        (True, False, False)
    """
    match = _LETTER_RUN.fullmatch(word)
    if match is None:
        return False
    run = match.group("run")
    # A run of few letters repeated (`XXXXXXXX`, `VMVMVMVM`) is filler or a pattern, not an id.
    return len(set(run.lower())) >= _MIN_ID_LETTERS and not reads_as_word(run)


def _string_words(line: str) -> Iterator[tuple[int, int]]:
    for match in _QUOTED.finditer(line):
        start, end = match.start("body"), match.end("body")
        body = line[start:end]
        if not body.strip():
            continue
        if not any(c.isspace() for c in body):
            yield start, end
            continue
        for word in _WORD.finditer(body):
            yield from _trimmed(line, start + word.start(), start + word.end())


def _value_words(line: str) -> Iterator[tuple[int, int]]:
    for match in _VALUE_WORD.finditer(line):
        yield from _trimmed(line, match.start(), match.end())


def _comment_words(line: str) -> Iterator[tuple[int, int]]:
    found = _COMMENT.search(line)
    if found is None:
        return
    for word in _WORD.finditer(line, found.end()):
        yield from _trimmed(line, word.start(), word.end())


def _trimmed(line: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    while start < end and line[start] in _TRIM_LEFT:
        start += 1
    while end > start and line[end - 1] in _TRIM_RIGHT:
        end -= 1
    if end - start >= _MIN_WORD_CHARS:
        yield start, end


def _resolve(ranked: list[tuple[int, int, int]]) -> list[tuple[int, int]]:
    """Keep spans by rank, dropping any that overlaps one already kept."""
    starts: list[int] = []
    ends: list[int] = []
    for _, start, end in sorted(ranked, key=lambda r: (r[0], r[1], -(r[2] - r[1]))):
        index = bisect_right(starts, start)
        if index > 0 and ends[index - 1] > start:
            continue
        if index < len(starts) and starts[index] < end:
            continue
        starts.insert(index, start)
        ends.insert(index, end)
    return list(zip(starts, ends))
