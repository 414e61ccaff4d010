"""Writing an export: atomic (temporary files renamed at the end) and resumable.

While an export runs, records go to ``.OUT.partial`` and rejects to ``.REJECTS.partial`` beside
their final paths, and after every finished group a state file ``.OUT.state.json`` (replaced
atomically) records how many input records are done and how many bytes of each partial file hold
them. When the export completes, the partial files are renamed to their final names and the state
file is removed, so ``OUT`` is either absent (or the previous complete export) or complete.

``--resume`` after an interruption (kill, crash, Ctrl-C) truncates the partial files to the bytes
the state file vouches for, and the export skips that many input records: nothing is lost and
nothing written twice. The state also records a signature of the input and the options; resuming
with a different input or different options is refused.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from smscan.fileio.atomic import write_text_atomically
from smscan.errors import SmscanError
from smscan.records import Rejected


def _hidden(path: Path, suffix: str) -> Path:
    return path.with_name(f".{path.name}{suffix}")


def has_resume_state(output: Path) -> bool:
    """Whether an interrupted export to ``output`` left what ``--resume`` continues from."""
    return _hidden(output, ".state.json").is_file() and _hidden(output, ".partial").is_file()


class ExportWriter:
    """Writes output records and rejects through partial files; see the module docstring.

    Args:
        output: the final JSONL file.
        rejects: the final reject file (JSONL: ``index``, ``reason``, ``record``); created only
            when a record was rejected.
        signature: what must match for a resume (input, options, model).
        resume: continue from the state file when there is one.

    Raises:
        SmscanError: a resume whose signature differs, or files that cannot be written.
    """

    def __init__(self, output: Path, rejects: Path, *, signature: dict[str, Any], resume: bool) -> None:
        self.output = output
        self.rejects = rejects
        self.partial = _hidden(output, ".partial")
        self.rejects_partial = _hidden(rejects, ".partial")
        self.state_path = _hidden(output, ".state.json")
        self.signature = signature
        self.done = 0
        self.written = 0
        self.rejected = 0
        self.totals: dict[str, Any] = {}  # the summary's totals when the state was written
        out_bytes = reject_bytes = 0
        if resume and self.state_path.is_file():
            state = self._read_state()
            if state.get("signature") != signature:
                raise SmscanError(
                    f"{output}: --resume: the interrupted export used another input or other "
                    "options; run it again with the same ones, or without --resume to start over"
                )
            self.done = int(state["done"])
            self.written = int(state["written"])
            self.rejected = int(state["rejected"])
            totals = state.get("totals")
            self.totals = totals if isinstance(totals, dict) else {}
            out_bytes, reject_bytes = int(state["output_bytes"]), int(state["rejects_bytes"])
        try:
            output.parent.mkdir(parents=True, exist_ok=True)
            rejects.parent.mkdir(parents=True, exist_ok=True)
            self._out = self._open(self.partial, out_bytes)
            self._rej = self._open(self.rejects_partial, reject_bytes)
        except OSError as error:
            raise SmscanError(f"{output}: cannot write the export: {error.strerror}") from error

    @staticmethod
    def _open(path: Path, keep: int) -> IO[bytes]:
        if keep == 0:
            return path.open("wb")
        handle = path.open("r+b")
        handle.truncate(keep)
        handle.seek(keep)
        return handle

    def _read_state(self) -> dict[str, Any]:
        try:
            state: dict[str, Any] = json.loads(self.state_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise SmscanError(f"{self.state_path}: unreadable resume state; run without --resume") from error
        if not self.partial.is_file():
            raise SmscanError(f"{self.partial}: the partial export is missing; run without --resume")
        return state

    def write_group(
        self, records: list[dict[str, Any]], rejected: list[Rejected], *, done: int, totals: dict[str, Any] | None = None
    ) -> None:
        """Append one finished group, then record that ``done`` input records are written and the
        summary's ``totals`` so far (a resumed run's summary counts every record)."""
        try:
            for record in records:
                self._out.write(_line(record))
            for reject in rejected:
                self._rej.write(_line({"index": reject.index, "reason": reject.reason, "record": reject.raw}))
            self._out.flush()
            self._rej.flush()
            os.fsync(self._out.fileno())
            os.fsync(self._rej.fileno())
            self.done = done
            self.written += len(records)
            self.rejected += len(rejected)
            state = {
                "signature": self.signature,
                "done": done,
                "written": self.written,
                "rejected": self.rejected,
                "output_bytes": self._out.tell(),
                "rejects_bytes": self._rej.tell(),
                "totals": totals or {},
            }
            write_text_atomically(self.state_path, json.dumps(state), make_parents=False)
        except OSError as error:
            raise SmscanError(f"{self.output}: cannot write the export: {error.strerror}") from error

    def finish(self) -> None:
        """Close and rename the partial files to their final names; drop the state."""
        self.close()
        try:
            if self.output.name.lower().endswith(".parquet"):
                self._convert_to_parquet()
            else:
                os.replace(self.partial, self.output)
            if self.rejected:
                os.replace(self.rejects_partial, self.rejects)
            else:
                self.rejects_partial.unlink(missing_ok=True)
            self.state_path.unlink(missing_ok=True)
        except OSError as error:
            raise SmscanError(f"{self.output}: cannot finish the export: {error.strerror}") from error

    def _convert_to_parquet(self) -> None:
        # Converted beside the output and renamed over it, the JSONL partial and the state kept
        # until then: an interrupted conversion leaves no output and no stray file, and
        # --resume (with every record done) converts again.
        converted = _hidden(self.output, ".parquet.tmp")
        try:
            jsonl_to_parquet(self.partial, converted)
            os.replace(converted, self.output)
        except BaseException:
            converted.unlink(missing_ok=True)
            raise
        self.partial.unlink()

    def close(self) -> None:
        """Close the partial files, leaving them and the state for a later ``--resume``."""
        self._out.close()
        self._rej.close()


def jsonl_to_parquet(source: Path, target: Path, *, batch_rows: int = 1024) -> None:
    """Convert JSONL records to Parquet in two streamed passes (flat memory).

    The first pass unifies the schemas of all batches (an all-empty ``masked_spans`` batch infers
    ``list<null>``, a later one ``list<list<int64>>``); the second writes every batch in it.

    Raises:
        SmscanError: pyarrow is missing, or the records do not fit one schema.
    """
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as error:
        raise SmscanError(f"{target}: writing Parquet needs pyarrow: pip install 'smscan[parquet]'") from error

    def batches() -> Iterator[Any]:
        rows: list[Any] = []
        with source.open(encoding="utf-8") as handle:
            for line in handle:
                row = json.loads(line)
                rows.append(_utf8_only(row) if "\\ud" in line else row)
                if len(rows) >= batch_rows:
                    yield pa.Table.from_pylist(rows)
                    rows = []
        if rows:
            yield pa.Table.from_pylist(rows)

    try:
        schemas = [table.schema for table in batches()]
        if not schemas:
            pq.write_table(pa.table({}), target)
            return
        schema = pa.unify_schemas(schemas, promote_options="permissive")
        with pq.ParquetWriter(target, schema) as writer:
            for table in batches():
                writer.write_table(_conform(table, schema, pa))
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as error:
        raise SmscanError(f"{target}: the records do not fit one Parquet schema ({error}); write JSONL instead") from error


def _conform(table: Any, schema: Any, pa: Any) -> Any:
    # Add missing columns as nulls and cast to the unified schema, in its column order.
    columns = [
        table.column(name).cast(schema.field(name).type) if name in table.column_names
        else pa.nulls(table.num_rows, schema.field(name).type)
        for name in schema.names
    ]
    return pa.Table.from_arrays(columns, schema=schema)


def _line(record: dict[str, Any]) -> bytes:
    document = json.dumps(record, ensure_ascii=False, allow_nan=False, default=_jsonable)
    # A lone surrogate (a file name that is not UTF-8, a "\udc80" escape in the input) has no
    # UTF-8 form: it stays a JSON escape, the same value to a JSON reader, and the file UTF-8.
    return (_LONE_SURROGATE.sub(_escaped, document) + "\n").encode("utf-8")


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _utf8_only(value: Any) -> Any:
    # Parquet strings are UTF-8: a lone surrogate read back from a JSON escape becomes U+FFFD.
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_utf8_only(item) for item in value]
    if isinstance(value, dict):
        return {_utf8_only(key): _utf8_only(item) for key, item in value.items()}
    return value


def _jsonable(value: Any) -> Any:
    # Parquet rows may hold dates, decimals or bytes; JSON gets their plain string form.
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)
