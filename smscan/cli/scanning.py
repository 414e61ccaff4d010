"""What every scanning command shares: load the model, run the pipeline with progress, report."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, cast

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from smscan.baseline import Baseline, BaselineEntry, load_baseline, match_findings
from smscan.config import Settings
from smscan.detectors import SURPRISE
from smscan.detectors.suppress import drop_allowed
from smscan.errors import SmscanError
from smscan.judgements import JudgementMemo
from smscan.pipeline import ScanResult, SurpriseRule, scan, without_dead_code_on_credential_lines
from smscan.records import Document, Skip
from smscan.rules import Detection

if TYPE_CHECKING:
    from smscan.model.scorer import TransformersScorer



class ReportFormat(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"


def rule_from(settings: Settings, *, root: Path | None = None, fingerprint: str = "") -> SurpriseRule:
    """The scan's raw Surprise Masking rule: flags and config over a thresholds file's entry."""
    from smscan.rules import resolve_surprise

    resolved = resolve_surprise(settings, root=root or Path.cwd(), fingerprint=fingerprint)
    return SurpriseRule(
        window=resolved.window,
        threshold=resolved.threshold,
        consensus=resolved.consensus,
        propagate=resolved.propagate,
    )


@dataclass(frozen=True, slots=True)
class ScanRules:
    """What a scan reports: raw ``surprise`` spans (when asked for) and each detector's findings."""

    surprise: SurpriseRule | None
    detections: tuple[Detection, ...]

    def as_dict(self) -> dict[str, object]:
        """The report's ``rule`` object: the kinds, then one rule per kind with its threshold."""
        kinds = ([SURPRISE] if self.surprise is not None else []) + [d.detector.kind for d in self.detections]
        out: dict[str, object] = {"kinds": kinds}
        if self.surprise is not None:
            out[SURPRISE] = self.surprise.as_dict()
        for detection in self.detections:
            out[detection.detector.kind] = detection.as_dict()
        return out


def scan_rules(
    settings: Settings,
    *,
    root: Path | None,
    fingerprint: str,
    thresholds: Path | None = None,
) -> ScanRules:
    """The kinds to report (``settings.kinds``, else credential and dead-code) and their rules.

    Rules and thresholds come from ``smscan.rules`` (flag > config > thresholds file > packaged
    default); an entry made for another model fingerprint is refused (ThresholdsError names both
    and the calibrate command).
    """
    from smscan.detectors import DEFAULT_KINDS
    from smscan.rules import resolve_detections

    kinds = settings.kinds or DEFAULT_KINDS
    root = root or Path.cwd()
    detections = resolve_detections(settings, kinds, root=root, fingerprint=fingerprint, thresholds=thresholds)
    surprise = rule_from(settings, root=root, fingerprint=fingerprint) if SURPRISE in kinds else None
    return ScanRules(surprise, detections)


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

    After the scan, ``after_scan`` (if given) may annotate the result; then findings of kinds not
    in ``settings.kinds``, those an inline allow comment suppresses, and those ``baseline``
    accepts are dropped, and the report says how many (and which baseline entries are stale); last,
    a dead-code finding on a line that still has a credential finding is dropped (reported once).
    """
    accepted = None if baseline is None else (str(baseline), load_baseline(baseline))
    result, rule, model = collect(items, settings, root=root, thresholds=thresholds, environ=environ)
    if after_scan is not None:
        after_scan(result)
    suppressed = suppress_findings(result, items, settings, baseline=accepted)
    result.findings = without_dead_code_on_credential_lines(result.findings)
    _write_report(
        result, settings, rule, model, suppressed,
        report_format=report_format, output=output, quiet=quiet, no_redact=no_redact, environ=environ,
    )
    return 1 if result.findings else 0


@dataclass(frozen=True, slots=True)
class Suppressed:
    """What was taken out of a scan's findings after scoring, for the report."""

    inline: int = 0
    baseline_file: str | None = None
    accepted: int = 0
    stale: tuple[BaselineEntry, ...] = ()

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"inline": self.inline}
        if self.baseline_file is not None:
            out["baseline"] = {
                "file": self.baseline_file,
                "accepted": self.accepted,
                "stale": [{"kind": e.kind, "path": e.path, "hash": e.hash} for e in self.stale],
            }
        return out


def suppress_findings(
    result: ScanResult,
    items: Sequence[Document | Skip],
    settings: Settings,
    *,
    baseline: tuple[str, Baseline] | None,
) -> Suppressed:
    """Drop findings of unwanted kinds, with an allow comment, or accepted by the baseline."""
    if settings.kinds:
        result.findings = [f for f in result.findings if f.kind in settings.kinds]
    result.findings, inline = drop_allowed(result.findings, result.lines)
    if baseline is None:
        return Suppressed(inline=inline)
    whole = [i.path for i in items if isinstance(i, Document) and i.changed_lines is None]
    name, accepted = baseline
    match = match_findings(accepted, result.findings, result.values, wholly_scanned=whole)
    result.findings = match.new
    return Suppressed(inline, name, match.accepted, tuple(match.stale))


def collect(
    items: Sequence[Document | Skip],
    settings: Settings,
    *,
    root: Path | None = None,
    thresholds: Path | None = None,
    environ: Mapping[str, str] = os.environ,
) -> tuple[ScanResult, ScanRules, dict[str, object]]:
    """Build the scorer (only when there is something to score) and scan: result, rules, model.

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
        rule = scan_rules(settings, root=root, fingerprint=scorer.fingerprint, thresholds=thresholds)
    else:
        # Nothing to score: the report states the configured rule, no thresholds file is read.
        plain = SurpriseRule(settings.window, settings.threshold, settings.consensus, settings.propagate)
        rule = ScanRules(plain if SURPRISE in (settings.kinds or ()) else None, ())
    with _progress(err_console) as progress:
        task = progress.add_task("scanning", total=len(items))
        result = (
            scan(
                items, scorer, rule.surprise, detections=rule.detections, on_item=lambda _: progress.advance(task),
                judgements=_judgement_memo(scorer, rule),
            )
            if scorer is not None
            else _skips_only(items)
        )
    model: dict[str, object] = scorer.describe() if scorer is not None else {"name": settings.model}
    _warn_if_cache_off(err_console, scorer)
    return result, rule, model


def _warn_if_cache_off(console: Console, scorer: object) -> None:
    # A cache that could not be used does not fail the scan; say so once, since the next scan
    # will be as slow as this one.
    from smscan.cache import CachedScorer

    reason = scorer.cache.disabled if isinstance(scorer, CachedScorer) else None
    if reason:
        console.print(f"score cache off for this run: {reason} (score_cache = false or --no-cache silences this)", markup=False)


def _judgement_memo(scorer: object, rule: ScanRules) -> JudgementMemo | None:
    """Remembered candidates of unchanged documents, kept in the score cache when it is on."""
    from smscan.cache import CachedScorer, settings_key

    if not isinstance(scorer, CachedScorer) or rule.surprise is not None or not rule.detections:
        return None
    return JudgementMemo(
        scorer.cache, fingerprint=scorer.fingerprint, settings_key=settings_key(scorer.settings),
        detectors=[detection.detector for detection in rule.detections],
    )


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
