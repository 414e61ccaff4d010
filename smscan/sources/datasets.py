"""Dataset files as records to mask: JSONL (and Parquet) with a text field or chat ``messages``.

Each input record becomes a :class:`DatasetRecord` (what to score and mask, and the record to
write back) or a :class:`Rejected` (why it cannot be masked). Bad input is never dropped silently
and never aborts the export: a line that is not JSON, not an object, or lacks the text field or
has the wrong type becomes a ``Rejected`` with a short reason.

Which field is masked, per record:
- ``text_field`` given: that field, which must be a string.
- otherwise a record with ``messages`` (a list of ``{"role": str, "content": str}``) is a chat;
  only messages whose role is in ``roles`` (``assistant`` by default) are supervised, i.e. scored
  for masking; the others are context only.
- otherwise the ``text`` field.

Groups (duplicate propagation runs within one): ``group_by`` names a field whose value (string or
integer) is the group; without it every record is its own group, which keeps memory flat.

Files are read as a stream: memory does not grow with the file. ``position`` on each item is the
number of input bytes (JSONL) or rows (Parquet) consumed so far, for progress.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smscan.errors import SourceError
from smscan.records import MESSAGES_FIELD, DatasetRecord, Rejected

DEFAULT_TEXT_FIELD = "text"
DEFAULT_ROLES = ("assistant",)
_PARQUET_BATCH_ROWS = 256


@dataclass(frozen=True, slots=True)
class RecordFormat:
    """How records are read: the text field, the chat roles to supervise, the group field."""

    text_field: str | None = None
    roles: tuple[str, ...] = DEFAULT_ROLES
    group_by: str | None = None


COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".zst", ".zip")


def check_dataset_path(path: Path) -> None:
    """Refuse a dataset this module cannot read, before anything is loaded or scored.

    Raises:
        SourceError: a compressed file (its records would all be rejected as binary).
    """
    if path.name.lower().endswith(COMPRESSED_SUFFIXES):
        raise SourceError(
            f"{path}: compressed input is not read; decompress it first (e.g. zcat {path.name} > data.jsonl)"
        )


def iter_dataset(path: Path, fmt: RecordFormat) -> Iterator[DatasetRecord | Rejected]:
    """Records of a JSONL or Parquet file, streamed.

    Args:
        path: the dataset file (``.parquet`` is Parquet, anything else JSON Lines).
        fmt: the text field, chat roles and group field.

    Yields:
        A DatasetRecord or a Rejected per input record, in input order.

    Raises:
        SourceError: the file cannot be opened or is compressed, or Parquet support (pyarrow) is
            missing.
    """
    check_dataset_path(path)
    if path.name.lower().endswith(".parquet"):
        yield from _iter_parquet(path, fmt)
    else:
        yield from _iter_jsonl(path, fmt)


def parse_record(
    data: Any, index: int, fmt: RecordFormat, *, raw: str = "", position: int = 0
) -> DatasetRecord | Rejected:
    """One parsed record as a DatasetRecord, or a Rejected saying what is wrong with it."""

    def reject(reason: str) -> Rejected:
        return Rejected(index, reason, raw or _dump(data), position)

    if not isinstance(data, dict):
        return reject(f"not a JSON object ({type(data).__name__})")
    group = str(index)
    if fmt.group_by is not None:
        if fmt.group_by not in data:
            return reject(f"no group field {fmt.group_by!r}")
        value = data[fmt.group_by]
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            return reject(f"group field {fmt.group_by!r} is {_type(value)}, expected string or integer")
        group = str(value)
    if fmt.text_field is None and MESSAGES_FIELD in data:
        return _chat(data, index, fmt, group, position, reject)
    field = fmt.text_field or DEFAULT_TEXT_FIELD
    if field not in data:
        return reject(f"no field {field!r}")
    text = data[field]
    if not isinstance(text, str):
        return reject(f"field {field!r} is {_type(text)}, expected string")
    return DatasetRecord(index, data, field, (text,), (), (True,), group, position)


def _chat(
    data: dict[str, Any],
    index: int,
    fmt: RecordFormat,
    group: str,
    position: int,
    reject: Callable[[str], Rejected],
) -> DatasetRecord | Rejected:
    messages = data[MESSAGES_FIELD]
    if not isinstance(messages, list):
        return reject(f"field {MESSAGES_FIELD!r} is {_type(messages)}, expected a list of messages")
    texts: list[str] = []
    roles: list[str] = []
    for number, message in enumerate(messages):
        if not isinstance(message, dict):
            return reject(f"message {number} is {_type(message)}, expected an object")
        role, content = message.get("role"), message.get("content")
        if not isinstance(role, str):
            return reject(f"message {number} has no string 'role'")
        if not isinstance(content, str):
            return reject(f"message {number} 'content' is {_type(content)}, expected string")
        texts.append(content)
        roles.append(role)
    supervised = tuple(role in fmt.roles for role in roles)
    return DatasetRecord(index, data, MESSAGES_FIELD, tuple(texts), tuple(roles), supervised, group, position)


def _iter_jsonl(path: Path, fmt: RecordFormat) -> Iterator[DatasetRecord | Rejected]:
    try:
        handle = path.open("rb")
    except OSError as error:
        raise SourceError(f"{path}: cannot read the dataset: {error.strerror}") from error
    with handle:
        index = 0
        position = 0
        for line in handle:
            position += len(line)
            if not line.strip():
                continue
            yield parse_line(line, index, fmt, position=position)
            index += 1


def parse_line(line: bytes, index: int, fmt: RecordFormat, *, position: int = 0) -> DatasetRecord | Rejected:
    """One non-blank JSONL line as a DatasetRecord, or a Rejected saying what is wrong with it."""
    try:
        raw = line.decode("utf-8")
    except UnicodeDecodeError:
        return Rejected(index, "not UTF-8", line.decode("utf-8", "replace").rstrip("\r\n"), position)
    raw = raw.rstrip("\r\n")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as error:
        return Rejected(index, f"not JSON ({error.msg} at column {error.colno})", raw, position)
    return parse_record(data, index, fmt, raw=raw, position=position)


def _iter_parquet(path: Path, fmt: RecordFormat) -> Iterator[DatasetRecord | Rejected]:
    try:
        import pyarrow.parquet as pq
    except ImportError as error:
        raise SourceError(
            f"{path}: reading Parquet needs pyarrow: pip install 'smscan[parquet]'"
        ) from error
    try:
        parquet = pq.ParquetFile(path)
    except (OSError, ValueError) as error:
        raise SourceError(f"{path}: cannot read the Parquet file: {error}") from error
    index = 0
    for batch in parquet.iter_batches(batch_size=_PARQUET_BATCH_ROWS):
        for row in batch.to_pylist():
            yield parse_record(row, index, fmt, position=index + 1)
            index += 1


def parquet_rows(path: Path) -> int | None:
    """Rows of a Parquet file from its footer (None when unreadable or pyarrow is missing)."""
    try:
        import pyarrow.parquet as pq

        return int(pq.ParquetFile(path).metadata.num_rows)
    except Exception:  # noqa: BLE001 - only a progress total; reading reports real errors
        return None


def _type(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _dump(data: Any) -> str:
    try:
        return json.dumps(data, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(data)


def records_from_texts(
    texts: Sequence[str], *, groups: Sequence[str] | None = None
) -> list[DatasetRecord]:
    """Plain texts as records (field ``text``), for the Python API."""
    return [
        DatasetRecord(i, {"text": t}, DEFAULT_TEXT_FIELD, (t,), (), (True,), groups[i] if groups else str(i))
        for i, t in enumerate(texts)
    ]
