#!/usr/bin/env python3
"""A fixed sample of real code files as a labels file with no targets (clean code).

    python -m bench.code_sample --root /usr/lib/python3.11 --files 40 --max-chars 8000 -o OUT.jsonl

Picks ``--files`` files with a programming-language suffix under ``--root`` (tests, vendored
and generated folders skipped), between ``--min-chars`` and ``--max-chars`` characters, in an
order fixed by a hash of the relative path and ``--seed``, and writes one row per file,
``{"path": REL, "text": ..., "spans": []}``: input for bench/score_cache.py and
bench/deadcode_clean_code.py (a false-alarm rate on code nobody poisoned).
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

from smscan.detectors.dead_code import DeadCodeDetector

SKIPPED_FOLDERS = {"test", "tests", "idlelib", "site-packages", "__pycache__", "node_modules", "lib2to3", "turtledemo"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--min-chars", type=int, default=1000)
    parser.add_argument("--max-chars", type=int, default=8000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args()
    detector = DeadCodeDetector()
    picked = []
    for path in args.root.rglob("*"):
        relative = path.relative_to(args.root)
        if not path.is_file() or SKIPPED_FOLDERS & set(relative.parts[:-1]) or not detector.applies_to(relative.as_posix()):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if args.min_chars <= len(text) <= args.max_chars:
            order = hashlib.sha256(f"{args.seed}:{relative.as_posix()}".encode()).hexdigest()
            picked.append((order, relative.as_posix(), text))
    picked.sort()
    with args.output.open("w", encoding="utf-8") as out:
        for _, name, text in picked[: args.files]:
            out.write(json.dumps({"path": name, "text": text, "spans": []}) + "\n")
    lines = sum(sum(1 for line in text.split("\n") if line.strip()) for _, _, text in picked[: args.files])
    print(f"{min(len(picked), args.files)} of {len(picked)} eligible files, {lines} non-blank lines -> {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
