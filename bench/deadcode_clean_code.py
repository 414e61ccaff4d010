#!/usr/bin/env python3
"""Dead-code findings on real code that has no injected dead lines (a false-alarm rate).

    python -m bench.deadcode_clean_code --labels DATA/labels.jsonl --cache DIR [--partial]

Runs the dead-code detector with the packaged threshold on the code files of a labelled set
(e.g. the credentials dev corpus: real files from pinned PyPI and npm packages) from cached
scores, and prints code lines, findings, findings per 1,000 code lines, and the findings.
Findings on lines where the set injected a secret or a hard negative (an unused assignment put into
a function is dead code too) are counted apart. Not every other finding is false: real code has
unused variables and unreachable lines too.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bench.cached import CacheOnlyScorer, default_model_identity
from smscan.cache import cache_key
from smscan.calibration.labels import read_labels
from smscan.calibration.thresholds import find_entry, packaged_thresholds
from smscan.detectors import make_detector


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--labels", type=Path, required=True)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--partial", action="store_true")
    parser.add_argument("--model-identity", help="FINGERPRINT,SETTINGS (default: read from the default model)")
    args = parser.parse_args()
    fingerprint, settings = args.model_identity.split(",") if args.model_identity else default_model_identity()
    scorer = CacheOnlyScorer(args.cache, fingerprint, settings)
    entry = find_entry([("packaged defaults", packaged_thresholds())], "dead-code", fingerprint=fingerprint, model="default")
    detector = make_detector("dead-code", entry.rule)
    documents = [d for d in read_labels(args.labels) if detector.applies_to(d.name)]
    if args.partial:
        documents = [d for d in documents if scorer.cache._path(cache_key(fingerprint, scorer.settings, d.text)).exists()]
    lines = findings = on_injected = 0
    shown = []
    for document in documents:
        (scores,) = scorer.score_texts([document.text])
        lines += sum(1 for line in document.text.split("\n") if line.strip())
        for candidate in detector.candidates(document.text, scores):
            if candidate.score >= entry.threshold:
                findings += 1
                # Lines where the set injected a secret or a hard negative are not clean code.
                injected = any(candidate.char_start < end and start < candidate.char_end
                               for start, end in [*document.spans, *((s, e) for s, e, _ in document.negatives)])
                on_injected += injected
                if not injected:
                    shown.append((candidate.score, document.name, document.text[candidate.char_start : candidate.char_end][:90], candidate.details.get("evidence", "")))
    clean = findings - on_injected
    print(f"{len(documents)} code files, {lines} non-blank lines, {findings} dead-code findings at threshold "
          f"{entry.threshold:.4f}: {on_injected} on lines the set injected a secret or hard negative into, "
          f"{clean} elsewhere ({1000 * clean / max(lines, 1):.2f} per 1,000 lines)")
    for score, name, text, evidence in sorted(shown, reverse=True):
        print(f"  {score:.2f}  {name}: {text!r} {evidence}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
