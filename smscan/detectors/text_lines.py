"""The lines around a span of a text: the context a judgement reads beside a value."""

from __future__ import annotations


def lines_around(text: str, start: int, end: int, reach: int, max_chars: int | None = None) -> tuple[int, int]:
    """The span from the start of the line ``reach`` lines above the one holding ``start`` to the
    end (before its newline) of the line ``reach`` lines below the one holding ``end``; the text's
    own ends bound it, and ``max_chars`` before ``start`` and after ``end`` when given (so that a
    long line is not read to its ends for each value on it).

    Example:
        >>> text = "a\\nb\\nc\\nd\\ne\\n"
        >>> window = lines_around(text, 4, 5, 1)
        >>> text[window[0]:window[1]]
        'b\\nc\\nd'
        >>> lines_around("x" * 100 + "key" + "y" * 100, 100, 103, 2, max_chars=10)
        (90, 113)
    """
    low = 0 if max_chars is None else max(start - max_chars, 0)
    high = len(text) if max_chars is None else min(end + max_chars, len(text))

    def line_start_before(position: int) -> int:
        found = text.rfind("\n", low, position)
        return low if found < 0 else found + 1

    def line_end_from(position: int) -> int:
        found = text.find("\n", position, high)
        return high if found < 0 else found

    window_start = line_start_before(start)
    for _ in range(reach):
        window_start = line_start_before(max(window_start - 1, low))
    window_end = line_end_from(end)
    for _ in range(reach):
        window_end = line_end_from(window_end + 1)
    return window_start, window_end


def line_start_near(text: str, position: int, window_start: int) -> int | None:
    """The start of the line holding ``position``, looked for from ``window_start`` on only; None
    when the line begins before the window (a long line is not read back to its start).

    Example:
        >>> line_start_near("a = 1\\n  x", 8, 0), line_start_near("x" * 50 + "y", 50, 10)
        (6, None)
    """
    line_start = text.rfind("\n", window_start, position) + 1
    if line_start == 0 and window_start > 0:
        return None
    return line_start


def short_line_around(text: str, start: int, end: int, reach: int) -> tuple[int, int] | None:
    """The span (without its newline) of the line holding ``text[start:end]``, or None when more
    than ``reach`` characters stand on that line before ``start`` or after ``end``: the ends are
    looked for nearby only, so that thousands of values on one minified line cost no scan of the
    whole line each.

    Example:
        >>> text = "a = 1\\n  'q8Zt',\\n"
        >>> span = short_line_around(text, 9, 13, 40); text[span[0]:span[1]]
        "  'q8Zt',"
        >>> short_line_around("x" * 100 + "q8Zt", 100, 104, 40) is None
        True
    """
    line_start = line_start_near(text, start, max(start - reach, 0))
    if line_start is None:
        return None
    line_end = text.find("\n", end, end + reach)
    if line_end < 0:
        if end + reach < len(text):
            return None
        line_end = len(text)
    return line_start, line_end
