"""Labelled validation data: JSONL files in the two shapes the shared generators write.

Credentials (one object per line)::

    {"path": "pkg/settings.py", "spans": [{"start": 10, "end": 30, ...}], "negatives": [...]}
    {"text": "token = 'q8Zt...'", "spans": [{"start": 9, "end": 25}]}

``path`` is relative to the labels file's folder, or to its ``corpus/`` subfolder (the layout of
``secrets_gen.py``); ``start``/``end`` are 0-based half-open code-point offsets. ``negatives``
(hard negatives) are optional and only reported on.

Dead code::

    {"id": "mbpp_011", "code": "def f():\\n    ...", "poisoned_lines": [5]}

``poisoned_lines`` are 1-based line numbers of ``code`` (``text`` is accepted for ``code``,
``lines`` for ``poisoned_lines``).

Every row has a group (duplicate propagation and cross-validation folds keep a group together),
taken from the row alone: its ``group``, else the first component of its ``path`` (the package,
for ``secrets_gen.py``), else its ``id``, else its line number (a group of its own). The labels
file's own path never enters it, so ``labels.jsonl``, ``sub/labels.jsonl`` and an absolute path
give the same groups.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smscan.errors import SmscanError
from smscan.fileio.finite import check_finite


@dataclass(frozen=True, slots=True)
class LabelledText:
    """One labelled document: its text, target character spans and target lines."""

    name: str
    text: str
    spans: tuple[tuple[int, int], ...] = ()
    categories: tuple[str, ...] = ()
    """The category of each span, aligned with ``spans`` (``""`` when the labels give none)."""
    negatives: tuple[tuple[int, int, str], ...] = ()
    lines: tuple[int, ...] = ()
    group: str = ""
    """Rows sharing it stay together; :func:`read_labels` always sets it. Empty (a text built
    elsewhere): the text is a group of its own, keyed by ``name``."""
    shape: str = "spans"
    """``"spans"`` (credential rows) or ``"lines"`` (dead-code rows)."""


def read_labels(path: Path) -> list[LabelledText]:
    """Read a credentials or dead-code labels file (the shape is told by each row's keys).

    Args:
        path: the JSONL file.

    Returns:
        The labelled documents in file order.

    Raises:
        SmscanError: unreadable file, bad JSON, a row of neither shape, a missing text file, or
            offsets outside the text (each message names the file and line).
    """
    try:
        raw_lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise SmscanError(f"{path}: cannot read the labels: {error.strerror}") from error
    except UnicodeDecodeError as error:
        raise SmscanError(f"{path}: labels are not UTF-8") from error
    return list(_rows(path, raw_lines))


def _rows(path: Path, raw_lines: list[str]) -> Iterator[LabelledText]:
    for number, raw in enumerate(raw_lines, start=1):
        if not raw.strip():
            continue
        where = f"{path}:{number}"
        try:
            row = json.loads(raw)
        except json.JSONDecodeError as error:
            raise SmscanError(f"{where}: not valid JSON ({error.msg})") from error
        if not isinstance(row, dict):
            raise SmscanError(f"{where}: expected a JSON object")
        check_finite(row, source=where)
        yield _row(path, where, row, group=_group(row, number))


def _group(row: dict[str, Any], number: int) -> str:
    if "group" in row:
        return str(row["group"])
    if "path" in row:
        parts = [part for part in str(row["path"]).split("/") if part not in ("", ".")]
        return parts[0] if parts else str(row["path"])
    if "id" in row:
        return str(row["id"])
    return f"line {number}"


def _row(path: Path, where: str, row: dict[str, Any], *, group: str) -> LabelledText:
    if "code" in row or "poisoned_lines" in row or "lines" in row:
        text = row.get("code", row.get("text"))
        lines = row.get("poisoned_lines", row.get("lines", []))
        if not isinstance(text, str) or not _is_int_list(lines):
            raise SmscanError(f"{where}: a dead-code row needs 'code' (text) and 'poisoned_lines' (list of line numbers)")
        count = text.count("\n") + (0 if text.endswith("\n") else 1)
        if any(not 1 <= line <= count for line in lines):
            raise SmscanError(f"{where}: a poisoned line lies outside the {count} lines of the code")
        name = str(row.get("id", row.get("path", where)))
        return LabelledText(
            name=name, text=text, lines=tuple(sorted(set(lines))), group=group, shape="lines",
        )
    if "spans" not in row or ("text" not in row and "path" not in row):
        raise SmscanError(f"{where}: expected 'spans' with 'text' or 'path' (credentials) or 'code' with 'poisoned_lines' (dead code)")
    if "text" in row:
        text, name = row["text"], str(row.get("path", row.get("id", where)))
        if not isinstance(text, str):
            raise SmscanError(f"{where}: 'text' must be a string")
    else:
        name = str(row["path"])
        text = _read_text(path, where, name)
    spans = tuple(_span(where, s, len(text)) for s in row["spans"])
    categories = tuple(str(s.get("category", "")) for s in row["spans"])
    negatives = tuple(
        (*_span(where, s, len(text)), str(s.get("category", ""))) for s in row.get("negatives", [])
    )
    return LabelledText(
        name=name, text=text, spans=spans, categories=categories, negatives=negatives, group=group
    )


def _read_text(path: Path, where: str, name: str) -> str:
    for folder in (path.parent / "corpus", path.parent):
        candidate = folder / name
        if candidate.is_file():
            try:
                return candidate.read_bytes().decode("utf-8")
            except UnicodeDecodeError as error:
                raise SmscanError(f"{where}: {candidate} is not UTF-8") from error
    raise SmscanError(f"{where}: {name} not found next to the labels or in their corpus/ folder")


def _span(where: str, span: Any, length: int) -> tuple[int, int]:
    if not isinstance(span, dict) or not isinstance(span.get("start"), int) or not isinstance(span.get("end"), int):
        raise SmscanError(f"{where}: each span needs integer 'start' and 'end'")
    start, end = span["start"], span["end"]
    if not 0 <= start <= end <= length:
        raise SmscanError(f"{where}: span [{start}, {end}) lies outside the text ({length} characters)")
    return start, end


def _is_int_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
