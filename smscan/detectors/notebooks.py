"""Jupyter notebooks: the cells' source as the text a person reads, mapped back to the file.

A notebook is JSON: a cell's code is a list of escaped JSON strings (``"api_key = \\"...\\"\\n"``),
so slots must be found in the decoded cell text (where the quotes are real quotes) while the
findings must point into the file (where the model scored it). Each decoded character keeps the
file offset it came from.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_SOURCE = re.compile(r'"source"\s*:\s*')
_JSON_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell's decoded source; ``starts[i]``/``ends[i]`` are the file span of character ``i``."""

    index: int
    text: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]

    def file_span(self, start: int, end: int) -> tuple[int, int]:
        """The file span of the cell text's ``[start, end)``."""
        return self.starts[start], self.ends[end - 1]


def is_notebook(text: str) -> bool:
    """True for a Jupyter notebook: a JSON object whose ``cells`` is a list and ``nbformat`` a
    number (a notebook's JSON schema names both too, as strings)."""
    if text.lstrip()[:1] != "{" or '"cells"' not in text or '"nbformat"' not in text:
        return False
    try:
        data = json.loads(text)
    except ValueError:
        return False
    return isinstance(data, dict) and isinstance(data.get("cells"), list) and isinstance(data.get("nbformat"), int)


def notebook_cells(text: str) -> list[Cell]:
    """The source of every cell of a notebook, in order; [] when ``text`` is not valid JSON.

    Example:
        >>> nb = '{"cells": [{"source": ["k = \\\\"v1\\\\"\\\\n", "x"]}], "nbformat": 4}'
        >>> cell, = notebook_cells(nb)
        >>> cell.text, nb[slice(*cell.file_span(5, 7))]
        ('k = "v1"\\nx', 'v1')
    """
    if not is_notebook(text):
        return []
    cells = []
    for number, source in enumerate(_SOURCE.finditer(text)):
        position = source.end()
        strings = []
        if text.startswith("[", position):
            position += 1
            while True:
                while position < len(text) and text[position] in " \t\r\n,":
                    position += 1
                match = _JSON_STRING.match(text, position)
                if not match:
                    break
                strings.append(match)
                position = match.end()
        else:
            match = _JSON_STRING.match(text, position)
            if match:
                strings.append(match)
        chars: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        for match in strings:
            _decode(text, match.start() + 1, match.end() - 1, chars, starts, ends)
        cells.append(Cell(number, "".join(chars), tuple(starts), tuple(ends)))
    return cells


def _decode(text: str, start: int, end: int, chars: list[str], starts: list[int], ends: list[int]) -> None:
    """Append the decoded characters of the JSON string body ``text[start:end]`` with their spans."""
    position = start
    while position < end:
        if text[position] != "\\":
            chars.append(text[position])
            starts.append(position)
            ends.append(position + 1)
            position += 1
            continue
        code = text[position + 1]
        if code == "u":
            unit = int(text[position + 2 : position + 6], 16)
            width = 6
            if 0xD800 <= unit < 0xDC00 and text.startswith("\\u", position + 6):
                low = int(text[position + 8 : position + 12], 16)
                unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                width = 12
            chars.append(chr(unit))
            starts.append(position)
            ends.append(position + width)
            position += width
        else:
            chars.append(_ESCAPES.get(code, code))
            starts.append(position)
            ends.append(position + 2)
            position += 2
