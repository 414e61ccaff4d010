#!/usr/bin/env python3
"""Dead-code lines on the MBPP calibration set: line SM alone and with Python ast evidence.

    python bench/deadcode_eval.py --labels DATA/mbpp_calib.jsonl --cache DIR [--json OUT]

From cached scores only (fill the cache with bench/score_cache.py). For each evidence bonus
(0 = plain line SM, the paper's rule), prints in-sample line P/R/F1 at the best-F1 threshold,
line AUROC (ties count one half), and 5-fold cross-validated P/R/F1 (threshold chosen on four
folds, counted on the fifth, counts pooled), repeated over several fold seeds.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from bench.cached import CacheOnlyScorer, default_model_identity
from smscan.calibration.calibrate import choose_threshold, cross_validate, evaluate
from smscan.calibration.labels import read_labels
from smscan.calibration.metrics import sweep
from smscan.calibration.units import score_units
from smscan.detectors import make_detector

# (name, rule): the paper's plain line SM, then the corrections one at a time, then ast evidence.
VARIANTS = [
    ("plain line SM (paper D.5)", {"evidence_bonus": 0.0, "min_context": 1, "shrink": 0.0}),
    ("+ 8 tokens of context", {"evidence_bonus": 0.0, "min_context": 8, "shrink": 0.0}),
    ("+ short lines shrunk (no code evidence)", {"evidence_bonus": 0.0}),
    ("+ ast evidence, bonus 1", {"evidence_bonus": 1.0}),
    ("+ ast evidence, bonus 2 (default)", {"evidence_bonus": 2.0}),
    ("+ ast evidence, bonus 3", {"evidence_bonus": 3.0}),
]
SEEDS = (0, 1, 2, 3, 4)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=Path, required=True)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--model-identity", help="FINGERPRINT,SETTINGS (default: read from the default model)")
    args = parser.parse_args()
    documents = read_labels(args.labels)
    identity = args.model_identity.split(",") if args.model_identity else default_model_identity()
    scorer = CacheOnlyScorer(args.cache, *identity)
    scores = scorer.score_texts([d.text for d in documents])
    rows = []
    print("| rule | threshold | line P | line R | line F1 | line AUROC | CV P | CV R | CV F1 (mean ± sd over 5 seeds) | recall without evidence |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, rule in VARIANTS:
        detector = make_detector("dead-code", rule)
        units = score_units(detector, documents, scores, propagate=False)
        line_scores, line_labels = units.unit("line")
        threshold = choose_threshold(sweep(line_scores, line_labels), "best-f1")
        metrics = evaluate(units, threshold)["line"]
        cv = [cross_validate(units, "line", "best-f1", folds=5, seed=seed) for seed in SEEDS]
        f1s = [c["f1"] for c in cv]
        # The share of poisoned lines the threshold reaches on surprise alone (no ast bonus):
        # what is left for dead code the ast checks cannot see.
        blind = score_units(make_detector("dead-code", {**rule, "evidence_bonus": 0.0}), documents, scores, propagate=False)
        blind_scores, _ = blind.unit("line")
        blind_recall = float((blind_scores[line_labels] >= threshold).mean())
        row = {
            "variant": name, "rule": detector.rule(), "blind_recall": round(blind_recall, 4), "threshold": round(threshold, 4), **{k: metrics[k] for k in ("precision", "tpr", "f1", "auroc")},
            "cv_precision": round(statistics.mean(c["precision"] for c in cv), 4),
            "cv_recall": round(statistics.mean(c["tpr"] for c in cv), 4),
            "cv_f1": round(statistics.mean(f1s), 4), "cv_f1_sd": round(statistics.stdev(f1s), 4),
            "cv_thresholds": [c["thresholds"] for c in cv],
        }
        rows.append(row)
        print(f"| {name} | {threshold:.3f} | {metrics['precision']:.3f} | {metrics['tpr']:.3f} | {metrics['f1']:.3f} | "
              f"{metrics['auroc']:.4f} | {row['cv_precision']:.3f} | {row['cv_recall']:.3f} | {row['cv_f1']:.3f} ± {row['cv_f1_sd']:.3f} | {blind_recall:.3f} |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
