#!/usr/bin/env python3
"""Markdown tables of the metrics shared/bench/secrets_eval/run.py saved for one split.

    python -m bench.secrets_table RESULTS/<split> [--tools smscan,credsweeper,detect-secrets]
        [--rename smscan="smscan (before fixes)",...]

Prints the overall table (character and line P/R/F1, secret recall, hard-negative and clean-file
false-positive rates, seconds per file), per-category secret recall (character recall in parentheses) and
per-category hard-negative false-positive rates, as run.py's own `report` does for dev/test.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def _seconds_per_file(metrics: dict[str, Any]) -> str:
    # Wall time of the whole run over its files (a run answered from a score cache is not a scan).
    wall = metrics.get("wall_s")
    return f"{wall / metrics['files']:.3f}" if wall else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--tools", default="smscan,credsweeper,detect-secrets")
    parser.add_argument("--rename", default="", help="OLD=NEW,... : names shown for result files")
    args = parser.parse_args()
    tools = [t for t in args.tools.split(",") if (args.results / f"{t}.json").exists()]
    metrics = {t: json.loads((args.results / f"{t}.json").read_text()) for t in tools}
    # Results are read by file name; the tables show the names asked for.
    pairs = [pair.split("=", 1) for pair in args.rename.split(",") if pair]
    if any(len(pair) != 2 for pair in pairs):
        parser.error("--rename takes OLD=NEW pairs separated by commas (no comma inside a name)")
    shown = dict(pairs)
    metrics = {shown.get(t, t): m for t, m in metrics.items()}
    tools = [shown.get(t, t) for t in tools]
    first = metrics[tools[0]]
    print(f"{first['files']} files, {first['bytes'] / 1e6:.2f} MB, {first['secrets']} secrets, {first['hard_negatives']} hard negatives.\n")
    print("| tool | char P | char R | char F1 | line P | line R | line F1 | secret recall | hard-neg FP | clean-file FP | s/file |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for t in tools:
        m = metrics[t]
        c, l = m["char"], m["line"]
        print(f"| {t} | {c['precision']:.3f} | {c['recall']:.3f} | {c['f1']:.3f} | {l['precision']:.3f} | {l['recall']:.3f} | "
              f"{l['f1']:.3f} | {m['secret_recall']:.3f} | {m['hard_negative_fp_rate']:.3f} | {m['clean_file_fp_rate']:.3f} | "
              f"{_seconds_per_file(m)} |")
    print("\nSecret recall per category (character recall in parentheses):\n")
    print("| category | n | " + " | ".join(tools) + " |")
    print("|---|---|" + "---|" * len(tools))
    for category in sorted({c for t in tools for c in metrics[t]["per_category"]}):
        n = next(metrics[t]["per_category"][category]["secrets"] for t in tools if category in metrics[t]["per_category"])
        cells = [f"{metrics[t]['per_category'][category]['recall']:.2f} ({metrics[t]['per_category'][category]['char_recall']:.2f})" for t in tools]
        print(f"| {category} | {n} | " + " | ".join(cells) + " |")
    negatives = sorted({c for t in tools for c in metrics[t]["per_negative_category"]})
    if negatives:
        print("\nHard negatives flagged, per category:\n")
        print("| category | n | " + " | ".join(tools) + " |")
        print("|---|---|" + "---|" * len(tools))
        for category in negatives:
            n = next(metrics[t]["per_negative_category"][category]["spans"] for t in tools if category in metrics[t]["per_negative_category"])
            cells = [f"{metrics[t]['per_negative_category'][category]['fp_rate']:.2f}" for t in tools]
            print(f"| {category} | {n} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
