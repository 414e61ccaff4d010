"""What every scanning command shares: load the model, run the pipeline with progress, report."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, cast

from rich.console import Console

from smscan.baseline import Baseline, load_baseline
from smscan.config import Settings
from smscan.decisions import Suppressed, decide
from smscan.errors import SmscanError
from smscan.records import Document, ScanResult, Skip
from smscan.rules import ScanRules, scan_rules, unscored_rules
from smscan.scanner import scan_and_decide

if TYPE_CHECKING:
    from smscan.model.scorer import TransformersScorer



class ReportFormat(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"


def run_scan(
    items: Sequence[Document | Skip],
    settings: Settings,
    *,
    report_format: ReportFormat,
    output: Path | None,
    quiet: bool,
    no_redact: bool,
    environ: Mapping[str, str] = os.environ,
    baseline: Path | None = None,
    after_scan: Callable[[ScanResult], None] | None = None,
    root: Path | None = None,
    thresholds: Path | None = None,
) -> int:
    """Scan ``items`` with the configured model and rule, write the report, return the exit code.

    After the scan, ``after_scan`` (if given) may annotate the result; then the library decides
    what is reported (``smscan.decisions``: kinds, allow comments, the credential/dead-code
    overlap, ``baseline``) and the report says how many were suppressed (and which baseline
    entries are stale).
    """
    accepted = None if baseline is None else (str(baseline), load_baseline(baseline))
    result, rule, model, suppressed = collect(
        items, settings, root=root, thresholds=thresholds, environ=environ, baseline=accepted, annotate=after_scan
    )
    _write_report(
        result, settings, rule, model, suppressed,
        report_format=report_format, output=output, quiet=quiet, no_redact=no_redact, environ=environ,
    )
    return 1 if result.findings else 0


def suppress_findings(
    result: ScanResult,
    items: Sequence[Document | Skip],
    settings: Settings,
    *,
    baseline: tuple[str, Baseline] | None,
) -> Suppressed:
    """Keep the findings a scan reports (``smscan.decisions.decide``): kinds, allow comments,
    the credential/dead-code overlap, the baseline."""
    return decide(result, items, kinds=settings.kinds, baseline=baseline)


def collect(
    items: Sequence[Document | Skip],
    settings: Settings,
    *,
    root: Path | None = None,
    thresholds: Path | None = None,
    environ: Mapping[str, str] = os.environ,
    baseline: tuple[str, Baseline] | None = None,
    annotate: Callable[[ScanResult], None] | None = None,
) -> tuple[ScanResult, ScanRules, dict[str, object], Suppressed]:
    """Build the scorer (only when there is something to score), scan and decide what is
    reported (``smscan.scanner.scan_and_decide``): result, rules, model, what was suppressed.

    The score cache (``score_cache``, on by default; ``SMSCAN_SCORE_CACHE=DIR`` moves it) reuses
    the scores of texts scored before, and the model loads only for texts it lacks.
    """
    from smscan.model.chain import build_scorer

    err_console = Console(stderr=True)
    scorer: TransformersScorer | None = None
    if any(isinstance(item, Document) for item in items):
        with err_console.status("loading the reference model", spinner="dots"):
            # The default model is fetched and converted on first use (once; then cached).
            scorer = cast("TransformersScorer", build_scorer(settings, environ=environ))
    if scorer is not None:
        rule = scan_rules(settings, root=root or Path.cwd(), fingerprint=scorer.fingerprint, thresholds=thresholds)
    else:
        rule = unscored_rules(settings)  # nothing to score: no thresholds file is read
    from smscan.model.passes import listening
    from smscan.reports.progress import ScanProgress

    documents = [item for item in items if isinstance(item, Document)]
    with ScanProgress(sys.stderr, documents=documents) as progress, listening(progress.forward_pass):
        result, suppressed = scan_and_decide(
            items, scorer, rule, kinds=settings.kinds, baseline=baseline,
            on_item=progress.item_done, on_batch=progress.batch, annotate=annotate,
        )
    model: dict[str, object] = scorer.describe() if scorer is not None else {"name": settings.model}
    _warn_if_cache_off(err_console, scorer)
    return result, rule, model, suppressed


def _warn_if_cache_off(console: Console, scorer: object) -> None:
    # A cache that could not be used does not fail the scan; say so once, since the next scan
    # will be as slow as this one.
    from smscan.cache import CachedScorer

    reason = scorer.cache.disabled if isinstance(scorer, CachedScorer) else None
    if reason:
        console.print(f"score cache off for this run: {reason} (score_cache = false or --no-cache silences this)", markup=False)


def _write_report(
    result: ScanResult,
    settings: Settings,
    rule: ScanRules,
    model: dict[str, object],
    suppressed: Suppressed,
    *,
    report_format: ReportFormat,
    output: Path | None,
    quiet: bool,
    no_redact: bool,
    environ: Mapping[str, str],
) -> None:
    if report_format is not ReportFormat.text:
        text = _machine_report(
            result, settings, rule, model, suppressed, report_format=report_format, no_redact=no_redact
        )
        if output is None:
            sys.stdout.write(text)
        else:
            write_atomically(output, text)
        return
    from smscan.reports.terminal import render_terminal

    if output is None:
        console = Console(highlight=False, _environ=environ)
        # Terminal output is shared too (CI logs, pasted output): redact unless it is a person's
        # own terminal outside CI, or the user asked for values.
        redact_values = not no_redact and (not console.is_terminal or bool(environ.get("CI")))
        render_terminal(console, result, redact_values=redact_values, quiet=quiet)
        _print_suppressed(console, suppressed, quiet=quiet)
        return
    with tempfile.SpooledTemporaryFile(mode="w+", encoding="utf-8") as buffer:
        console = Console(file=buffer, no_color=True, width=120, highlight=False)
        render_terminal(console, result, redact_values=not no_redact, quiet=quiet)
        _print_suppressed(console, suppressed, quiet=quiet)
        buffer.seek(0)
        write_atomically(output, buffer.read())


def _machine_report(
    result: ScanResult,
    settings: Settings,
    rule: ScanRules,
    model: dict[str, object],
    suppressed: Suppressed,
    *,
    report_format: ReportFormat,
    no_redact: bool,
) -> str:
    if report_format is ReportFormat.sarif:
        from smscan.reports.sarif import render_sarif

        return render_sarif(
            result, model=model, rule=rule.as_dict(), config_source=settings.source,
            values=result.values, no_redact=no_redact, suppressed=suppressed.as_dict(),
        )
    from smscan.reports.json import render_json

    return render_json(
        result, model=model, rule=rule.as_dict(), config_source=settings.source,
        values=result.values, no_redact=no_redact, suppressed=suppressed.as_dict(),
    )


def _print_suppressed(console: Console, suppressed: Suppressed, *, quiet: bool) -> None:
    if suppressed.inline:
        console.print(f"suppressed by allow comments: {suppressed.inline}", markup=False)
    if suppressed.baseline_file is None:
        return
    console.print(
        f"accepted by the baseline {suppressed.baseline_file}: {suppressed.accepted}", markup=False
    )
    if suppressed.stale:
        console.print(
            f"baseline entries that no longer match (remove them with `smscan baseline`): "
            f"{len(suppressed.stale)}"
        )
        if not quiet:
            for entry in suppressed.stale:
                console.print(f"  {entry.path}  {entry.kind}  {entry.hash[:12]}", markup=False)


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename: never a partial file."""
    from smscan.atomic import write_text_atomically

    try:
        write_text_atomically(path, text)
    except OSError as error:
        raise SmscanError(f"{path}: cannot write the report: {error.strerror}") from error
