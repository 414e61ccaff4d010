"""`smscan eval`: measure a kind's findings on labelled data at a saved (or given) threshold."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.table import Table

from smscan.cli.calibrate import (
    LabelsOption, ScoreCacheOption, command_settings, load_cached_scorer, score_planned_with_progress,
)
from smscan.cli.options import (
    ConfigOption, DeviceOption, DtypeOption, InstructionsOption, ModelOption, ScoringRuleOption, parse_instructions,
)
from smscan.cli.scanning import ReportFormat, write_atomically


def eval_command(
    kind: Annotated[str, typer.Option("--kind", help="credential or dead-code.")],
    labels: LabelsOption = None,
    thresholds: Annotated[
        Optional[Path],
        typer.Option("--thresholds", help="Thresholds file (default lookup: config, .smscan/thresholds.json, packaged)."),
    ] = None,
    threshold: Annotated[Optional[float], typer.Option("--threshold", help="Evaluate at this threshold instead of a saved one.")] = None,
    operating_point: Annotated[Optional[str], typer.Option("--operating-point", help="A saved operating point (SM50 ... SM95, best-f1) instead of the saved threshold.")] = None,
    report_format: Annotated[ReportFormat, typer.Option("--format", "-f", help="Report format.")] = ReportFormat.text,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the report to this file.")] = None,
    model: ModelOption = None,
    device: DeviceOption = None,
    dtype: DtypeOption = None,
    config: ConfigOption = None,
    score_cache: ScoreCacheOption = None,
    plot: Annotated[Optional[Path], typer.Option("--plot", help="Draw the ROC curve and score distributions to this image (needs the 'plot' extra).")] = None,
    scoring_rule: ScoringRuleOption = None,
    instructions: InstructionsOption = None,
) -> int:
    """TPR, FPR, precision and F1 at character and line level, and AUROC (ties count one half),
    of one finding kind on labelled data, as in the paper's appendix B.4."""
    from smscan.calibration.calibrate import evaluate_kind
    from smscan.calibration.labels import read_labels
    from smscan.calibration.thresholds import find_entry, threshold_files
    from smscan.cli.calibrate import check_detector_kind
    from smscan.errors import SmscanError

    check_detector_kind(kind)
    if labels is None:
        raise SmscanError("--labels FILE is required")
    if report_format is ReportFormat.sarif:
        # SARIF holds findings; eval's result is a table of metrics.
        raise SmscanError("eval reports metrics, not findings: use --format text or --format json")
    documents = read_labels(labels)
    settings = command_settings(config, model=model, device=device, dtype=dtype, scoring_rule=scoring_rule,
                                instructions=parse_instructions(instructions))
    scorer = load_cached_scorer(settings, score_cache=score_cache)
    rule: dict[str, Any] | None = None
    source = "--threshold"
    if threshold is None:
        files = threshold_files(Path.cwd(), flag=thresholds, configured=settings.thresholds)
        entry = find_entry(files, kind, fingerprint=scorer.fingerprint, model=settings.model)
        threshold = entry.operating_point(operating_point) if operating_point else entry.threshold
        rule = dict(entry.rule)
        source = entry.source + (f" ({operating_point})" if operating_point else "")
    elif operating_point is not None:
        raise SmscanError("give --threshold or --operating-point, not both")
    scores = score_planned_with_progress(scorer, kind, documents, rule)
    result = evaluate_kind(kind, documents, scores, threshold=threshold, rule=rule)
    if plot is not None:
        from smscan.calibration.plots import plot_kind

        plot_kind(plot, kind, documents, scores, threshold=threshold, rule=rule, operating_point=operating_point,
                  title=f"{kind} on {labels.name} ({scorer.fingerprint})")
    result = {"labels": labels.as_posix(), "thresholds": source, "fingerprint": scorer.fingerprint, **result}
    if report_format is ReportFormat.json:
        text = json.dumps(result, indent=2) + "\n"
        if output is None:
            sys.stdout.write(text)
        else:
            write_atomically(output, text)
        return 0
    if output is None:
        _print_result(Console(highlight=False), result)
        return 0
    buffer = io.StringIO()
    _print_result(Console(file=buffer, width=100, no_color=True, highlight=False), result)
    write_atomically(output, buffer.getvalue())
    return 0


def _print_result(console: Console, result: dict[str, Any]) -> None:
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
