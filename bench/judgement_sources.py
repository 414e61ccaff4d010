#!/usr/bin/env python3
"""Other labelled sources in the split layout ``bench/judgement_data.py`` reads.

    python bench/judgement_sources.py foreign --examples EXAMPLES.jsonl --out DIR
    python bench/judgement_sources.py clean --archive PKG.tar.gz [...] --out DIR [--max-files 400] [--seed 0]

``foreign`` writes one split per source of h-foreign's ``examples.jsonl`` (``bench/foreign`` on
its branch: rule examples of Nosey Parker, Titus, Kingfisher, Gitleaks, pinned by commit), one
small file per example named by its guessed file name; identifier spans (user names, hosts, key
ids) are written as ``identifiers`` and neither trained nor counted. ``clean`` writes a split of
real text files of pinned package archives (sdists) with no labels: every slot there is a
false alarm when flagged.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tarfile
from pathlib import Path

_SAFE = re.compile(r"[^A-Za-z0-9_.\-]+")
_TEXT_SUFFIXES = (".py", ".md", ".rst", ".txt", ".toml", ".cfg", ".ini", ".yaml", ".yml", ".json", ".html", ".js",
                  ".sh", ".po", ".css", ".xml", ".in", ".conf")


def foreign(examples: Path, out: Path) -> None:
    by_source: dict[str, list[dict]] = {}
    for line in examples.read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            by_source.setdefault(row["source"], []).append(row)
    for source, rows in by_source.items():
        folder = out / source
        labels = []
        for row in rows:
            path = f"{_SAFE.sub('_', row['id'])}/{row['path_hint']}"
            target = folder / "corpus" / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(row["text"], "utf-8", errors="surrogatepass")
            labels.append({"path": path, "spans": [{**s, "secret_id": k} for k, s in enumerate(row["labels"])],
                           "negatives": row["negatives"], "identifiers": row.get("identifiers", [])})
        (folder / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in labels))
        print(f"{source}: {len(rows)} examples", file=sys.stderr)


def clean(archives: list[Path], out: Path, max_files: int, seed: int) -> None:
    files = []
    for archive in archives:
        with tarfile.open(archive) as tf:
            for member in tf.getmembers():
                if member.isfile() and member.name.endswith(_TEXT_SUFFIXES) and 0 < member.size <= 200_000:
                    data = tf.extractfile(member)
                    if data is not None:
                        try:
                            files.append((member.name, data.read().decode("utf-8")))
                        except UnicodeDecodeError:
                            pass
    random.Random(seed).shuffle(files)
    labels = []
    for name, text in sorted(files[:max_files]):
        target = out / "corpus" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, "utf-8")
        labels.append({"path": name, "spans": [], "negatives": []})
    (out / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in labels))
    print(f"{len(labels)} files, {sum(len(t) for _, t in files[:max_files])} characters", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("command", choices=("foreign", "clean"))
    ap.add_argument("--examples", type=Path)
    ap.add_argument("--archive", type=Path, nargs="*", default=[])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--max-files", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.command == "foreign":
        foreign(args.examples, args.out)
    else:
        clean(args.archive, args.out, args.max_files, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
