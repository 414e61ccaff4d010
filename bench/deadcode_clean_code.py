#!/usr/bin/env python3
"""Dead-code findings on real code that has no injected dead lines (a false-alarm rate).

    python -m bench.deadcode_clean_code --labels DATA/labels.jsonl --cache DIR [--partial] [--thresholds FILE]

Runs the dead-code detector at a saved threshold (the packaged one unless ``--thresholds``) on
the code files of a labelled set (e.g. the credentials dev corpus: real files from pinned PyPI and
npm packages) from cached scores, and prints code lines, findings, findings per 1,000 code lines
split by what raised them (ast evidence of which kind, or surprise alone), and the findings.
Findings on lines where the set injected a secret or a hard negative (an unused assignment put
into a function is dead code too) are counted apart. Not every other finding is false: real code
has unused variables and unreachable lines too.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from bench.cached import CacheOnlyScorer, default_model_identity
from smscan.scoring.cache_entries import cache_key
from smscan.sources.labels import read_labels
from smscan.rules.thresholds_file import PACKAGED, find_entry, packaged_thresholds, read_thresholds_file
from smscan.detectors import make_detector


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=Path, required=True)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--partial", action="store_true", help="only the files whose scores are cached")
    parser.add_argument("--thresholds", type=Path, help="thresholds file (default: the packaged one)")
    parser.add_argument("--model-identity", help="FINGERPRINT,SETTINGS (default: read from the default model)")
    parser.add_argument("--show", type=int, default=40, help="how many findings to print, highest first")
    args = parser.parse_args()
    fingerprint, settings = args.model_identity.split(",") if args.model_identity else default_model_identity()
    scorer = CacheOnlyScorer(args.cache, fingerprint, settings)
    source = (str(args.thresholds), read_thresholds_file(args.thresholds)) if args.thresholds else (PACKAGED, packaged_thresholds())
    entry = find_entry([source], "dead-code", fingerprint=fingerprint, model="default")
    detector = make_detector("dead-code", entry.rule)
    documents = [d for d in read_labels(args.labels) if detector.applies_to(d.name)]
    if args.partial:
        documents = [d for d in documents if scorer.cache.get(cache_key(fingerprint, scorer.settings, d.text)) is not None]
    lines = on_injected = 0
    raised_by: Counter[str] = Counter()
    shown = []
    for document in documents:
        (scores,) = scorer.score_texts([document.text])
        lines += sum(1 for line in document.text.split("\n") if line.strip())
        injected_spans = [*document.spans, *((s, e) for s, e, _ in document.negatives)]
        for candidate in detector.candidates(document.text, scores):
            if candidate.score < entry.threshold:
                continue
            # Lines where the set injected a secret or a hard negative are not clean code.
            if any(candidate.char_start < end and start < candidate.char_end for start, end in injected_spans):
                on_injected += 1
                continue
            evidence = str(candidate.details.get("evidence", ""))
            raised_by[evidence or "surprise alone"] += 1
            line = document.text[candidate.char_start : candidate.char_end][:90]
            shown.append((candidate.score, document.name, line, evidence))
    clean = sum(raised_by.values())
    print(f"{len(documents)} code files, {lines} non-blank lines, threshold {entry.threshold:.4f} "
          f"(bonus {entry.rule.get('evidence_bonus')}) from {entry.source}: {on_injected} findings on lines the "
          f"set injected a secret or hard negative into, {clean} elsewhere ({1000 * clean / max(lines, 1):.2f} per 1,000 lines)")
    for reason, count in raised_by.most_common():
        print(f"  {reason}: {count} ({1000 * count / max(lines, 1):.2f} per 1,000 lines)")
    for score, name, text, evidence in sorted(shown, reverse=True)[: args.show]:
        print(f"  {score:.2f}  {name}: {text!r} {evidence}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
