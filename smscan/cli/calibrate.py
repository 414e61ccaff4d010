"""`smscan calibrate`: choose a kind's threshold on labelled data and save it."""

from __future__ import annotations

import datetime as dt
import hashlib
import shlex
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from smscan.cli.calibrate_options import (
    CriterionOptions,
    DataOptions,
    KindArgument,
    MeasureOptions,
    SurpriseRuleOptions,
)
from smscan.cli.groups import command
from smscan.cli.options import ModelOptions
from smscan.cli.services import Services, current_services


@command
def calibrate_command(
    kind: KindArgument,
    output: Annotated[Path, typer.Option("--output", "-o", metavar="FILE", help="Thresholds file to add this kind's entry to.")],
    *,
    data: DataOptions,
    criterion: CriterionOptions,
    rule: SurpriseRuleOptions,
    model: ModelOptions,
    measure: MeasureOptions,
) -> int:
    """Choose the threshold of one finding kind on labelled data (or on --synthetic data built
    from your own files) and add it to a thresholds file; the validation metrics and the model
    fingerprint are saved with it. --kind surprise chooses the raw masking threshold of
    `smscan export` with the whole masking procedure (windows, consensus, propagation) in the loop."""
    from smscan.calibration.thresholds import write_entry
    from smscan.errors import SmscanError

    services = current_services()
    chosen = _criterion(criterion)
    settings = command_settings(measure.config, model, services)
    surprise_rule = _surprise_rule(kind, rule, settings)
    if rule.masking not in ("values", "paper"):
        raise SmscanError(f"--masking must be values or paper, got {rule.masking!r}")
    if surprise_rule is not None and measure.plot is not None:
        raise SmscanError("--plot draws a detector's scores; it does not combine with --kind surprise")
    if criterion.folds < 2 and not (surprise_rule is not None and criterion.folds == 0):
        raise SmscanError(f"--folds must be at least 2{' (or 0: no estimate)' if surprise_rule is not None else ''}, got {criterion.folds}")
    documents, labels_name, labels_digest = _documents(kind, data)
    scorer = load_cached_scorer(settings, score_cache=measure.score_cache, services=services)
    entry, scores = _calibrate(kind, documents, scorer, surprise_rule, chosen, criterion.folds, rule.masking)
    provenance = _provenance(scorer, settings, entry, labels_name, labels_digest) | {
        "command": _command_line(kind, data, chosen, output, model.model, surprise_rule)
        + (" --masking paper" if surprise_rule is not None and rule.masking == "paper" else ""),
    }
    if entry["validation"][entry["unit"]]["tp"] == 0:
        raise SmscanError(f"{labels_name}: the chosen threshold finds no target; not saving it")
    if surprise_rule is not None:  # the file's entry for the other --masking stays, nested
        from smscan.calibration.maskings import with_other_masking

        provenance = with_other_masking(output, provenance)
    write_entry(output, kind, provenance)
    if measure.plot is not None:
        from smscan.calibration.plots import plot_kind

        plot_kind(measure.plot, kind, documents, scores, threshold=entry["threshold"], rule=entry["rule"],
                  operating_point=entry["criterion"], title=f"{kind} on {labels_name} ({scorer.fingerprint})")
    _print_summary(services.console(), kind, output, provenance)
    return 0


def _calibrate(
    kind: str, documents: list[Any], scorer: Any, surprise_rule: Any, criterion: str, folds: int, masking: str = "paper"
) -> tuple[dict[str, Any], list[Any]]:
    """Score what the kind scores and choose its threshold: the entry and the scores."""
    if surprise_rule is not None:
        from smscan.exports.operating_points import calibrate_surprise
        from smscan.exports.value_points import calibrate_values

        scores = score_with_progress(scorer, [d.text for d in documents])
        calibrate = calibrate_values if masking == "values" else calibrate_surprise
        return calibrate(documents, scores, rule=surprise_rule, criterion=criterion, folds=folds), scores
    from smscan.calibration.calibrate import calibrate_kind

    scores = score_planned_with_progress(scorer, kind, documents)
    return calibrate_kind(kind, documents, scores, criterion=criterion, folds=folds), scores


def _provenance(scorer: Any, settings: Any, entry: dict[str, Any], labels_name: str, labels_digest: str) -> dict[str, Any]:
    from smscan import __version__

    description = scorer.describe()
    return {
        "fingerprint": scorer.fingerprint,
        "model": description.get("name", settings.model),
        "scoring": description.get("settings", ""),
        **entry,
        "labels": labels_name,
        "labels_sha256": labels_digest,
        "date": dt.date.today().isoformat(),
        "smscan_version": __version__,
    }


def _command_line(
    kind: str, data: DataOptions, criterion: str, output: Path, model: str | None, surprise_rule: Any = None
) -> str:
    """The command that reproduces this calibration, as saved in the thresholds file."""
    words = ["smscan", "calibrate", "--kind", kind]
    if data.labels is not None:
        words += ["--labels", str(data.labels)]
    else:
        words += ["--synthetic", str(data.synthetic), "--seed", str(data.seed)]
    if criterion == "best-f1":
        words.append("--best-f1")
    else:
        name, value = criterion.split(":")
        words += ["--target-recall" if name == "recall" else "--max-fpr", value]
    if surprise_rule is not None:
        words += ["--window", str(surprise_rule.window), "--consensus", str(surprise_rule.consensus)]
        words.append("--propagate" if surprise_rule.propagate else "--no-propagate")
    if model:
        words += ["--model", model]
    words += ["-o", str(output)]
    return " ".join(shlex.quote(word) for word in words)


def _criterion(options: CriterionOptions) -> str:
    from smscan.calibration.calibrate import parse_criterion
    from smscan.errors import SmscanError

    chosen = [c for c in (
        "best-f1" if options.best_f1 else None,
        f"recall:{options.target_recall}" if options.target_recall is not None else None,
        f"fpr:{options.max_fpr}" if options.max_fpr is not None else None,
        options.operating_point,
    ) if c is not None]
    if len(chosen) > 1:
        raise SmscanError("give at most one of --best-f1, --target-recall, --max-fpr, --operating-point")
    return parse_criterion(chosen[0] if chosen else "best-f1")


def _surprise_rule(kind: str, options: SurpriseRuleOptions, settings: Any) -> Any:
    """The raw masking rule to calibrate (--kind surprise), or None for a detector kind.

    Each value is the flag's, else the config's (``window``, ``consensus``, ``propagate``), else
    the default: the rule a scan or an export of the same repository masks with.
    """
    from smscan.errors import SmscanError
    from smscan.exports.rule import MaskRule

    window, consensus, propagate = options.window, options.consensus, options.propagate

    if kind != "surprise":
        check_detector_kind(kind)
        given = [name for name, value in (("--window", window), ("--consensus", consensus), ("--propagate", propagate)) if value is not None]
        if given:
            raise SmscanError(f"{', '.join(given)}: rule options of --kind surprise; --kind {kind} uses its detector's rule")
        return None
    try:
        return MaskRule(
            window=settings.window if window is None else window,
            consensus=settings.consensus if consensus is None else consensus,
            propagate=settings.propagate if propagate is None else propagate,
        )
    except ValueError as error:
        raise SmscanError(f"--kind surprise: {error}") from error


def _documents(kind: str, data: DataOptions) -> tuple[list[Any], str, str]:
    from smscan.calibration.labels import read_labels
    from smscan.errors import SmscanError

    labels, synthetic, seed = data.labels, data.synthetic, data.seed

    if (labels is None) == (synthetic is None):
        raise SmscanError("give exactly one of --labels FILE and --synthetic PATH")
    if synthetic is not None:
        from smscan.calibration.synthetic import synthetic_documents

        # Raw masking targets private values: plant credentials for it.
        documents = synthetic_documents("dead-code" if kind == "dead-code" else "credential", synthetic, seed=seed)
        return documents, f"synthetic:{synthetic} seed {seed}", ""
    assert labels is not None
    documents = read_labels(labels)
    wanted = "lines" if kind == "dead-code" else "spans"
    if not documents:
        raise SmscanError(f"{labels}: no labelled rows")
    if any(document.shape != wanted for document in documents):
        if kind == "surprise":
            raise SmscanError(f"{labels}: --kind surprise needs span rows (text or path, spans); dead-code line labels are calibrated with --kind dead-code")
        raise SmscanError(f"{labels}: --kind {kind} needs {'dead-code rows (code, poisoned_lines)' if wanted == 'lines' else 'credential rows (text or path, spans)'}")
    digest = hashlib.sha256(labels.read_bytes()).hexdigest()
    return documents, labels.as_posix(), digest


def check_detector_kind(kind: str) -> None:
    """Refuse a kind that has no detector (``surprise`` is calibrated, not evaluated, here)."""
    from smscan.detectors import DETECTORS
    from smscan.errors import SmscanError

    if kind not in DETECTORS:
        raise SmscanError(f"--kind must be one of {', '.join(DETECTORS)}, got {kind!r}")


def load_cached_scorer(settings: Any, *, score_cache: Path | None, services: Services) -> Any:
    """The configured reference model (model, device, dtype, threads, as a scan would load it)
    behind the score cache: calibration and evaluation never rescore a text."""
    from smscan.cache import CachedScorer, ScoreCache, default_cache_dir

    with services.err_console().status("loading the reference model", spinner="dots"):
        # The model itself: the cache in front of it is this command's (--score-cache).
        scorer = services.scorer(replace(settings, score_cache=False))
    return CachedScorer(scorer, ScoreCache(score_cache or default_cache_dir()))


def command_settings(config: Path | None, model: ModelOptions, services: Services) -> Any:
    """Settings of calibrate and eval: the config found from the working directory, then flags
    (model, device, dtype and threads as a scan would load them)."""
    from smscan.cli.scanning import command_settings as settings_at

    return settings_at(Path.cwd(), config, model.overrides(), services)


def score_with_progress(scorer: Any, texts: list[str]) -> list[Any]:
    """Score texts through the cache, with a progress bar on a terminal."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from smscan.calibration.calibrate import score_documents

    console = Console(stderr=True)
    with Progress(
        TextColumn("scoring"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=console, transient=True, disable=not console.is_terminal,
    ) as progress:
        task = progress.add_task("scoring", total=len(texts))
        return score_documents(scorer, texts, on_progress=lambda done, _: progress.update(task, completed=done))


def score_planned_with_progress(scorer: Any, kind: str, documents: Sequence[Any], rule: dict[str, Any] | None = None) -> list[Any]:
    """Score what a scan of ``kind`` scores (its detector's plan), so thresholds are chosen and
    judged on the scores a scan reads; the plan ignores the labelled texts' names."""
    from smscan.detectors import make_detector
    from smscan.plan import assemble_scores, plan_pieces
    from smscan.records import Document

    detector = make_detector(kind, rule)
    plans = [plan_pieces(Document(d.name, d.text), [detector], by_path=False) for d in documents]
    flat = score_with_progress(scorer, [piece.text for pieces in plans for piece in pieces])
    return assemble_scores(plans, flat)


def _print_summary(console: Console, kind: str, output: Path, entry: dict[str, Any]) -> None:
    if kind == "surprise":
        _print_surprise_summary(console, output, entry)
        return
    unit = entry["unit"]
    validation = entry["validation"][unit]
    cv = entry["cross_validation"]
    console.print(f"{kind}: threshold {entry['threshold']:.4f} nats ({entry['criterion']}) saved to {output}")
    console.print(
        f"  validation ({unit}s, {entry['examples']} examples): TPR {validation['tpr']:.3f}  "
        f"FPR {validation['fpr']:.5f}  precision {validation['precision']:.3f}  F1 {validation['f1']:.3f}  "
        f"AUROC {validation['auroc']}"
    )
    console.print(
        f"  {cv['folds']}-fold cross-validated: TPR {cv['tpr']:.3f}  FPR {cv['fpr']:.5f}  "
        f"precision {cv['precision']:.3f}  F1 {cv['f1']:.3f}"
    )
    points = ", ".join(f"{name} {point['threshold']:.3f}" for name, point in entry["operating_points"].items())
    console.print(f"  operating points: {points}")


def _print_surprise_summary(console: Console, output: Path, entry: dict[str, Any]) -> None:
    rule = entry["rule"]
    validation = entry["validation"]["token"]
    margin = f", values whole at randomness {rule['value_threshold']}" if rule.get("masking") == "values" else ", paper rule"
    console.print(
        f"surprise: threshold {entry['threshold']:.4f} nats ({entry['criterion']}; window {rule['window']}, "
        f"consensus {rule['consensus']}, propagation {'on' if rule['propagate'] else 'off'}{margin}) saved to {output}"
    )
    console.print(
        f"  validation (reference tokens, {entry['examples']} examples): target coverage "
        f"{validation['tpr']:.3f}  collateral rate {validation['fpr']:.5f}  F1 {validation['f1']:.3f}"
    )
    cv = entry.get("cross_validation")
    if cv:
        console.print(
            f"  {cv['folds']}-fold cross-validated: target coverage {cv['tpr']:.3f}  "
            f"collateral rate {cv['fpr']:.5f}  F1 {cv['f1']:.3f}"
        )
        if "spread" in cv:
            spread = cv["spread"]
            console.print(
                f"  spread over folds: coverage {spread['tpr_mean']:.3f} ± {spread['tpr_std']:.3f} (min {spread['tpr_min']:.3f})  "
                f"collateral {spread['fpr_mean']:.4f} ± {spread['fpr_std']:.4f} (max {spread['fpr_max']:.4f})"
            )
    if entry.get("landing", {}).get("margin"):
        console.print(f"  landing: value threshold lowered by {entry['landing']['margin']:.3f}, the worst fold's overshoot")
    if entry.get("curve"):
        curve = "  ".join(f"{p['value_threshold']:.2f}:{p['tpr']:.3f}/{p['fpr']:.4f}" for p in entry["curve"])
        console.print(f"  validation curve (value threshold:coverage/collateral): {curve}")
    points = ", ".join(
        f"{name} {point.get('value_threshold', point['threshold']):.3f} ({point['tpr']:.3f}/{point['fpr']:.4f})"
        for name, point in entry["operating_points"].items()
    )
    console.print(f"  operating points (threshold, coverage/collateral): {points}")
