#!/usr/bin/env python3
"""Dead-code lines on the MBPP calibration set: line SM alone and with Python ast evidence.

    python -m bench.deadcode_eval --labels DATA/mbpp_calib.jsonl --cache DIR [--heldout LABELS] [--json OUT]

From cached scores only (fill the cache with bench/score_cache.py). For each variant of the rule
(the paper's plain line SM first), prints in-sample line P/R/F1 at the best-F1 threshold, line
AUROC (ties count one half), 5-fold cross-validated P/R/F1 (threshold chosen on four folds,
counted on the fifth, counts pooled) as mean ± sd over several fold seeds, and recall per attack
of the labels' ``attack`` field. "recall where ast is blind" is the recall, at that threshold, of
the poisoned lines the ast evidence does not mark: what the rule catches by surprise alone.

With ``--heldout``, each variant's calibration threshold is applied unchanged to a second
labelled set (e.g. bench/deadcode_heldout_gen.py: dead lines the ast evidence cannot prove dead).
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.cached import CacheOnlyScorer, default_model_identity
from smscan.calibration.calibrate import choose_threshold, cross_validate, evaluate
from smscan.sources.labels import LabelledText, read_labels
from smscan.calibration.metrics import sweep
from smscan.calibration.units import UnitScores, score_units
from smscan.detectors import make_detector
from smscan.detectors.dead_code import dead_lines

# (name, rule): the paper's plain line SM, then the corrections one at a time, then ast evidence.
VARIANTS = [
    ("plain line SM (paper D.5)", {"evidence_bonus": 0.0, "min_context": 1, "shrink": 0.0}),
    ("+ 8 tokens of context", {"evidence_bonus": 0.0, "min_context": 8, "shrink": 0.0}),
    ("+ short lines shrunk (no code evidence)", {"evidence_bonus": 0.0}),
    ("+ ast evidence, bonus 0.5", {"evidence_bonus": 0.5}),
    ("+ ast evidence, bonus 1", {"evidence_bonus": 1.0}),
    ("+ ast evidence, bonus 1.5", {"evidence_bonus": 1.5}),
    ("+ ast evidence, bonus 2", {"evidence_bonus": 2.0}),
    ("+ ast evidence, bonus 2.5 (default)", {"evidence_bonus": 2.5}),
    ("+ ast evidence, bonus 3", {"evidence_bonus": 3.0}),
    ("+ ast evidence, bonus 4", {"evidence_bonus": 4.0}),
]
# Session 2's sweep: one bonus for every kind of evidence, each line judged alone.
VARIANTS = [(name, {**rule, "strong_bonus": None, "units": "line"}) for name, rule in VARIANTS]
SEEDS = (0, 1, 2, 3, 4)


class LabelledSet:
    """Documents, their cached scores, and per line unit: the attack and whether ast sees it."""

    def __init__(self, path: Path, scorer: CacheOnlyScorer) -> None:
        self.documents = read_labels(path)
        self.scores = scorer.score_texts([d.text for d in self.documents])
        attacks = [json.loads(raw).get("attack", "") for raw in path.read_text().splitlines() if raw.strip()]
        self.attack: list[str] = []
        self.visible: list[bool] = []
        for document, attack in zip(self.documents, attacks):
            proven = dead_lines(document.text) if document.lines else {}
            count = document.text.count("\n") + (0 if document.text.endswith("\n") else 1)
            for line in range(1, count + 1):
                self.attack.append(attack if line in document.lines else "")
                self.visible.append(line in proven)

    def units(self, rule: dict[str, Any]) -> UnitScores:
        units = score_units(make_detector("dead-code", rule), self.documents, self.scores, propagate=False)
        if units.line_scores.shape[0] != len(self.attack):
            raise SystemExit("line count mismatch between the labels and the line units")
        return units


def measure(units: UnitScores, data: LabelledSet, threshold: float) -> dict[str, Any]:
    """Line metrics at a threshold, recall per attack, and recall on lines ast cannot see."""
    metrics = evaluate(units, threshold)["line"]
    scores, labels = units.unit("line")
    reported = scores >= threshold
    attack = np.array(data.attack)
    per_attack = {name: round(float(reported[attack == name].mean()), 4) for name in sorted(set(data.attack) - {""})}
    blind = labels & ~np.array(data.visible)
    return {**{k: metrics[k] for k in ("precision", "tpr", "f1", "auroc", "tp", "fp", "fn")},
            "recall_by_attack": per_attack, "blind_lines": int(blind.sum()),
            "blind_recall": round(float(reported[blind].mean()), 4) if blind.any() else None}


def run(calibration: LabelledSet, heldout: LabelledSet | None, variants: Sequence[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    rows = []
    for name, rule in variants:
        units = calibration.units(rule)
        line_scores, line_labels = units.unit("line")
        threshold = choose_threshold(sweep(line_scores, line_labels), "best-f1")
        cv = [cross_validate(units, "line", "best-f1", folds=5, seed=seed) for seed in SEEDS]
        f1s = [c["f1"] for c in cv]
        row: dict[str, Any] = {
            "variant": name, "rule": make_detector("dead-code", rule).rule(), "threshold": round(threshold, 6),
            "calibration": measure(units, calibration, threshold),
            "cv_precision": round(statistics.mean(c["precision"] for c in cv), 4),
            "cv_recall": round(statistics.mean(c["tpr"] for c in cv), 4),
            "cv_f1": round(statistics.mean(f1s), 4), "cv_f1_sd": round(statistics.stdev(f1s), 4),
            "cv_thresholds": [c["thresholds"] for c in cv],
        }
        if heldout is not None:
            row["heldout"] = measure(heldout.units(rule), heldout, threshold)
        rows.append(row)
    return rows


def print_tables(rows: list[dict[str, Any]]) -> None:
    print("| rule | threshold | line P | line R | line F1 | line AUROC | CV P | CV R | CV F1 (mean ± sd, 5 fold seeds) | recall by attack | recall where ast is blind |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        m = row["calibration"]
        attacks = ", ".join(f"{k} {v:.2f}" for k, v in m["recall_by_attack"].items())
        print(f"| {row['variant']} | {row['threshold']:.3f} | {m['precision']:.3f} | {m['tpr']:.3f} | {m['f1']:.3f} | "
              f"{m['auroc']:.4f} | {row['cv_precision']:.3f} | {row['cv_recall']:.3f} | {row['cv_f1']:.3f} ± {row['cv_f1_sd']:.3f} | "
              f"{attacks} | {_blind(m)} |")
    if "heldout" not in rows[0]:
        return
    print("\nheld-out set, at each variant's calibration threshold:\n")
    print("| rule | threshold | line P | line R | line F1 | line AUROC | TP / FP / FN | recall where ast is blind |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        m = row["heldout"]
        print(f"| {row['variant']} | {row['threshold']:.3f} | {m['precision']:.3f} | {m['tpr']:.3f} | {m['f1']:.3f} | "
              f"{m['auroc']:.4f} | {m['tp']} / {m['fp']} / {m['fn']} | {_blind(m)} |")


def _blind(m: dict[str, Any]) -> str:
    return "-" if m["blind_recall"] is None else f"{m['blind_recall']:.2f} of {m['blind_lines']}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=Path, required=True)
    parser.add_argument("--heldout", type=Path, help="a second labelled set, judged at the calibration thresholds")
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--model-identity", help="FINGERPRINT,SETTINGS (default: read from the default model)")
    args = parser.parse_args()
    identity = args.model_identity.split(",") if args.model_identity else default_model_identity()
    scorer = CacheOnlyScorer(args.cache, *identity)
    calibration = LabelledSet(args.labels, scorer)
    heldout = LabelledSet(args.heldout, scorer) if args.heldout else None
    rows = run(calibration, heldout, VARIANTS)
    print_tables(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
