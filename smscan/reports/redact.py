"""How a flagged value is shown where it may be stored or shared (JSON, SARIF, CI logs)."""

from __future__ import annotations

from collections.abc import Iterable

# Values shorter than this show no prefix at all: a few leading characters of a short password
# would give away too much of it.
_PREFIX_MIN_LENGTH = 16
_PREFIX_LENGTH = 4


def redact(value: str) -> str:
    """Replace a value by its length, keeping a prefix of at most 4 characters for long values.

    >>> redact("hunter2")
    '[7 chars]'
    >>> redact("ghp_0123456789abcdefghij")
    'ghp_…[24 chars]'
    """
    if len(value) >= _PREFIX_MIN_LENGTH:
        return f"{value[:_PREFIX_LENGTH]}…[{len(value)} chars]"
    return f"[{len(value)} chars]"


# Shorter flagged values are not hunted for elsewhere in a line: two or three characters recur in
# ordinary code by chance, and hiding them would garble the context without protecting anything.
_REPEAT_MIN_LENGTH = 4


def occurrences(text: str, values: Iterable[str]) -> list[tuple[int, int]]:
    """Every ``[start, end)`` range of ``text`` that holds one of ``values``, merged and sorted.

    >>> occurrences("a=s3cr3t; b='s3cr3t'", ["s3cr3t"])
    [(2, 8), (13, 19)]
    """
    ranges: list[tuple[int, int]] = []
    for value in {v for v in values if len(v) >= _REPEAT_MIN_LENGTH}:
        start = text.find(value)
        while start != -1:
            ranges.append((start, start + len(value)))
            start = text.find(value, start + 1)
    # smscan.engine.spans.merge_touching, written again: reports import no engine code.
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def redact_repeats(text: str, values: Iterable[str]) -> str:
    """``text`` with every occurrence of a flagged value replaced by its redacted form.

    A value flagged once may be written again on the same or a nearby line (an assertion repeating
    a test's secret); a report that hides the flagged span must hide its repeats too.

    >>> redact_repeats("x = 'hunter22' == 'hunter22'", ["hunter22"])
    "x = '[8 chars]' == '[8 chars]'"
    """
    pieces = []
    last = 0
    for start, end in occurrences(text, values):
        pieces.append(text[last:start])
        pieces.append(redact(text[start:end]))
        last = end
    pieces.append(text[last:])
    return "".join(pieces)
