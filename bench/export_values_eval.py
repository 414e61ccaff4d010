#!/usr/bin/env python3
"""Masked exports on planted private values: plain SM at its operating point vs the new default.

    python -m bench.export_values_eval --data /tmp/h-export/values --measure dev [--recall 0.95]

Both rules are calibrated on ``DIR/dev.jsonl`` (``bench/export_values_gen.py``) at the same
validation recall, with the whole rule in the loop, then exported through the export's own
chain (``export_groups``, records grouped by repository) on the ``--measure`` split:

``paper``    raw Surprise Masking, threshold from ``calibrate_surprise`` (``--masking paper``)
``values``   the new default: value-aware masking, value and code thresholds from
             ``calibrate_values``, plus credential findings at the packaged threshold

Reported, in characters: TPR (private-value characters masked), collateral (other
non-whitespace characters masked), and over planted occurrences: those left partly unmasked and
those less than half masked; and the credential detector's findings (what a scan reports, at
the packaged threshold) left partly masked by the default export. Measure ``heldout`` once, at
the end; tune on ``dev`` only.
The reference model is the configured default behind the score cache, so a rerun rescores nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common.sections import DOCUMENT, write_section

SECTION = "Value-aware masked exports on planted private values (bench.export_values_eval)"


def char_metrics(rows: list[Any], spans: list[list[tuple[int, int]]]) -> dict[str, Any]:
    """TPR and collateral in characters, and occurrences left partly or mostly unmasked."""
    private = private_masked = other = other_masked = 0
    partly = under_half = occurrences = 0
    for row, masked in zip(rows, spans):
        text = row.text
        is_masked = np.zeros(len(text), dtype=bool)
        for start, end in masked:
            is_masked[start:end] = True
        is_private = np.zeros(len(text), dtype=bool)
        for start, end in row.spans:
            is_private[start:end] = True
            share = is_masked[start:end].mean()
            occurrences += 1
            partly += int(share < 1.0)
            under_half += int(share < 0.5)
        counted = np.array([not c.isspace() for c in text], dtype=bool)
        private += int(is_private.sum())
        private_masked += int((is_private & is_masked).sum())
        other += int((~is_private & counted).sum())
        other_masked += int((~is_private & counted & is_masked).sum())
    return {
        "tpr": round(private_masked / max(private, 1), 4),
        "collateral": round(other_masked / max(other, 1), 4),
        "occurrences": occurrences,
        "partly_unmasked": partly,
        "under_half_masked": under_half,
    }


def partly_masked(found: list[list[tuple[int, int]]], masked: list[list[tuple[int, int]]]) -> dict[str, int]:
    """Spans of ``found`` (per row) and those not wholly inside the union of ``masked``."""
    total = partly = 0
    for spans, cover in zip(found, masked):
        for start, end in spans:
            total += 1
            inside = sum(max(0, min(end, b) - max(start, a)) for a, b in cover)
            partly += int(inside < end - start)
    return {"credential_findings": total, "credentials_partly_masked": partly}


def export_spans(rows: list[Any], scorer: Any, plan: Any) -> list[list[tuple[int, int]]]:
    """Masked spans of each row through the export's chain, grouped by repository."""
    from smscan.exports.masked import export_groups
    from smscan.records import DatasetRecord

    records = [
        DatasetRecord(i, {"text": r.text, "path": r.name}, "text", (r.text,), (), (True,), r.group)
        for i, r in enumerate(rows)
    ]
    out: list[list[tuple[int, int]]] = []
    for group in export_groups(records, scorer, plan, model={"fingerprint": scorer.fingerprint}):
        out.extend([(a, b) for a, b, *_ in r["smscan"]["masked_spans"]] for r in group.records)
    return out


def markdown(report: dict[str, Any]) -> str:
    """The two rules side by side: thresholds, masked private characters, collateral, misses."""
    lines = [f"Split `{report['measured']}`, {report['rows']} rows, both rules calibrated on dev at {report['criterion']}.",
             "", "| rule | threshold | TPR (chars) | collateral | occurrences partly unmasked | under half masked |",
             "|---|---|---|---|---|---|"]
    for name in ("paper", "values"):
        r = report[name]
        lines.append(f"| {name} | {r['threshold']:.3f} | {r['tpr']:.4f} | {r['collateral']:.4f} | "
                     f"{r['partly_unmasked']} | {r['under_half_masked']} |")
    values = report["values"]
    lines += ["", f"Credential findings left partly masked by `values`: {values['credentials_partly_masked']} of "
              f"{values['credential_findings']}."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--measure", choices=("dev", "heldout"), default="dev")
    parser.add_argument("--recall", type=float, default=0.95)
    parser.add_argument("--folds", type=int, default=4)
    parser.add_argument("--write", type=Path, nargs="?", const=DOCUMENT, metavar="FILE",
                        help=f"also write the table as the section \"## {SECTION}\" of FILE (default docs/BENCHMARKS.md)")
    args = parser.parse_args(argv)

    from smscan.scoring.cache import ScoreCache, default_cache_dir
    from smscan.scoring.cached_scorer import CachedScorer
    from smscan.sources.labels import read_labels
    from smscan.config.settings import load_settings
    from smscan.exports.plan import ExportPlan
    from smscan.calibration.operating_points import calibrate_surprise
    from smscan.calibration.value_points import calibrate_values
    from smscan.engine.masking import MaskRule
    from smscan.scoring.chain import build_scorer
    from smscan.rules.resolve import resolve_detections

    settings = load_settings(Path.cwd(), explicit=None, overrides={})
    scorer = CachedScorer(build_scorer(replace(settings, score_cache=False)), ScoreCache(default_cache_dir()))
    dev = read_labels(args.data / "dev.jsonl")
    measured = dev if args.measure == "dev" else read_labels(args.data / "heldout.jsonl")
    started = time.perf_counter()
    dev_scores = scorer.score_texts([d.text for d in dev])
    scorer.score_texts([d.text for d in measured])
    scoring_s = time.perf_counter() - started

    criterion = f"recall:{args.recall}"
    base = MaskRule(window=4)
    paper_entry = calibrate_surprise(dev, dev_scores, rule=base, criterion=criterion, folds=0)
    values_entry = calibrate_values(dev, dev_scores, rule=base, criterion=criterion, folds=args.folds)
    credential = resolve_detections(settings, ("credential",), root=Path.cwd(), fingerprint=scorer.fingerprint)

    paper_plan = ExportPlan(replace(base, threshold=paper_entry["threshold"]))
    values_plan = ExportPlan(
        replace(base, threshold=values_entry["threshold"]), credential,
        value_threshold=values_entry["rule"]["value_threshold"],
    )
    findings = export_spans(measured, scorer, ExportPlan(None, credential))
    values_spans = export_spans(measured, scorer, values_plan)
    report = {
        "measured": args.measure,
        "rows": len(measured),
        "criterion": criterion,
        "scoring_s": round(scoring_s, 1),
        "paper": {"threshold": paper_entry["threshold"], "validation": paper_entry["validation"]["token"],
                  **char_metrics(measured, export_spans(measured, scorer, paper_plan))},
        "values": {"threshold": values_entry["threshold"], "value_threshold": values_entry["rule"]["value_threshold"],
                   "validation": values_entry["validation"]["token"], "code_thresholds": values_entry["code_thresholds"],
                   "cross_validation": values_entry.get("cross_validation"),
                   "landing": values_entry.get("landing"),
                   **char_metrics(measured, values_spans), **partly_masked(findings, values_spans)},
    }
    print(json.dumps(report, indent=1))
    if args.write:
        write_section(SECTION, markdown(report), module="bench.export_values_eval", argv=argv, document=args.write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
