"""`smscan calibrate`: choose a kind's threshold on labelled data and save it."""

from __future__ import annotations

import datetime as dt
import hashlib
import shlex
from pathlib import Path
from typing import Annotated, Any

import typer

from smscan.cli.calibrate_options import (
    CriterionOptions,
    DataOptions,
    KindArgument,
    MeasureOptions,
    SurpriseRuleOptions,
)
from smscan.cli.calibrate_summary import print_calibration_summary
from smscan.cli.groups import command
from smscan.cli.measurement import (
    check_detector_kind,
    command_settings,
    load_cached_scorer,
    score_planned_with_progress,
    score_with_progress,
)
from smscan.cli.options import ModelOptions
from smscan.cli.services import current_services
from smscan.kinds import CREDENTIAL, SURPRISE


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
    from smscan.rules.thresholds_file import write_entry
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
        from smscan.rules.maskings import with_other_masking

        provenance = with_other_masking(output, provenance)
    write_entry(output, kind, provenance)
    if measure.plot is not None:
        from smscan.calibration.plots import plot_kind

        plot_kind(measure.plot, kind, documents, scores, threshold=entry["threshold"], rule=entry["rule"],
                  operating_point=entry["criterion"], title=f"{kind} on {labels_name} ({scorer.fingerprint})")
    print_calibration_summary(services.console(), kind, output, provenance)
    return 0


def _calibrate(
    kind: str, documents: list[Any], scorer: Any, surprise_rule: Any, criterion: str, folds: int, masking: str = "paper"
) -> tuple[dict[str, Any], list[Any]]:
    """Score what the kind scores and choose its threshold: the entry and the scores."""
    if surprise_rule is not None:
        from smscan.calibration.operating_points import calibrate_surprise
        from smscan.calibration.value_points import calibrate_values

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
        if surprise_rule.ranking == "local":
            words += ["--ranking", "local", "--neighbours", str(surprise_rule.neighbours)]
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
    from smscan.engine.masking import MaskRule

    window, consensus, propagate = options.window, options.consensus, options.propagate
    ranking, neighbours = options.ranking, options.neighbours

    if kind != SURPRISE:
        check_detector_kind(kind)
        flags = (("--window", window), ("--consensus", consensus), ("--propagate", propagate), ("--ranking", ranking), ("--neighbours", neighbours))
        given = [name for name, value in flags if value is not None]
        if given:
            raise SmscanError(f"{', '.join(given)}: rule options of --kind surprise; --kind {kind} uses its detector's rule")
        return None
    try:
        return MaskRule(
            window=settings.window if window is None else window,
            ranking=settings.ranking if ranking is None else ranking,  # type: ignore[arg-type]  # MaskRule checks it
            neighbours=settings.neighbours if neighbours is None else neighbours,
            consensus=settings.consensus if consensus is None else consensus,
            propagate=settings.propagate if propagate is None else propagate,
        )
    except ValueError as error:
        raise SmscanError(f"--kind surprise: {error}") from error


def _documents(kind: str, data: DataOptions) -> tuple[list[Any], str, str]:
    from smscan.calibration.label_groups import label_shape
    from smscan.sources.labels import read_labels
    from smscan.errors import SmscanError

    labels, synthetic, seed = data.labels, data.synthetic, data.seed

    if (labels is None) == (synthetic is None):
        raise SmscanError("give exactly one of --labels FILE and --synthetic PATH")
    if synthetic is not None:
        from smscan.calibration.synthetic import synthetic_documents

        # Raw masking targets private values: plant credentials for it.
        documents = synthetic_documents(CREDENTIAL if kind == SURPRISE else kind, synthetic, seed=seed)
        return documents, f"synthetic:{synthetic} seed {seed}", ""
    assert labels is not None
    documents = read_labels(labels)
    wanted = label_shape(kind)
    if not documents:
        raise SmscanError(f"{labels}: no labelled rows")
    if any(document.shape != wanted for document in documents):
        if kind == SURPRISE:
            raise SmscanError(f"{labels}: --kind surprise needs span rows (text or path, spans); dead-code line labels are calibrated with --kind dead-code")
        raise SmscanError(f"{labels}: --kind {kind} needs {'dead-code rows (code, poisoned_lines)' if wanted == 'lines' else 'credential rows (text or path, spans)'}")
    digest = hashlib.sha256(labels.read_bytes()).hexdigest()
    return documents, labels.as_posix(), digest
