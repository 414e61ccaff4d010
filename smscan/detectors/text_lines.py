"""The lines around a span of a text: the context a judgement reads beside a value."""

from __future__ import annotations


def lines_around(text: str, start: int, end: int, reach: int) -> tuple[int, int]:
    """The span from the start of the line ``reach`` lines above the one holding ``start`` to the
    end (before its newline) of the line ``reach`` lines below the one holding ``end``; the text's
    own ends bound it.

    Example:
        >>> text = "a\\nb\\nc\\nd\\ne\\n"
        >>> window = lines_around(text, 4, 5, 1)
        >>> text[window[0]:window[1]]
        'b\\nc\\nd'
    """
    window_start = text.rfind("\n", 0, start) + 1
    for _ in range(reach):
        window_start = text.rfind("\n", 0, max(window_start - 1, 0)) + 1
    window_end = text.find("\n", end)
    window_end = len(text) if window_end < 0 else window_end
    for _ in range(reach):
        found = text.find("\n", window_end + 1)
        window_end = len(text) if found < 0 else found
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
