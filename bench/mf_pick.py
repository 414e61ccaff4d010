#!/usr/bin/env python3
"""One folder holding only some file types of several multi-format splits.

    python bench/mf_pick.py [--formats json,xml] --out DATA SPLIT [SPLIT ...]

Each SPLIT is a folder written by ``bench/multiformat_gen.py``. The files of the given formats
(``ext_class``; every file without ``--formats``) are copied with their ``labels.jsonl`` rows, their paths prefixed by the split's
seed (``s80/<package>/<path>``) so that splits drawing the same host do not collide. Scoring a
few types of many seeds costs a fraction of whole splits; ``bench/multiformat_eval.py`` reads the
result like any split.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common.splits import read_manifest, split_rows


def _fail(message: str) -> int:
    print(f"mf_pick: {message}", file=sys.stderr)
    return 2


def pick(splits: list[Path], formats: set[str] | None, out: Path) -> dict[str, Any]:
    """Copy the files of ``formats`` from ``splits`` into ``out``; the manifest written there."""
    corpus = out / "corpus"
    if corpus.exists():
        shutil.rmtree(corpus)
    corpus.mkdir(parents=True)
    rows, seeds = [], []
    for split in splits:
        seed = read_manifest(split)["seed"]
        seeds.append(seed)
        for row in split_rows(split):
            if formats and row["ext_class"] not in formats:
                continue
            rel = f"s{seed}/{row['path']}"
            dst = corpus / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(split / "corpus" / row["path"], dst)
            rows.append({**row, "path": rel})
    with open(out / "labels.jsonl", "w", encoding="utf-8") as f:
        f.writelines(json.dumps(row) + "\n" for row in rows)
    manifest = {
        "generator": "mf-pick", "seeds": seeds, "formats": sorted(formats) if formats else "all", "files": len(rows),
        "secrets": sum(len(r["spans"]) for r in rows), "lookalikes": sum(len(r["negatives"]) for r in rows),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--formats", default="", help="comma-separated ext_class values, e.g. json,xml (default: all)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("splits", type=Path, nargs="+")
    a = ap.parse_args(argv)
    formats = {f.strip() for f in a.formats.split(",") if f.strip()} or None
    for split in a.splits:
        if not (split / "labels.jsonl").is_file() or not (split / "manifest.json").is_file():
            return _fail(f"{split} is not a split folder (no labels.jsonl or manifest.json)")
    if len({read_manifest(s).get("seed") for s in a.splits}) < len(a.splits):
        return _fail("two splits have the same seed: their paths would collide")
    a.out.mkdir(parents=True, exist_ok=True)
    print(json.dumps(pick(a.splits, formats, a.out)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
