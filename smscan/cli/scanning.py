"""What every scanning command shares: load the model, run the pipeline with progress, report."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from enum import Enum
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from smscan.config import Settings
from smscan.errors import SmscanError
from smscan.pipeline import ScanResult, SurpriseRule, scan
from smscan.records import Document, Skip


class ReportFormat(str, Enum):
    text = "text"
    json = "json"


def rule_from(settings: Settings) -> SurpriseRule:
    return SurpriseRule(
        window=settings.window,
        threshold=settings.threshold,
        consensus=settings.consensus,
        propagate=settings.propagate,
    )


def run_scan(
    items: Sequence[Document | Skip],
    settings: Settings,
    *,
    report_format: ReportFormat,
    output: Path | None,
    quiet: bool,
    no_redact: bool,
    environ: Mapping[str, str] = os.environ,
) -> int:
    """Scan ``items`` with the configured model and rule, write the report, return the exit code."""
    from smscan.model.load import load_scorer

    err_console = Console(stderr=True)
    scorer = None
    if any(isinstance(item, Document) for item in items):
        with err_console.status("loading the reference model", spinner="dots"):
            scorer = load_scorer(settings.model, device=settings.device, dtype=settings.dtype)
    rule = rule_from(settings)
    with _progress(err_console) as progress:
        task = progress.add_task("scanning", total=len(items))
        result = (
            scan(items, scorer, rule, on_item=lambda _: progress.advance(task))
            if scorer is not None
            else _skips_only(items)
        )
    model = scorer.describe() if scorer is not None else {"name": settings.model}
    _write_report(
        result, settings, rule, model,
        report_format=report_format, output=output, quiet=quiet, no_redact=no_redact, environ=environ,
    )
    return 1 if result.findings else 0


def _skips_only(items: Sequence[Document | Skip]) -> ScanResult:
    # Nothing to score: no need to load (or download) a model to say so.
    result = ScanResult()
    for item in items:
        if isinstance(item, Skip):
            result.skips.append(item)
            result.stats.skipped[item.reason] += 1
    return result


def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )


def _write_report(
    result: ScanResult,
    settings: Settings,
    rule: SurpriseRule,
    model: dict[str, object],
    *,
    report_format: ReportFormat,
    output: Path | None,
    quiet: bool,
    no_redact: bool,
    environ: Mapping[str, str],
) -> None:
    if report_format is ReportFormat.json:
        from smscan.reports.json import render_json

        text = render_json(
            result, model=model, rule=rule.as_dict(), config_source=settings.source,
            values=result.values, no_redact=no_redact,
        )
        if output is None:
            sys.stdout.write(text)
        else:
            write_atomically(output, text)
        return
    from smscan.reports.terminal import render_terminal

    if output is None:
        console = Console(highlight=False)
        # Terminal output is shared too (CI logs, pasted output): redact unless it is a person's
        # own terminal outside CI, or the user asked for values.
        redact_values = not no_redact and (not console.is_terminal or bool(environ.get("CI")))
        render_terminal(console, result, redact_values=redact_values, quiet=quiet)
        return
    with tempfile.SpooledTemporaryFile(mode="w+", encoding="utf-8") as buffer:
        console = Console(file=buffer, no_color=True, width=120, highlight=False)  # type: ignore[arg-type]
        render_terminal(console, result, redact_values=not no_redact, quiet=quiet)
        buffer.seek(0)
        write_atomically(output, buffer.read())


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename: never a partial file."""
    directory = path.parent if str(path.parent) else Path(".")
    try:
        handle, temp_name = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as temp:
            temp.write(text)
        os.replace(temp_name, path)
    except OSError as error:
        raise SmscanError(f"{path}: cannot write the report: {error.strerror}") from error
