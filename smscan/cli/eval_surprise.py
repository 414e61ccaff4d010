"""`smscan eval --kind surprise`: raw masking measured in reference tokens under its window
selection (global or local), with the rule every command resolves (``smscan.rules.resolve``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from smscan.cli.calibrate_options import MeasureOptions, SelectionOptions
from smscan.cli.options import ModelOptions
from smscan.cli.services import Services

if TYPE_CHECKING:
    from smscan.cli.calibrate_options import PointOptions


def evaluate_surprise_command(
    labels: Path, documents: list[Any], point: PointOptions, selection: SelectionOptions, model: ModelOptions,
    measure: MeasureOptions, services: Services,
) -> dict[str, Any]:
    """Raw masking under the rule every command resolves (``smscan.rules.resolve.resolve_rules``)."""
    import dataclasses

    from smscan.cli.measurement import load_cached_scorer, score_with_progress, working_root
    from smscan.cli.scanning import check_inputs
    from smscan.cli.scanning import command_settings as settings_at
    from smscan.errors import SmscanError
    from smscan.calibration.surprise_eval import evaluate_surprise
    from smscan.kinds import SURPRISE
    from smscan.rules.flags import RuleFlags
    from smscan.rules.resolve import resolve_rules

    if any(document.shape != "spans" for document in documents):
        raise SmscanError(f"{labels}: --kind surprise needs span rows (text or path, spans)")
    if measure.plot is not None:
        raise SmscanError("--plot draws a detector's scores; it does not combine with --kind surprise")
    root = working_root()
    settings = settings_at(root, measure.config, model.overrides() | selection.overrides(), services)
    check_inputs(settings, root, thresholds=point.thresholds, baseline=None)  # before the model loads
    scorer = load_cached_scorer(settings, score_cache=measure.score_cache, services=services)
    flags = RuleFlags(thresholds=point.thresholds, operating_point=point.operating_point, threshold=point.threshold)
    rules = resolve_rules(dataclasses.replace(settings, kinds=(SURPRISE,)), flags, root=root, fingerprint=scorer.fingerprint, purpose="eval")
    assert rules.surprise is not None  # asked for above
    scores = score_with_progress(scorer, [d.text for d in documents])
    result = evaluate_surprise(documents, scores, rule=rules.surprise, value_threshold=rules.value_threshold)
    source = rules.surprise_source + (f" ({point.operating_point})" if point.operating_point else "")
    return {"labels": labels.as_posix(), "thresholds": source, "fingerprint": scorer.fingerprint, **result}


def print_surprise(console: Console, result: dict[str, Any]) -> None:
    rule = result["rule"]
    cutoff = (
        f"threshold {result['threshold']:.4f} nats" if result["ranking"] == "global"
        else f"rank_max {result['threshold']:.4f} among {rule['neighbours']} neighbours each side"
    )
    console.print(
        f"surprise on {result['labels']} ({result['examples']} examples), {result['ranking']} window selection at "
        f"{cutoff} from {result['thresholds']}; window {rule['window']}, consensus {rule['consensus']}, "
        f"propagation {'on' if rule['propagate'] else 'off'}"
        + (f", values whole at randomness {rule['value_threshold']}" if rule.get("masking") == "values" else "")
    )
    table = Table("unit", "coverage (TPR)", "collateral (FPR)", "precision", "F1", "AUROC", "TP", "FP", "FN")
    m = result["token"]
    table.add_row(
        "token", f"{m['tpr']:.4f}", f"{m['fpr']:.6f}", f"{m['precision']:.4f}", f"{m['f1']:.4f}",
        "-" if m["auroc"] is None else f"{m['auroc']:.4f}", str(m["tp"]), str(m["fp"]), str(m["fn"]),
    )
    console.print(table)
    by = ", ".join(f"{name} {'-' if value is None else f'{value:.4f}'}" for name, value in result["auroc_by_ranking"].items())
    console.print(f"AUROC by window selection (same tokens): {by}")
