"""What every scanning command shares: settings from the flags, the inputs checked before the
model loads, the scan with progress, and the report in the chosen format."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typing import TYPE_CHECKING

from rich.console import Console

from smscan.cli.options import FLAGS, ReportOptions
from smscan.cli.services import Services
from smscan.config.settings import Settings, load_settings
from smscan.errors import SmscanError, ThresholdsError
from smscan.records import Document, ScanResult, Skip, Suppressed
from smscan.reports.formats import Report, report_format

if TYPE_CHECKING:  # the library is imported when a command runs, not for --help or --version
    from smscan.decide.baseline import Baseline
    from smscan.rules.resolve import Rules

__all__ = ["ScanJob", "check_inputs", "collect", "command_settings", "run_scan"]


def command_settings(
    root: Path, config: Path | None, overrides: Mapping[str, Any], services: Services
) -> Settings:
    """Settings for a command at ``root``: flags over the config file over the environment.

    A bad value is named by its source: the flag, the config file and key, or the variable.
    """
    return load_settings(root, explicit=config, overrides=overrides, environ=services.environ, origins=FLAGS)


@dataclass(frozen=True)
class CheckedInputs:
    """The thresholds flag and the baseline, read before the model loads."""

    thresholds: Path | None = None
    baseline: tuple[str, Baseline] | None = None


def check_inputs(
    settings: Settings, root: Path, *, thresholds: Path | None, baseline: Path | None, baseline_origin: str = "--baseline"
) -> CheckedInputs:
    """Read every thresholds file and the baseline now, so a bad one fails in a second, not
    after the model loaded; errors name the flag or the config key that named the file."""
    from smscan.decide.baseline import load_baseline
    from smscan.rules.thresholds_file import threshold_files

    for origin, flag, configured in (
        ("--thresholds", thresholds, ""),
        (f"{settings.source} key 'thresholds'", None, settings.thresholds),
    ):
        if flag is None and not configured:
            continue
        try:
            threshold_files(root, flag=flag, configured=configured)
        except ThresholdsError as error:
            raise ThresholdsError(f"{origin}: {error}") from error
    threshold_files(root)  # the repository's own file
    if baseline is None:
        return CheckedInputs(thresholds)
    try:
        return CheckedInputs(thresholds, (str(baseline), load_baseline(baseline)))
    except SmscanError as error:
        raise SmscanError(f"{baseline_origin}: {error}") from error


@dataclass(frozen=True)
class ScanJob:
    """What one scanning command scans, with what settings, and from which root."""

    items: Sequence[Document | Skip]
    settings: Settings
    root: Path
    inputs: CheckedInputs = CheckedInputs()
    annotate: Callable[[ScanResult], None] | None = None
    """Called with the scan before the decisions (``diff --each-commit`` names commits)."""


def run_scan(job: ScanJob, options: ReportOptions, services: Services) -> int:
    """Scan, decide what is reported, write the report; 1 when anything is reported, else 0."""
    result, rules, model, suppressed = collect(job, services)
    write_report(
        Report(result, model, rules.as_dict(), job.settings.source, suppressed, quiet=options.quiet, verbose=options.verbose),
        options, services,
    )
    return 1 if result.findings else 0


def collect(job: ScanJob, services: Services) -> tuple[ScanResult, Rules, dict[str, object], Suppressed]:
    """Build the scorer (only when there is something to score), scan and decide what is
    reported (``smscan.decide.scanner.scan_and_decide``): result, rules, model, what was suppressed.

    The score cache (``score_cache``, on by default; ``SMSCAN_SCORE_CACHE=DIR`` moves it) reuses
    the scores of texts scored before, and the model loads only for texts it lacks.
    """
    from smscan.decide.scanner import scan_and_decide
    from smscan.rules.flags import RuleFlags
    from smscan.rules.resolve import resolve_rules, unscored_rules

    err_console = services.err_console()
    settings, scorer = job.settings, None
    if any(isinstance(item, Document) for item in job.items):
        with err_console.status("loading the reference model", spinner="dots"):
            # The default model is fetched and converted on first use (once; then cached).
            scorer = services.scorer(settings)
        rules = resolve_rules(settings, RuleFlags(thresholds=job.inputs.thresholds), root=job.root, fingerprint=scorer.fingerprint)
    else:
        rules = unscored_rules(settings)  # nothing to score: no thresholds file is read
    from smscan.model.passes import listening
    from smscan.reports.progress import ScanProgress

    documents = [item for item in job.items if isinstance(item, Document)]
    with ScanProgress(services.stderr or sys.stderr, documents=documents) as progress, listening(progress.forward_pass):
        result, suppressed = scan_and_decide(
            job.items, scorer, rules, kinds=settings.kinds, baseline=job.inputs.baseline,
            on_item=progress.item_done, on_batch=progress.batch, annotate=job.annotate,
        )
    model: dict[str, object] = scorer.describe() if scorer is not None else {"name": settings.model}
    _warn_if_cache_off(err_console, scorer)
    return result, rules, model, suppressed


def _warn_if_cache_off(console: Console, scorer: object) -> None:
    # A cache that could not be used does not fail the scan; say so once, since the next scan
    # will be as slow as this one.
    from smscan.scoring.cached_scorer import CachedScorer

    reason = scorer.cache.disabled if isinstance(scorer, CachedScorer) else None
    if reason:
        console.print(f"score cache off for this run: {reason} (score_cache = false or --no-cache silences this)", markup=False)


def write_report(report: Report, options: ReportOptions, services: Services) -> None:
    """Write ``report`` in the chosen format to stdout or, atomically, to ``--output``.

    Values are shown in full only with ``--no-redact``, or in a text report on a person's own
    terminal outside CI: terminal output is shared too (CI logs, pasted output).
    """
    chosen = report_format(options.report_format)
    if options.output is not None:
        buffer = io.StringIO()
        console = Console(file=buffer, no_color=True, width=120, highlight=False)
        chosen.write(_with_values(report, options.no_redact), console)
        write_atomically(options.output, buffer.getvalue())
        return
    console = services.console()
    on_own_terminal = not chosen.machine and console.is_terminal and not services.is_ci()
    chosen.write(_with_values(report, options.no_redact or on_own_terminal), console)
    if chosen.machine:
        (services.stdout or sys.stdout).flush()


def _with_values(report: Report, show: bool) -> Report:
    from dataclasses import replace

    return replace(report, show_values=show)


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename: never a partial file."""
    from smscan.fileio.atomic import write_text_atomically

    try:
        write_text_atomically(path, text)
    except OSError as error:
        raise SmscanError(f"{path}: cannot write the report: {error.strerror}") from error
