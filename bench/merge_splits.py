#!/usr/bin/env python3
"""Several multi-format split folders as one, so per-type figures rest on more credentials.

    python -m bench.merge_splits --out MERGED DATA1 DATA2 ... [--formats txt,json]

Each input is a folder written by ``bench/multiformat_gen.py`` (``labels.jsonl`` + ``corpus/``).
A file's path gets its input folder's name as a prefix (``mf-heldout-s61/pkg/README.txt``), so
two seeds drawing the same host file stay two files. ``--formats`` keeps only those file types.
MERGED holds copies: the inputs are never written.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path


def merge(inputs: list[Path], out: Path, formats: set[str] | None = None) -> int:
    """Write the merged split into ``out`` (refused when it exists); the number of files it holds."""
    names = [d.name for d in inputs]
    if len(set(names)) != len(names):
        raise SystemExit(f"two inputs have the same folder name: {names}")
    if out.exists():
        raise SystemExit(f"{out} exists: give a new folder")
    rows = []
    for folder in inputs:
        labels = folder / "labels.jsonl"
        if not labels.is_file():
            raise SystemExit(f"{folder} has no labels.jsonl: not a split folder")
        for line in labels.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if formats and row["ext_class"] not in formats:
                continue
            target = out / "corpus" / folder.name / row["path"]
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(folder / "corpus" / row["path"], target)
            rows.append(dict(row, path=f"{folder.name}/{row['path']}"))
    out.mkdir(parents=True, exist_ok=True)
    (out / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    manifest = {"generator": "merge_splits", "inputs": names, "formats": sorted(formats) if formats else None,
                "files": len(rows)}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return len(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--formats", default="", help="comma-separated file types to keep (default: all)")
    args = ap.parse_args(argv)
    formats = {f.strip() for f in args.formats.split(",") if f.strip()} or None
    print(f"{merge(args.inputs, args.out, formats)} files in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
