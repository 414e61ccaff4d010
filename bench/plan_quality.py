#!/usr/bin/env python3
"""Detector quality with whole-file scores (before) and with the scoring plan's piece scores (after).

    python -m bench.plan_quality --kind credential|dead-code --labels LABELS.jsonl --cache DIR
        [--max-tokens N] [--targets-only] [--rule KEY=VALUE ...]

One run scores both through the score cache (the real default model; a text scored before is
never scored again): every selected text whole, as scans did, and the pieces
``smscan.plan.pieces.plan_pieces`` gives for the kind's detector. Prints P/R/F1 (char and line for
``credential``, line for ``dead-code``) at the packaged threshold and at each variant's best-F1
threshold, and the tokens each variant needed. ``--targets-only`` keeps only texts that hold a
labelled target or a planned region (the others cannot change: the plan scores nothing there and
the before scan reports what the packaged figures say); ``--max-tokens`` stops adding texts,
shortest first, when the whole texts reach that many tokens (a budget on a shared CPU).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from smscan.scoring.cache import ScoreCache
from smscan.scoring.cached_scorer import CachedScorer
from smscan.calibration.calibrate import choose_threshold, evaluate
from smscan.sources.labels import read_labels
from smscan.calibration.metrics import sweep
from smscan.rules.thresholds_file import PACKAGED, find_entry, packaged_thresholds
from smscan.calibration.units import score_units
from smscan.detectors import make_detector
from smscan.plan.pieces import score_planned
from smscan.records import Document


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", required=True, choices=["credential", "dead-code"])
    parser.add_argument("--labels", type=Path, nargs="+", required=True)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--max-tokens", type=int, default=None)
    parser.add_argument("--targets-only", action="store_true")
    args = parser.parse_args()
    from tokenizers import Tokenizer

    from smscan.model.load import load_scorer

    scorer = CachedScorer(load_scorer("default"), ScoreCache(args.cache))
    tokenizer = Tokenizer.from_file(str(Path.home() / ".cache/smscan/models/SmolLM2-135M-Instruct/tokenizer.json"))
    entry = find_entry([(PACKAGED, packaged_thresholds())], args.kind, fingerprint=scorer.fingerprint, model="default")
    packaged_rule = dict(entry.rule)
    # Before: today's rule on whole files (dead code: every Python line judged); after: the plan.
    before_rule = {**packaged_rule, "python_lines": "all"} if args.kind == "dead-code" else packaged_rule
    after_rule = {**packaged_rule, "python_lines": "evidence"} if args.kind == "dead-code" else packaged_rule
    planner = make_detector(args.kind, after_rule)
    for labels in args.labels:
        documents = read_labels(labels)
        chosen = []
        for d in documents:
            if args.targets_only and not (d.spans or d.lines or d.negatives or planner.regions(d.text, d.name)):
                continue
            chosen.append(d)
        chosen.sort(key=lambda d: len(d.text))
        tokens = 0
        selected = []
        for d in chosen:
            n = len(tokenizer.encode(d.text, add_special_tokens=False).ids)
            if args.max_tokens is not None and tokens + n > args.max_tokens:
                break
            tokens += n
            selected.append(d)
        print(f"{labels}: {len(selected)} of {len(documents)} texts, {tokens:,} whole tokens "
              f"({sum(len(d.spans) for d in selected)} target spans, {sum(len(d.lines) for d in selected)} target lines)", flush=True)
        docs = [Document(d.name, d.text) for d in selected]
        after = score_planned(scorer, docs, [planner], by_path=False)
        planned_tokens = sum(int(len(s)) for s in after)
        before = scorer.score_texts([d.text for d in selected])
        rows: list[tuple[str, Any, Any, int]] = [
            ("before: whole files" + (", every line" if args.kind == "dead-code" else ""), before_rule, before, tokens),
        ]
        if args.kind == "dead-code":
            rows.append(("whole files, evidence lines only", after_rule, before, tokens))
        rows.append(("after: planned pieces", after_rule, after, planned_tokens))
        unit = "char" if args.kind == "credential" else "line"
        print(f"| variant | tokens | threshold | {unit} P | {unit} R | {unit} F1 | line F1 | TP/FP/FN ({unit}s) | best-F1 threshold | best {unit} F1 |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for name, rule, scores, count in rows:
            detector = make_detector(args.kind, rule)
            units = score_units(detector, selected, scores, propagate=detector.propagate)
            at_packaged = evaluate(units, entry.threshold)
            best = choose_threshold(sweep(*units.unit(unit)), "best-f1")
            at_best = evaluate(units, best)
            m = at_packaged[unit]
            print(f"| {name} | {count:,} | {entry.threshold:.4f} | {m['precision']:.3f} | {m['tpr']:.3f} | {m['f1']:.3f} | "
                  f"{at_packaged['line']['f1']:.3f} | {m['tp']}/{m['fp']}/{m['fn']} | {best:.4f} | {at_best[unit]['f1']:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
