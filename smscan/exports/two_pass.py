"""Two-pass reading of a JSONL dataset whose groups are not contiguous (``--two-pass``).

Duplicate propagation needs a whole group at once, and the streaming export holds one group at a
time, so it needs each group's records together. When they are scattered, two passes regroup
them without loading the file:

1. stream the file once; parse each record for its group key and append to an index file on disk
   one fixed-size entry per record: its byte offset, its length, and the index of the previous
   record of the same group (-1 for a group's first). In memory: each group's last record index
   (one entry per group, as the streaming mode's contiguity check keeps one per group).
2. for each group in the order of its first record, walk the chain back from its last record
   (the group's record indices: memory bounded by the largest group), then read its records in
   input order by offset and yield them.

Output order: groups in the order their first record appears in the input, each group's records
in input order (so an input whose groups are already contiguous comes out unchanged). A record
that cannot be parsed, or has no usable group value, is its own group where it appears.

Each yielded item keeps ``index`` (its place in the input, for the reject file) and gets
``order`` (its place in this stream), which is what a resume counts; the same input gives the same
order, so ``--resume`` works as in the streaming mode.
"""

from __future__ import annotations

import struct
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import BinaryIO

from smscan.errors import SourceError
from smscan.records import DatasetRecord, Rejected
from smscan.sources.datasets import RecordFormat, parse_line

# One index entry: byte offset, byte length, previous record of the same group (-1: none).
_ENTRY = struct.Struct("<qqq")


def iter_two_pass(path: Path, fmt: RecordFormat) -> Iterator[DatasetRecord | Rejected]:
    """The records of a JSONL file, each group's records together (see the module docstring).

    Args:
        path: the JSONL dataset.
        fmt: the text field, chat roles and group field (``group_by`` is required).

    Yields:
        DatasetRecords and Rejecteds, group by group; ``order`` counts from 0, ``position`` is the
        input bytes read so far in this pass (for progress).

    Raises:
        SourceError: the file cannot be read, or ``fmt.group_by`` is not set.
    """
    if fmt.group_by is None:
        raise SourceError("a two-pass export regroups records by their group field; the record format names none (group_by)")
    try:
        source = path.open("rb")
    except OSError as error:
        raise SourceError(f"{path}: cannot read the dataset: {error.strerror}") from error
    if not source.seekable():
        source.close()
        # Pass 2 reads records back by offset; a pipe cannot go back.
        raise SourceError(f"{path}: --two-pass reads the input twice and cannot read a pipe; write it to a file first")
    with source, tempfile.TemporaryFile(prefix="smscan-two-pass-") as index:
        last_of_group = _index_records(source, index, fmt)
        yield from _read_groups(source, index, last_of_group.values(), fmt)


def _index_records(source: BinaryIO, index: BinaryIO, fmt: RecordFormat) -> dict[object, int]:
    """Pass 1: one index entry per record; returns each group's last record, in first-seen order."""
    last_of_group: dict[object, int] = {}  # insertion order = order of each group's first record
    number = 0
    offset = 0
    for line in source:
        start, offset = offset, offset + len(line)
        if not line.strip():
            continue
        item = parse_line(line, number, fmt)
        # A reject is its own group; the tuple cannot equal a record's group string.
        key: object = item.group if isinstance(item, DatasetRecord) else ("rejected", number)
        index.write(_ENTRY.pack(start, len(line), last_of_group.get(key, -1)))
        last_of_group[key] = number
        number += 1
    return last_of_group


def _read_groups(
    source: BinaryIO, index: BinaryIO, lasts: Iterable[int], fmt: RecordFormat
) -> Iterator[DatasetRecord | Rejected]:
    """Pass 2: each group's records in input order, groups in order of their first record."""
    order = 0
    position = 0
    for last in lasts:
        members: list[tuple[int, int, int]] = []
        number = last
        while number >= 0:
            index.seek(number * _ENTRY.size)
            start, length, previous = _ENTRY.unpack(index.read(_ENTRY.size))
            members.append((number, start, length))
            number = previous
        for number, start, length in reversed(members):
            source.seek(start)
            line = source.read(length)
            position += length
            item = parse_line(line, number, fmt, position=position)
            yield replace(item, order=order)
            order += 1
