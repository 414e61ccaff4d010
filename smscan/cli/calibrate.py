"""`smscan calibrate`: choose a kind's threshold on labelled data and save it."""

from __future__ import annotations

import datetime as dt
import hashlib
import shlex
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console

from smscan.cli.options import (
    ConfigOption, DeviceOption, DtypeOption, InstructionsOption, ModelOption, ScoringRuleOption, parse_instructions,
)

KindArgument = Annotated[str, typer.Option("--kind", help="credential, dead-code, or surprise (raw masking for export).")]
# The rule options of --kind surprise (the detectors' rules come from their defaults).
WindowOption = Annotated[Optional[int], typer.Option("--window", help="surprise: window length in reference tokens \\[default: 4].")]
ConsensusOption = Annotated[Optional[int], typer.Option("--consensus", help="surprise: selected windows a token needs to be masked (k) \\[default: 1].")]
PropagateOption = Annotated[
    Optional[bool],
    typer.Option("--propagate/--no-propagate", help="surprise: duplicate propagation within a group, in the loop \\[default: on]."),
]
LabelsOption = Annotated[
    Optional[Path],
    typer.Option("--labels", help="Labelled JSONL: credential spans or dead-code lines (docs/thresholds-format.md)."),
]
ScoreCacheOption = Annotated[
    Optional[Path],
    typer.Option("--score-cache", help="Folder of cached token scores (default: ~/.cache/smscan/scores)."),
]


def calibrate_command(
    kind: KindArgument,
    output: Annotated[Path, typer.Option("--output", "-o", help="Thresholds file to add this kind's entry to.")],
    labels: LabelsOption = None,
    synthetic: Annotated[
        Optional[Path],
        typer.Option("--synthetic", help="Build labelled data from the files under PATH, planting synthetic credentials or dead lines in memory."),
    ] = None,
    best_f1: Annotated[bool, typer.Option("--best-f1", help="The threshold of best validation F1 (the default).")] = False,
    target_recall: Annotated[Optional[float], typer.Option("--target-recall", help="The highest threshold reaching this validation recall.")] = None,
    max_fpr: Annotated[Optional[float], typer.Option("--max-fpr", help="The lowest threshold keeping the validation false-positive rate at or below this.")] = None,
    operating_point: Annotated[Optional[str], typer.Option("--operating-point", help="SM50, SM70, SM90 or SM95: recall 0.5 ... 0.95.")] = None,
    folds: Annotated[int, typer.Option("--folds", help="Folds of the cross-validated estimate (surprise: 0 for none).")] = 5,
    seed: Annotated[int, typer.Option("--seed", help="Seed of --synthetic data.")] = 0,
    model: ModelOption = None,
    device: DeviceOption = None,
    dtype: DtypeOption = None,
    config: ConfigOption = None,
    score_cache: ScoreCacheOption = None,
    plot: Annotated[Optional[Path], typer.Option("--plot", help="Draw the ROC curve and score distributions with the chosen operating point to this image (needs the 'plot' extra).")] = None,
    window: WindowOption = None,
    consensus: ConsensusOption = None,
    propagate: PropagateOption = None,
    scoring_rule: ScoringRuleOption = None,
    instructions: InstructionsOption = None,
) -> int:
    """Choose the threshold of one finding kind on labelled data (or on --synthetic data built
    from your own files) and add it to a thresholds file; the validation metrics and the model
    fingerprint are saved with it. --kind surprise chooses the raw masking threshold of
    `smscan export` with the whole masking procedure (windows, consensus, propagation) in the loop."""
    from smscan import __version__
    from smscan.calibration.thresholds import write_entry
    from smscan.errors import SmscanError

    criterion = _criterion(best_f1, target_recall, max_fpr, operating_point)
    surprise_rule = _surprise_rule(kind, window, consensus, propagate)
    if surprise_rule is not None and plot is not None:
        raise SmscanError("--plot draws a detector's scores; it does not combine with --kind surprise")
    if folds < 2 and not (surprise_rule is not None and folds == 0):
        raise SmscanError(f"--folds must be at least 2{' (or 0: no estimate)' if surprise_rule is not None else ''}, got {folds}")
    documents, labels_name, labels_digest = _documents(kind, labels, synthetic, seed)
    settings = command_settings(config, model=model, device=device, dtype=dtype, scoring_rule=scoring_rule,
                                instructions=parse_instructions(instructions))
    scorer = load_cached_scorer(settings, score_cache=score_cache)
    if surprise_rule is not None:
        scores = score_with_progress(scorer, [d.text for d in documents])
    else:
        scores = score_planned_with_progress(scorer, kind, documents)
    if surprise_rule is not None:
        from smscan.exports.operating_points import calibrate_surprise

        entry = calibrate_surprise(documents, scores, rule=surprise_rule, criterion=criterion, folds=folds)
    else:
        from smscan.calibration.calibrate import calibrate_kind

        entry = calibrate_kind(kind, documents, scores, criterion=criterion, folds=folds)
    description = scorer.describe()
    provenance: dict[str, Any] = {
        "fingerprint": scorer.fingerprint,
        "model": description.get("name", settings.model),
        "scoring": description.get("settings", ""),
        **entry,
        "labels": labels_name,
        "labels_sha256": labels_digest,
        "date": dt.date.today().isoformat(),
        "smscan_version": __version__,
        "command": _command_line(kind, labels, synthetic, seed, criterion, output, model, surprise_rule),
    }
    if entry["validation"][entry["unit"]]["tp"] == 0:
        raise SmscanError(f"{labels_name}: the chosen threshold finds no target; not saving it")
    write_entry(output, kind, provenance)
    if plot is not None:
        from smscan.calibration.plots import plot_kind

        plot_kind(plot, kind, documents, scores, threshold=entry["threshold"], rule=entry["rule"],
                  operating_point=entry["criterion"], title=f"{kind} on {labels_name} ({scorer.fingerprint})")
    _print_summary(Console(), kind, output, provenance)
    return 0


def _command_line(
    kind: str, labels: Path | None, synthetic: Path | None, seed: int, criterion: str, output: Path,
    model: str | None, surprise_rule: Any = None,
) -> str:
    """The command that reproduces this calibration, as saved in the thresholds file."""
    words = ["smscan", "calibrate", "--kind", kind]
    words += ["--labels", str(labels)] if labels is not None else ["--synthetic", str(synthetic), "--seed", str(seed)]
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


def _criterion(best_f1: bool, recall: float | None, fpr: float | None, point: str | None) -> str:
    from smscan.calibration.calibrate import parse_criterion
    from smscan.errors import SmscanError

    chosen = [c for c in (
        "best-f1" if best_f1 else None,
        f"recall:{recall}" if recall is not None else None,
        f"fpr:{fpr}" if fpr is not None else None,
        point,
    ) if c is not None]
    if len(chosen) > 1:
        raise SmscanError("give at most one of --best-f1, --target-recall, --max-fpr, --operating-point")
    return parse_criterion(chosen[0] if chosen else "best-f1")


def _surprise_rule(kind: str, window: int | None, consensus: int | None, propagate: bool | None) -> Any:
    """The raw masking rule to calibrate (--kind surprise), or None for a detector kind."""
    from smscan.errors import SmscanError
    from smscan.exports.rule import MaskRule

    if kind != "surprise":
        check_detector_kind(kind)
        given = [name for name, value in (("--window", window), ("--consensus", consensus), ("--propagate", propagate)) if value is not None]
        if given:
            raise SmscanError(f"{', '.join(given)}: rule options of --kind surprise; --kind {kind} uses its detector's rule")
        return None
    try:
        return MaskRule(
            window=4 if window is None else window,
            consensus=1 if consensus is None else consensus,
            propagate=True if propagate is None else propagate,
        )
    except ValueError as error:
        raise SmscanError(f"--kind surprise: {error}") from error


def _documents(kind: str, labels: Path | None, synthetic: Path | None, seed: int) -> tuple[list[Any], str, str]:
    from smscan.calibration.labels import read_labels
    from smscan.errors import SmscanError

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


def load_cached_scorer(settings: Any, *, score_cache: Path | None) -> Any:
    """The configured reference model (model, device, dtype, threads, as a scan would load it)
    behind the score cache: calibration and evaluation never rescore a text."""
    from smscan.cache import CachedScorer, ScoreCache, default_cache_dir
    from smscan.model.chain import build_scorer

    with Console(stderr=True).status("loading the reference model", spinner="dots"):
        # The model itself: the cache in front of it is this command's (--score-cache).
        scorer = build_scorer(replace(settings, score_cache=False))
    return CachedScorer(scorer, ScoreCache(score_cache or default_cache_dir()))


def command_settings(
    config: Path | None, *, model: str | None, device: str | None, dtype: str | None,
    scoring_rule: str | None = None, instructions: tuple[str, ...] | None = None,
) -> Any:
    """Settings of calibrate and eval: the config found from the working directory, then flags."""
    from smscan.config import load_settings

    return load_settings(Path.cwd(), explicit=config, overrides={
        "model": model, "device": device, "dtype": dtype, "scoring_rule": scoring_rule, "instructions": instructions,
    })


def score_with_progress(scorer: Any, texts: list[str]) -> list[Any]:
    """Score texts through the cache, with a progress bar on a terminal."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

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
    console.print(
        f"surprise: threshold {entry['threshold']:.4f} nats ({entry['criterion']}; window {rule['window']}, "
        f"consensus {rule['consensus']}, propagation {'on' if rule['propagate'] else 'off'}) saved to {output}"
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
    points = ", ".join(
        f"{name} {point['threshold']:.3f} ({point['tpr']:.3f}/{point['fpr']:.4f})"
        for name, point in entry["operating_points"].items()
    )
    console.print(f"  operating points (threshold, coverage/collateral): {points}")
