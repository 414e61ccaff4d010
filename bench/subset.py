#!/usr/bin/env python3
"""A split folder holding only the labelled files whose scores are already cached.

    python -m bench.subset --data DATA --cache DIR --out SUBSET [--max-chars N]

Writes SUBSET/labels.jsonl (the rows of DATA/labels.jsonl for those files), SUBSET/corpus (copies
of those files only, so a scanner run on the folder sees exactly them) and
SUBSET/manifest.json (generator "<name>-subset"), so every tool can be measured on the same
files while the cache fills.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from bench.cached import default_model_identity
from smscan.scoring.cache import ScoreCache
from smscan.scoring.cache_entries import cache_key


class _Key:
    def __init__(self, key: str) -> None:
        self._key = key

    def key(self) -> str:
        return self._key


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--max-chars", type=int, default=None)
    parser.add_argument("--model-identity", help="FINGERPRINT,SETTINGS (default: read from the default model)")
    args = parser.parse_args()
    fingerprint, settings = args.model_identity.split(",") if args.model_identity else default_model_identity()
    cache = ScoreCache(args.cache)
    rows = []
    for line in (args.data / "labels.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        text = (args.data / "corpus" / row["path"]).read_bytes().decode("utf-8")
        if args.max_chars is not None and len(text) > args.max_chars:
            continue
        if cache.contains(cache_key(fingerprint, _Key(settings), text)):
            rows.append(line)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "labels.jsonl").write_text("".join(r + "\n" for r in rows), encoding="utf-8")
    corpus = args.out / "corpus"
    if corpus.is_symlink():
        corpus.unlink()
    if corpus.exists():
        shutil.rmtree(corpus)
    for line in rows:
        path = json.loads(line)["path"]
        (corpus / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(args.data / "corpus" / path, corpus / path)
    manifest = json.loads((args.data / "manifest.json").read_text())
    name = manifest.get("generator", "data").split()[0]
    (args.out / "manifest.json").write_text(json.dumps({**manifest, "generator": f"{name}-subset", "subset_files": len(rows)}, indent=2) + "\n")
    print(f"{len(rows)} files in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
