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
