"""`smscan eval`: measure a kind's findings on labelled data at a saved (or given) threshold."""

from __future__ import annotations

import io
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.table import Table

from smscan.cli.calibrate_options import LabelsOption, MeasureOptions, PointOptions, SelectionOptions
from smscan.cli.groups import command
from smscan.cli.measurement import (
    check_detector_kind,
    command_settings,
    load_cached_scorer,
    score_planned_with_progress,
    working_root,
)
from smscan.cli.scanning import check_inputs
from smscan.cli.options import ModelOptions
from smscan.cli.scanning import write_atomically
from smscan.cli.services import Services, current_services
from smscan.kinds import SURPRISE

# Eval reports metrics, not findings: no SARIF.
EVAL_FORMATS = ("text", "json")


@dataclass(frozen=True)
class EvalOutputOptions:
    """How the metrics are written."""

    report_format: Annotated[str, typer.Option("--format", "-f", metavar="|".join(EVAL_FORMATS), help="Report format.")] = "text"
    output: Annotated[Optional[Path], typer.Option("--output", "-o", metavar="FILE", help="Write the report to this file.")] = None


@command
def eval_command(
    kind: Annotated[str, typer.Option("--kind", metavar="KIND", help="credential, dead-code, or surprise (raw masking under its window selection).")],
    labels: LabelsOption = None,
    *,
    point: PointOptions,
    selection: SelectionOptions,
    out: EvalOutputOptions,
    model: ModelOptions,
    measure: MeasureOptions,
) -> int:
    """TPR, FPR, precision and F1 at character and line level, and AUROC (ties count one half),
    of one finding kind on labelled data, as in the paper's appendix B.4. --kind surprise
    measures raw masking in reference tokens under its window selection (global or local)."""
    from smscan.calibration.calibrate import evaluate_kind
    from smscan.sources.labels import read_labels
    from smscan.errors import SmscanError

    services = current_services()
    if kind != SURPRISE:
        check_detector_kind(kind)
        if selection.given():
            raise SmscanError(f"{', '.join(selection.given())}: window selection options of --kind surprise; --kind {kind} uses its detector's rule")
    if labels is None:
        raise SmscanError("--labels FILE is required")
    if out.report_format not in EVAL_FORMATS:
        raise SmscanError(f"eval reports metrics, not findings: use --format text or --format json (got {out.report_format!r})")
    if point.threshold is not None and point.operating_point is not None:
        raise SmscanError("give --threshold or --operating-point, not both")
    documents = read_labels(labels)
    if kind == SURPRISE:
        from smscan.cli.eval_surprise import evaluate_surprise_command

        _write(evaluate_surprise_command(labels, documents, point, selection, model, measure, services), out, services)
        return 0
    settings = command_settings(measure.config, model, services)
    if point.threshold is None:
        check_inputs(settings, working_root(), thresholds=point.thresholds, baseline=None)  # before the model loads
    scorer = load_cached_scorer(settings, score_cache=measure.score_cache, services=services)
    threshold, rule, source = _threshold(kind, point, settings, scorer.fingerprint)
    scores = score_planned_with_progress(scorer, kind, documents, rule)
    result = evaluate_kind(kind, documents, scores, threshold=threshold, rule=rule)
    if measure.plot is not None:
        from smscan.calibration.plots import plot_kind

        plot_kind(measure.plot, kind, documents, scores, threshold=threshold, rule=rule, operating_point=point.operating_point,
                  title=f"{kind} on {labels.name} ({scorer.fingerprint})")
    result = {"labels": labels.as_posix(), "thresholds": source, "fingerprint": scorer.fingerprint, **result}
    _write(result, out, services)
    return 0


def _threshold(kind: str, point: PointOptions, settings: Any, fingerprint: str) -> tuple[float, dict[str, Any] | None, str]:
    """The threshold, the saved rule (None with --threshold: the detector's default rule) and
    where they came from, resolved as every command resolves them."""
    import dataclasses

    from smscan.rules.flags import RuleFlags
    from smscan.rules.resolve import resolve_rules

    flags = RuleFlags(thresholds=point.thresholds, operating_point=point.operating_point, threshold=point.threshold)
    rules = resolve_rules(dataclasses.replace(settings, kinds=(kind,)), flags, root=working_root(), fingerprint=fingerprint, purpose="eval")
    [detection] = rules.detections
    rule = None if point.threshold is not None else detection.detector.rule()
    return detection.threshold, rule, detection.source


def _write(result: dict[str, Any], out: EvalOutputOptions, services: Services) -> None:
    if out.report_format == "json":
        text = json.dumps(result, indent=2) + "\n"
        if out.output is None:
            (services.stdout or sys.stdout).write(text)
        else:
            write_atomically(out.output, text)
        return
    if out.output is None:
        _print_result(services.console(), result)
        return
    buffer = io.StringIO()
    _print_result(Console(file=buffer, width=100, no_color=True, highlight=False), result)
    write_atomically(out.output, buffer.getvalue())


def _print_result(console: Console, result: dict[str, Any]) -> None:
    if result["kind"] == SURPRISE:
        from smscan.cli.eval_surprise import print_surprise

        print_surprise(console, result)
        return
    console.print(
        f"{result['kind']} on {result['labels']} ({result['examples']} examples) at threshold "
        f"{result['threshold']:.4f} from {result['thresholds']}"
    )
    table = Table("unit", "TPR", "FPR", "precision", "F1", "AUROC", "TP", "FP", "FN")
    for unit in ("char", "line"):
        m = result[unit]
        table.add_row(
            unit, f"{m['tpr']:.4f}", f"{m['fpr']:.6f}", f"{m['precision']:.4f}", f"{m['f1']:.4f}",
            "-" if m["auroc"] is None else f"{m['auroc']:.4f}", str(m["tp"]), str(m["fp"]), str(m["fn"]),
        )
    console.print(table)
    if "hard_negative_fp_rate" in result:
        console.print(f"hard-negative false-positive rate: {result['hard_negative_fp_rate']:.4f} of {result['hard_negatives']}")
    if "per_category_recall" in result:
        console.print("recall per category: " + ", ".join(f"{k} {v:.2f}" for k, v in result["per_category_recall"].items()))
