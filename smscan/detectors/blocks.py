"""Slots that span several lines: armoured blocks (private keys, certificates, public keys) and
blocks of encoded data.

A private-key block is a credential as a whole. Certificates, public keys and base64 data
wrapped at a fixed width are public: they become ``public-block`` slots, which swallow their
lines so that no line of them is taken for a token.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from smscan.detectors.slot_kinds import PEM, PUBLIC_BLOCK, Slot

_PEM_BEGIN = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----")
_BASE64_LINE = re.compile(r"[A-Za-z0-9+/=]{16,}")


def pem_blocks(text: str) -> Iterator[Slot]:
    """Armoured blocks: private keys are slots; certificates and public keys are public and
    swallow their lines so no part of them is taken for a token."""
    for begin in _PEM_BEGIN.finditer(text):
        label = begin.group(1)
        end_marker = f"-----END {label}-----"
        end = text.find(end_marker, begin.end())
        if end != -1:
            where = PEM if "PRIVATE KEY" in label else PUBLIC_BLOCK
            yield Slot(begin.start(), end + len(end_marker), label, where)


def data_blocks(lines: list[str], line_starts: list[int]) -> Iterator[Slot]:
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
