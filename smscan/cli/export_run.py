"""Running an export on its engine with progress: a bar on a terminal, plain lines elsewhere, and a
hint to --resume when Ctrl-C leaves a resumable output."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from smscan.cli.services import Services


@dataclass(frozen=True)
class ExportRun:
    """One export's input, plan and outputs, as both engines take them."""

    source: Any
    plan: Any
    output: Path
    rejects: Path
    resume: bool
    options: dict[str, Any]


def run_export_with_progress(run: ExportRun, scorer: Any, description: dict[str, Any], fingerprint: str, cluster: Any, services: Services) -> Any:
    """Run the export on the chosen engine with a progress bar on a terminal."""
    import time

    err = services.err_console()
    total = run.source.size()
    from smscan.model.passes import listening

    log = _ExportLog(total)  # outside a terminal: a plain line every few seconds
    with _resume_hint(run.output), _progress(err) as progress, listening(log.forward_pass):
        task = progress.add_task("exporting", total=total, records=0, rate="", tokens="")

        def on_group(group: Any, stats: Any) -> None:
            elapsed = max(time.perf_counter() - stats.started, 1e-9)
            progress.update(
                task, completed=stats.position if total else None, records=stats.records,
                rate=f"{stats.run_records / elapsed:.1f} rec/s", tokens=f"{stats.tokens / elapsed:.0f} tok/s",
            )
            log.group(stats)

        common: dict[str, Any] = {
            "output": run.output, "rejects": run.rejects, "resume": run.resume, "options": run.options, "on_group": on_group,
        }
        if cluster is not None:
            from smscan.exports.ray_engine import run_ray_export

            return run_ray_export(run.source, scorer, run.plan, fingerprint=fingerprint, cluster=cluster, **common)
        from smscan.exports.job import run_export

        return run_export(run.source, scorer, run.plan, model=description, **common)


class _ExportLog:
    """Plain progress lines outside a terminal, advanced per forward pass (a folder export is one
    group, so per group alone would be silent until the end)."""

    def __init__(self, total: int | None) -> None:
        import sys

        from smscan.reports.progress import PlainLines

        self.lines = PlainLines(sys.stderr) if not sys.stderr.isatty() else None
        self.total, self.position, self.records, self.tokens = total, 0, 0, 0

    def forward_pass(self, notice: Any) -> None:
        self.tokens += notice.tokens
        self._tick()

    def group(self, stats: Any) -> None:
        self.position, self.records = stats.position, stats.records
        self._tick()

    def _tick(self) -> None:
        if self.lines is not None:
            self.lines.maybe(self._line)

    def _line(self, seconds: float) -> str:
        share = f" {100 * self.position // self.total}% of the input," if self.total else ""
        return f"exporting{share} {self.records} records written, {self.tokens / max(seconds, 1e-9):,.0f} tokens/s"


@contextmanager
def _resume_hint(output: Path) -> Iterator[None]:
    """Ctrl-C says how to continue when the interrupted export kept what --resume needs."""
    from smscan.cli.interrupt import Interrupted

    try:
        yield
    except (KeyboardInterrupt, Interrupted):
        from smscan.exports.writer import has_resume_state

        if has_resume_state(output):
            raise Interrupted(
                f"the finished part of {output} is kept: run the same command with --resume to continue"
            ) from None
        raise


def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[records]} records"),
        TextColumn("{task.fields[rate]}"),
        TextColumn("{task.fields[tokens]}"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )
