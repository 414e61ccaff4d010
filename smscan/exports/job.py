"""One export run: source -> records -> masked groups -> writer, with counters for progress.

Sources: a folder or git work tree (one record ``{"path", "text"}`` per file, one group: the
repository; unreadable or binary files are counted as skipped, as in a scan) or a dataset file
(``sources/datasets.py``). A resumed run skips the input records the writer already holds.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smscan.exports.masked import ExportStats, GroupOutput, export_groups
from smscan.exports.plan import ExportPlan
from smscan.exports.writer import ExportWriter
from smscan.model.scorer import Scorer
from smscan.records import DatasetRecord, Document, Rejected, Skip
from smscan.sources.datasets import RecordFormat, iter_dataset


@dataclass(frozen=True, slots=True)
class ExportSource:
    """Where records come from: a dataset file, or a folder's files (``documents``)."""

    path: Path
    fmt: RecordFormat = field(default_factory=RecordFormat)
    documents: Callable[[], Iterator[Document | Skip]] | None = None
    two_pass: bool = False  # regroup scattered groups (exports/two_pass.py); JSONL only

    def size(self) -> int | None:
        """Input bytes (JSONL) or rows (Parquet) for the progress bar; None for folders."""
        if self.documents is not None:
            return None
        if self.path.name.lower().endswith(".parquet"):
            from smscan.sources.datasets import parquet_rows

            return parquet_rows(self.path)
        return self.path.stat().st_size

    def signature(self) -> dict[str, Any]:
        """What identifies the input for a resume."""
        if self.documents is not None:
            return {"folder": str(self.path.resolve())}
        stat = self.path.stat()
        return {"file": str(self.path.resolve()), "bytes": stat.st_size, "mtime_ns": stat.st_mtime_ns}


@dataclass(frozen=True, slots=True)
class ScorerRecipe:
    """How an export builds its scorer: a picklable ``load_scorer`` call, made by each Ray actor
    (the model is loaded there, never shipped from the driver) or by the local engine."""

    model: str | None = None
    device: str = "auto"
    dtype: str = "auto"
    batch_size: int | None = None
    threads: int = 0  # 0: automatic (model/threads.py); Ray sets OMP_NUM_THREADS to the actor's CPUs
    runtime: str = "auto"

    def __call__(self) -> Scorer:
        from smscan.model.load import load_scorer

        return load_scorer(
            self.model, device=self.device, dtype=self.dtype, batch_size=self.batch_size,
            threads=self.threads, runtime=self.runtime, pull_if_missing=True,
        )


def iter_source(source: ExportSource, stats: ExportStats) -> Generator[DatasetRecord | Rejected, None, None]:
    """The records of ``source``; folder Skips are counted in ``stats.skipped``."""
    if source.documents is None and source.two_pass:
        from smscan.exports.two_pass import iter_two_pass

        yield from iter_two_pass(source.path, source.fmt)
        return
    if source.documents is None:
        yield from iter_dataset(source.path, source.fmt)
        return
    index = 0
    for item in source.documents():
        if isinstance(item, Skip):
            stats.skipped[item.reason] = stats.skipped.get(item.reason, 0) + 1
            continue
        yield DatasetRecord(
            index, {"path": item.path, "text": item.text}, "text", (item.text,), (), (True,), item.group, index + 1
        )
        index += 1


def not_done(items: Iterable[DatasetRecord | Rejected], done: int) -> Iterator[DatasetRecord | Rejected]:
    """The items a resumed export still has to handle: those at or after the writer's ``done``.

    Counted in stream order (``sequence``), rejects included, so both engines skip exactly what
    the state file says was written.
    """
    return (item for item in items if item.sequence >= done)


def open_writer(
    source: ExportSource,
    *,
    output: Path,
    rejects: Path,
    resume: bool,
    options: dict[str, Any],
    model: dict[str, Any],
) -> tuple[ExportWriter, ExportStats]:
    """The writer of an export and its counters, resumed when asked (shared by both engines)."""
    stats = ExportStats()
    signature = {"source": source.signature(), "options": options, "model": model.get("fingerprint")}
    digest = hashlib.sha256(repr(sorted(signature.items())).encode()).hexdigest()[:16]
    writer = ExportWriter(output, rejects, signature={**signature, "digest": digest}, resume=resume)
    stats.records, stats.rejected, stats.resumed = writer.written, writer.rejected, writer.done
    stats.restore(writer.totals)
    return writer, stats


def write_finished_group(
    writer: ExportWriter,
    stats: ExportStats,
    group: GroupOutput,
    on_group: Callable[[GroupOutput, ExportStats], None] | None,
) -> None:
    """Count a finished group, write it with the resume point after it, then report progress
    (both engines, so a resumed export skips exactly what either wrote)."""
    stats.add(group)
    writer.write_group(group.records, group.rejected, done=group.consumed, totals=stats.totals())
    if on_group is not None:
        on_group(group, stats)


def run_export(
    source: ExportSource,
    scorer: Scorer,
    plan: ExportPlan,
    *,
    output: Path,
    rejects: Path,
    resume: bool,
    options: dict[str, Any],
    model: dict[str, Any],
    on_group: Callable[[GroupOutput, ExportStats], None] | None = None,
) -> ExportStats:
    """Export ``source`` to ``output`` (see the writer for atomicity and resume).

    Args:
        source: the input.
        scorer: the reference model.
        plan: what to mask and write.
        output: the JSONL file to write.
        rejects: where rejected records go.
        resume: continue an interrupted export of the same input with the same options.
        options: everything that changes the output, for the resume check.
        model: what each record says about the model.
        on_group: called after each group is written (progress).

    Returns:
        The counters of this run (records written and rejected, including resumed ones).

    Raises:
        SmscanError: unreadable input, non-contiguous groups, unwritable output, bad resume.
    """
    writer, stats = open_writer(source, output=output, rejects=rejects, resume=resume, options=options, model=model)
    records = iter_source(source, stats)
    items = not_done(records, writer.done)
    try:
        for group in export_groups(items, scorer, plan, model=model, check_contiguous=source.documents is None):
            write_finished_group(writer, stats, group, on_group)
    except BaseException:
        writer.close()
        raise
    finally:
        records.close()  # closes the input file now, also when the export stops early
    writer.finish()
    return stats
