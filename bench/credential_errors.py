#!/usr/bin/env python3
"""Misses and false positives of one tool on a scored secrets set, values redacted.

    python -m bench.credential_errors --data DATA [--tool smscan] [--scorer DIR]

Reads DATA/labels.jsonl and DATA/preds/<tool>.json (written by shared/bench/secrets_eval/run.py)
and prints one line per secret with an unflagged character (MISS: none flagged, PART: some) and
per flagged span touching no secret (FP, with the hard-negative category it hit, or "host"),
each with its line; a value longer than 12 characters shows its first 6 and last 4 only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from smscan.reports.redact import redact

SCORER = Path(__file__).resolve().parents[2] / "shared" / "bench" / "secrets_eval"  # ../shared beside the checkout


def in_line(text: str, start: int, end: int) -> str:
    """The line around ``[start, end)`` with the span marked and redacted, cut to 200 characters."""
    first = text.rfind("\n", 0, start) + 1
    last = text.find("\n", end)
    last = len(text) if last < 0 else last
    return (text[first:start] + "⟦" + redact(text[start:end]) + "⟧" + text[end:last])[:200]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--tool", default="smscan")
    parser.add_argument("--scorer", type=Path, default=SCORER, help="folder of the shared score.py")
    args = parser.parse_args()
    predictions = args.data / "preds" / f"{args.tool}.json"
    if not predictions.is_file() or not (args.scorer / "score.py").is_file():
        parser.error(f"need {predictions} (run run.py {args.tool} first) and {args.scorer / 'score.py'}")
    sys.path.insert(0, str(args.scorer))
    import score  # the shared scorer's interval helpers, so errors match its metrics

    split = score.Split(args.data)
    flagged = json.loads(predictions.read_text())["files"]
    rows = [json.loads(line) for line in (args.data / "labels.jsonl").read_text().splitlines()]
    for row in rows:
        text, spans = split.texts[row["path"]], score.merge(flagged.get(row["path"], []))
        for secret in row["spans"]:
            hit = score.hits((secret["start"], secret["end"]), spans)
            if hit < secret["end"] - secret["start"]:
                status = "MISS" if hit == 0 else "PART"
                print(f"{status} {secret['category']:<20} {row['path']}: {in_line(text, secret['start'], secret['end'])!r}")
    for row in rows:
        text = split.texts[row["path"]]
        secrets = score.merge([[s["start"], s["end"]] for s in row["spans"]])
        for start, end in score.merge(flagged.get(row["path"], [])):
            if score.hits((start, end), secrets) == 0:
                hit = [n["category"] for n in row["negatives"] if n["start"] < end and start < n["end"]]
                print(f"FP   {(hit[0] if hit else 'host'):<20} {row['path']}: {in_line(text, start, end)!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
