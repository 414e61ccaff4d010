#!/usr/bin/env python3
"""Raw Surprise Masking operating points on a labelled credentials set, and the file-start effect.

    python -m bench.surprise_operating_points LABELS [--cache DIR] [--head 16]

For propagation on and off, chooses the SM90 and SM95 thresholds with the complete masking
procedure in the loop (smscan.calibration.operating_points, as `smscan calibrate --kind surprise`
does) and prints a markdown table: target coverage and collateral rate in reference tokens (the
paper's figure 4), then how much of the collateral lies in the first HEAD tokens of a file (which
have little left context and score high), and the same operating points recalibrated with those
tokens left unscored (what ignoring file starts would give). Scores come from the score cache only.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from bench.cached import CacheOnlyScorer, default_model_identity
from smscan.scoring.cache import default_cache_dir
from smscan.sources.labels import read_labels
from smscan.rules.thresholds_file import OPERATING_POINTS
from smscan.exports.rule import MaskRule
from smscan.calibration.surprise_calibration import SurpriseCalibration
from smscan.records import TokenScores


def without_head(scores: TokenScores, head: int) -> TokenScores:
    nll = scores.nll.copy()
    nll[:head] = np.nan
    return TokenScores(scores.token_ids, scores.char_starts, scores.char_ends, nll)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("labels", type=Path)
    parser.add_argument("--cache", type=Path, default=default_cache_dir())
    parser.add_argument("--head", type=int, default=16, help="tokens at the start of a file counted apart")
    parser.add_argument("--points", default="SM90,SM95")
    args = parser.parse_args()
    documents = read_labels(args.labels)
    scorer = CacheOnlyScorer(args.cache, *default_model_identity())
    scores = scorer.score_texts([d.text for d in documents])
    tokens = sum(len(s) for s in scores)
    print(f"{len(documents)} files, {tokens} reference tokens, head = first {args.head} tokens of a file\n")
    print("| propagation | point | threshold | target coverage | collateral rate | collateral in file heads | "
          "collateral rate outside heads | heads unscored: threshold / coverage / collateral |")
    print("|---|---|---|---|---|---|---|---|")
    for propagate in (True, False):
        rule = MaskRule(window=4, consensus=1, propagate=propagate)
        calibration = SurpriseCalibration(documents, scores, rule)
        headless = SurpriseCalibration(documents, [without_head(s, args.head) for s in scores], rule)
        for name in args.points.split(","):
            started = time.perf_counter()
            threshold = calibration.threshold_for_recall(OPERATING_POINTS[name])
            counts = calibration.confusion(threshold)
            in_head = outside = others_outside = 0
            for i, mask in calibration.masks(threshold):
                collateral = mask & ~calibration.targets[i]
                in_head += int(collateral[: args.head].sum())
                outside += int(collateral[args.head :].sum())
                others_outside += int((~calibration.targets[i][args.head :]).sum())
            h_threshold = headless.threshold_for_recall(OPERATING_POINTS[name])
            h_counts = headless.confusion(h_threshold)
            print(
                f"| {'on' if propagate else 'off'} | {name} | {threshold:.3f} | {counts.tpr:.3f} | {counts.fpr:.4f} | "
                f"{in_head / max(counts.fp, 1):.1%} of {counts.fp} | {outside / max(others_outside, 1):.4f} | "
                f"{h_threshold:.3f} / {h_counts.tpr:.3f} / {h_counts.fpr:.4f} |"
            )
            print(f"  ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
