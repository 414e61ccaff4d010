#!/usr/bin/env python3
"""Credential recall and look-alike rate per file format and per category, from cached scores.

    python -m bench.credential_formats --data DATA [--cache DIR] [--threshold packaged|X] [--max-chars N] [--set KEY=VALUE]

For a set in the layout of ``shared/bench/secrets_gen.py`` (``labels.jsonl`` rows with ``path``,
``ext_class``, ``spans`` with ``category``/``context``/``secret_id``, ``negatives``): the
credential detector of the ``smscan`` on ``PYTHONPATH`` is run on every file whose scores are in
the cache (whole-file scores from ``bench/score_cache.py``; no model runs), with duplicate
propagation per package, at the packaged threshold. A secret counts as found when at least half
of its characters are flagged; a look-alike counts as flagged when any of its characters is.
Prints per-format and per-category tables and the pooled character precision.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from bench.cached import CacheOnlyScorer, default_model_identity
from smscan.scoring.cache import ScoreCache
from smscan.scoring.cache_entries import cache_key
from smscan.detectors import make_detector, propagate_values


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "smscan" / "scores")
    parser.add_argument("--threshold", default="packaged")
    parser.add_argument("--max-chars", type=int, default=None)
    parser.add_argument("--by", default="ext_class", help="label field to group files by")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a rule parameter other than its default (e.g. vendor_bonus=1.0)")
    parser.add_argument("--misses", action="store_true", help="list missed secrets' contexts and flagged look-alikes (no values)")
    args = parser.parse_args()
    fingerprint, settings_key = default_model_identity()
    scorer = CacheOnlyScorer(args.cache, fingerprint, settings_key)
    cache = ScoreCache(args.cache)
    rows = [json.loads(line) for line in (args.data / "labels.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    texts = [(args.data / "corpus" / row["path"]).read_text(encoding="utf-8") for row in rows]
    keep = [i for i, text in enumerate(texts)
            if (args.max_chars is None or len(text) <= args.max_chars)
            and cache.contains(cache_key(fingerprint, scorer.settings, text))]
    rows, texts = [rows[i] for i in keep], [texts[i] for i in keep]
    detector = make_detector("credential", {key: float(value) for key, value in (item.split("=", 1) for item in args.set)})
    if args.threshold == "packaged":
        from smscan.rules.thresholds_file import packaged_thresholds

        threshold = float(packaged_thresholds()["kinds"]["credential"]["threshold"])
    else:
        threshold = float(args.threshold)
    scores = scorer.score_texts(texts)
    found = [detector.candidates(text, score) for text, score in zip(texts, scores)]
    groups: dict[str, list[int]] = defaultdict(list)
    for index, row in enumerate(rows):
        groups[row["path"].split("/", 1)[0]].append(index)
    for members in groups.values():
        raised = propagate_values([texts[i] for i in members], [found[i] for i in members])
        for i, candidates in zip(members, raised):
            found[i] = candidates
    print(f"{len(rows)} files, threshold {threshold:.4f}")
    per_group: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    per_category: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    per_negative: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    flagged_total = true_flagged = other_spans = 0
    for row, text, candidates in zip(rows, texts, found):
        flagged = bytearray(len(text))
        for candidate in candidates:
            if candidate.score >= threshold:
                flagged[candidate.char_start : candidate.char_end] = b"\1" * (candidate.char_end - candidate.char_start)
        positive = bytearray(len(text))
        for span in row["spans"]:
            positive[span["start"] : span["end"]] = b"\1" * (span["end"] - span["start"])
        flagged_total += sum(flagged)
        other_spans += sum(1 for c in candidates if c.score >= threshold
                           and not any(positive[c.char_start : c.char_end]))
        true_flagged += sum(f & p for f, p in zip(flagged, positive))
        stats = per_group[row.get(args.by, "?")]
        stats["flagged"] += sum(flagged)
        stats["true"] += sum(f & p for f, p in zip(flagged, positive))
        secrets: dict[object, list[tuple[int, int, str, str]]] = defaultdict(list)
        for number, span in enumerate(row["spans"]):
            secrets[span.get("secret_id", number)].append((span["start"], span["end"], span["category"], span.get("context", "")))
        for spans in secrets.values():
            size = sum(end - start for start, end, _, _ in spans)
            hit = sum(sum(flagged[start:end]) for start, end, _, _ in spans) * 2 >= size
            stats["secrets"] += 1
            stats["found"] += hit
            per_category[spans[0][2]][0] += 1
            per_category[spans[0][2]][1] += hit
            if args.misses and not hit:
                print(f"  missed {row['path']} {spans[0][2]} {spans[0][3]}")
        for negative in row["negatives"]:
            hit = any(flagged[negative["start"] : negative["end"]])
            stats["negatives"] += 1
            stats["negatives_flagged"] += hit
            per_negative[negative["category"]][0] += 1
            per_negative[negative["category"]][1] += hit
            if args.misses and hit:
                print(f"  look-alike flagged {row['path']} {negative['category']} {negative.get('context', '')}")
    print(f"\n| {args.by} | secrets | recall | look-alikes | flagged | char precision |\n|---|---|---|---|---|---|")
    for name in sorted(per_group):
        s = per_group[name]
        precision = s["true"] / s["flagged"] if s["flagged"] else float("nan")
        print(f"| {name} | {s['secrets']} | {s['found'] / max(s['secrets'], 1):.2f} | {s['negatives']} | "
              f"{s['negatives_flagged'] / max(s['negatives'], 1):.2f} | {precision:.3f} |")
    total = sum(s["secrets"] for s in per_group.values())
    hits = sum(s["found"] for s in per_group.values())
    negatives = sum(s["negatives"] for s in per_group.values())
    negative_hits = sum(s["negatives_flagged"] for s in per_group.values())
    print(f"| **all** | {total} | {hits / max(total, 1):.3f} | {negatives} | {negative_hits / max(negatives, 1):.3f} | "
          f"{true_flagged / max(flagged_total, 1):.3f} |")
    print(f"\nspans flagged outside every credential (look-alikes included): {other_spans}")
    print("\n| category | n | recall |\n|---|---|---|")
    for name, (n, hit) in sorted(per_category.items()):
        print(f"| {name} | {n} | {hit / n:.2f} |")
    print("\n| look-alike | n | flagged |\n|---|---|---|")
    for name, (n, hit) in sorted(per_negative.items()):
        print(f"| {name} | {n} | {hit / n:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
