"""The name a code sequence's item takes from the line that opens the sequence.

A tuple or list written one item a line names its items once, on the line that opens it::

    PRIOR_HASHES = (
        b'4d9958c90bc262f47553e2c073f14cfe',
        b'd8ee923c46731b42cd95cc869add4062',
    )

The line-based slot finder sees each item as an unnamed string; here the item's line and the
lines above it are read back to the opening line (every line between an item, a blank or a
comment), whose name says what the items are. As :mod:`.yaml_lists` does for YAML's block
lists, for code.
"""

from __future__ import annotations

import re

from smscan.detectors.text_lines import short_line_around

# An item alone on its line: a quoted string (Python's `b`/`u`/`r` prefixes allowed), a comma.
_ITEM = re.compile(r"""[ \t]*[bBuUrR]?(?P<q>["'])(?P<value>[^"'\n]{1,200})(?P=q)[ \t]*,?[ \t]*\r?""")
# The opening line: a name (maybe declared, maybe typed), `=`, a bracket or a call that makes
# a collection from one, and nothing after it.
_OPENING = re.compile(
    r"""[ \t]*(?:(?:export|const|let|var|final|static|private|public)[ \t]+)*"""
    r"""(?P<name>[A-Za-z_$][\w$.]*)(?:[ \t]*:[ \t]*[^=\n]{1,60})?[ \t]*=[ \t]*"""
    r"""(?:(?:tuple|list|frozenset|set)\([ \t]*)?[(\[{][ \t]*\r?"""
)
# How many lines above an item are read, and how long a line may be to be read at all.
_MAX_LINES_ABOVE = 64
_LONGEST_LINE = 300


def sequence_name(text: str, start: int, end: int) -> str | None:
    """The name on the line opening the sequence ``text[start:end]`` is an item of, or None when
    the value is not an item alone on its line or no opening line is found above it.

    Example:
        >>> text = "PRIOR_HASHES = (\\n    b'4d9958c90bc262f4',\\n    b'd8ee923c46731b42',\\n)\\n"
        >>> start = text.index("d8ee"); sequence_name(text, start, start + 16)
        'PRIOR_HASHES'
    """
    line = short_line_around(text, start, end, _LONGEST_LINE)
    if line is None:
        return None
    line_start, line_end = line
    own = _ITEM.fullmatch(text, line_start, line_end)
    if own is None or own.start("value") != start or own.end("value") != end:
        return None
    pos = line_start
    for _ in range(_MAX_LINES_ABOVE):
        if pos == 0:
            return None
        above = short_line_around(text, pos - 1, pos - 1, _LONGEST_LINE)  # the line ending at pos - 1
        if above is None:
            return None  # a line too long to be an item or an opening
        above_start = above[0]
        opening = _OPENING.fullmatch(text, above_start, pos - 1)
        if opening is not None:
            return opening.group("name")
        stripped = text[above_start : pos - 1].strip()
        if stripped and not stripped.startswith(("#", "//")) and _ITEM.fullmatch(text, above_start, pos - 1) is None:
            return None
        pos = above_start
    return None
