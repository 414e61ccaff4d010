#!/usr/bin/env python3
"""Credential detector variants on a labelled secrets set, from cached scores only.

    python -m bench.credential_eval --labels DATA/labels.jsonl --cache DIR [--partial] [--json OUT]

For plain Global SM (the paper's CredData rule: 4-token windows, one selected window suffices,
each character scored by its best covering window) and for the credential detector under a few
rule settings, prints: the best-F1 threshold chosen on the whole set, character P/R/F1, line F1,
character AUROC, hard-negative false-positive rate, and the 5-fold cross-validated character F1
with folds by package (a package never on both sides). ``--partial`` uses only the files already
in the cache (while it fills).
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

import numpy as np

from bench.cached import CacheOnlyScorer, default_model_identity
from smscan.scoring.cache_entries import cache_key
from smscan.calibration.calibrate import choose_threshold, cross_validate, evaluate
from smscan.sources.labels import read_labels
from smscan.calibration.metrics import sweep
from smscan.calibration.units import score_units
from smscan.detectors import make_detector
from smscan.detectors.candidate import Candidate
from smscan.engine.windows import fixed_windows
from smscan.records import TokenScores

VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("window statistic, no evidence", {"statistic": "window", "secret_bonus": 0.0, "token_penalty": 0.0}),
    ("window statistic, evidence 2", {"statistic": "window", "secret_bonus": 2.0, "token_penalty": 2.0}),
    ("window statistic (8 tokens), evidence 2", {"statistic": "window", "window": 8, "secret_bonus": 2.0, "token_penalty": 2.0}),
    ("rate, no evidence", {"statistic": "rate", "secret_bonus": 0.0, "token_penalty": 0.0}),
    ("rate, evidence 0.5", {"statistic": "rate", "secret_bonus": 0.5, "token_penalty": 0.5}),
    ("rate, evidence 1 (default)", {"statistic": "rate", "secret_bonus": 1.0, "token_penalty": 1.0}),
    ("rate, evidence 1.5", {"statistic": "rate", "secret_bonus": 1.5, "token_penalty": 1.5}),
]


class PlainGlobalSM:
    """Each token a candidate scored by its best covering window (consensus 1, no propagation)."""

    kind = "surprise"
    unit = "char"
    propagate = False

    def __init__(self, window: int = 4) -> None:
        self.window = window

    context_chars = 0

    def applies_to(self, path: str) -> bool:
        return True

    def regions(self, text: str, path: str) -> None:
        return None  # every token is a candidate: whole documents

    def rule(self) -> dict[str, Any]:
        return {"rule": "global", "window": self.window, "consensus": 1}

    def candidates(self, text: str, scores: TokenScores, *, path: str = "") -> list[Candidate]:
        windows = fixed_windows(scores.nll, size=self.window)
        n = len(scores)
        best = np.full(n, -np.inf)
        valid = np.where(np.isfinite(windows.scores), windows.scores, -np.inf)
        for offset in range(self.window):
            lo, hi = offset, offset + len(valid)
            np.maximum(best[lo:hi], valid, out=best[lo:hi])
        return [
            Candidate(int(s), int(e), float(b))
            for s, e, b in zip(scores.char_starts, scores.char_ends, best)
            if e > s and np.isfinite(b)
        ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=Path, required=True)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--partial", action="store_true")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--model-identity", help="FINGERPRINT,SETTINGS (default: read from the default model)")
    parser.add_argument("--only", help="run only variants whose name contains this")
    parser.add_argument("--threshold", help="a fixed threshold, or 'packaged' for the packaged credential "
                        "threshold, instead of the best-F1 one (no cross-validation then)")
    args = parser.parse_args()
    fingerprint, settings_key = args.model_identity.split(",") if args.model_identity else default_model_identity()
    scorer = CacheOnlyScorer(args.cache, fingerprint, settings_key)
    documents = read_labels(args.labels)
    if args.partial:
        documents = [d for d in documents if scorer.cache._path(cache_key(fingerprint, scorer.settings, d.text)).exists()]
    scores = scorer.score_texts([d.text for d in documents])
    groups = [d.group for d in documents]
    print(f"{len(documents)} files, {sum(len(d.spans) for d in documents)} secret spans, "
          f"{sum(len(d.negatives) for d in documents)} hard negatives")
    print("| variant | threshold | char P | char R | char F1 | line F1 | char AUROC | hard-neg FP | CV char F1 (5 seeds) |")
    print("|---|---|---|---|---|---|---|---|---|")
    rows = []
    variants: list[tuple[str, Any]] = [("plain Global SM (w=4, k=1)", PlainGlobalSM())]
    variants += [(name, make_detector("credential", rule)) for name, rule in VARIANTS]
    for name, detector in variants:
        if args.only and args.only not in name:
            continue
        units = score_units(detector, documents, scores, propagate=detector.propagate)
        char_scores, char_labels = units.unit("char")
        if args.threshold:
            threshold = _fixed_threshold(args.threshold)
            cv = [0.0, 0.0]
        else:
            threshold = choose_threshold(sweep(char_scores, char_labels), "best-f1")
            cv = [cross_validate(units, "char", "best-f1", folds=5, seed=seed, groups=groups)["f1"] for seed in range(5)]
        metrics = evaluate(units, threshold)
        row = {"variant": name, "rule": detector.rule(), "threshold": round(threshold, 4),
               "char": metrics["char"], "line": metrics["line"],
               "hard_negative_fp_rate": metrics.get("hard_negative_fp_rate"),
               "cv_f1_mean": round(statistics.mean(cv), 4), "cv_f1_sd": round(statistics.stdev(cv), 4)}
        rows.append(row)
        c, line = metrics["char"], metrics["line"]
        print(f"| {name} | {threshold:.3f} | {c['precision']:.3f} | {c['tpr']:.3f} | {c['f1']:.3f} | {line['f1']:.3f} | "
              f"{c['auroc']:.4f} | {metrics.get('hard_negative_fp_rate', 0):.3f} | {row['cv_f1_mean']:.3f} ± {row['cv_f1_sd']:.3f} |",
              flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


def _fixed_threshold(value: str) -> float:
    if value != "packaged":
        return float(value)
    from smscan.rules.thresholds_file import packaged_thresholds

    return float(packaged_thresholds()["kinds"]["credential"]["threshold"])


if __name__ == "__main__":
    raise SystemExit(main())
