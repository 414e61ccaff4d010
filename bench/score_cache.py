#!/usr/bin/env python3
"""Fill the score cache for labelled sets, so calibration and evaluation never rescore.

    python bench/score_cache.py --cache DIR LABELS.jsonl [LABELS.jsonl ...]

Texts are scored with the default model and default scoring settings (those of `smscan repo`),
shortest first, a few at a time, with progress and a tokens/s figure on stderr. Rerunning is
cheap: texts already cached are skipped.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from smscan.scoring.cache import ScoreCache
from smscan.scoring.cached_scorer import CachedScorer
from smscan.sources.labels import read_labels
from smscan.model.load import load_scorer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("labels", nargs="+", type=Path)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--model", default="default")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--shard", default="0/1", help="I/N: score only every N-th text from the I-th (parallel workers)")
    parser.add_argument("--longest-first", action="store_true", help="score the longest texts first (a second worker meeting a shortest-first one)")
    parser.add_argument("--max-chars", type=int, default=None, help="skip texts longer than this")
    parser.add_argument("--min-chars", type=int, default=None, help="skip texts shorter than this")
    args = parser.parse_args()
    if args.longest_first:
        args.batch = 1  # long texts one at a time, so two workers meet cleanly
    scorer = CachedScorer(load_scorer(args.model, pull_if_missing=True), ScoreCache(args.cache))
    for labels in args.labels:
        index, count = (int(part) for part in args.shard.split("/"))
        texts = sorted({document.text for document in read_labels(labels)}, key=lambda t: (len(t), t))
        if args.max_chars is not None:
            texts = [text for text in texts if len(text) <= args.max_chars]
        if args.min_chars is not None:
            texts = [text for text in texts if len(text) >= args.min_chars]
        texts = texts[index::count]
        if args.longest_first:
            texts.reverse()
        started = time.time()
        tokens = 0
        for start in range(0, len(texts), args.batch):
            batch = texts[start : start + args.batch]
            misses = scorer.cache.misses
            scored = scorer.score_texts(batch)
            if scorer.cache.misses > misses:
                tokens += sum(len(s) for s in scored)
            elapsed = time.time() - started
            print(f"{labels.name}: {start + len(batch)}/{len(texts)} texts, {tokens} new tokens, "
                  f"{tokens / max(elapsed, 1e-9):.0f} tok/s", file=sys.stderr, flush=True)
    print(f"cache hits {scorer.cache.hits}, misses {scorer.cache.misses}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
