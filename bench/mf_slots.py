#!/usr/bin/env python3
"""Model-free checks of the credential detector on multi-format splits: no model, seconds per split.

    python bench/mf_slots.py unread SPLIT [SPLIT ...]
    python bench/mf_slots.py dump --out SLOTS.json SPLIT [SPLIT ...]
    python bench/mf_slots.py diff BEFORE.json AFTER.json SPLIT [SPLIT ...]

Each SPLIT is a folder written by ``bench/multiformat_gen.py`` (or ``bench/mf_pick.py``).

- ``unread``: labelled credentials in files that ``smscan repo SPLIT/corpus`` never reads (a
  ``.gitignore`` in the corpus ignores them, or the default selection skips them), per format and
  reason: misses no detector change can fix.
- ``dump``: the judged slots (span and evidence, the model-free half of the decision) of every
  file, with the smscan this Python imports: run it once per checkout, ``PYTHONPATH=CHECKOUT``
  (the script itself adds no folder to the import path, so the dump is of that checkout).
- ``diff``: the slots two dumps disagree on, each classed by what it covers (a labelled
  credential and its context, a look-alike and its category, or nothing labelled). A detector
  change that only adds slots on credentials shows no look-alike and no unlabelled line. Values
  are shown as their first three characters and length.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common.listings import masked
from bench.common.splits import split_rows


def unread(split: Path) -> Counter[str]:
    """Labelled credentials per "format reason" in files a scan of the corpus does not read."""
    from smscan.config.settings import Settings
    from smscan.records import Document
    from smscan.sources.selection import Selection
    from smscan.sources.worktree import iter_worktree

    corpus = split / "corpus"
    selection = Selection.for_root(corpus, Settings())
    status: dict[str, str] = {}
    for item in iter_worktree(corpus, max_file_bytes=selection.max_file_bytes, path_filter=selection.path_filter):
        refined = selection.refine(item)
        status[item.path] = "read" if isinstance(refined, Document) else getattr(refined, "reason", "excluded")
    out: Counter[str] = Counter()
    for row in split_rows(split):
        reason = status.get(row["path"], "ignored by a .gitignore")
        if reason != "read" and row["spans"]:
            out[f"{row['ext_class']}: {reason}"] += len(row["spans"])
    return out


def dump(splits: list[Path]) -> dict[str, list[list[float]]]:
    """``{"<split>/<path>": [[start, end, evidence], ...]}`` of every labelled file."""
    from smscan.detectors.credential_evidence import judged_slots
    from smscan.detectors.credential_rule import CredentialRule

    rule = CredentialRule()
    out = {}
    for split in splits:
        for row in split_rows(split):
            text = (split / "corpus" / row["path"]).read_text(encoding="utf-8")
            slots = judged_slots(text, rule, path=row["path"])
            out[f"{split.name}/{row['path']}"] = [[s.start, s.end, round(s.evidence, 3)] for s in slots]
    return out


def _covers(row: dict[str, Any], start: int, end: int) -> str:
    for span in row["spans"]:
        if span["start"] < end and start < span["end"]:
            return "credential " + str(span["context"]).split(":")[0]
    for span in row["negatives"]:
        if span["start"] < end and start < span["end"]:
            return "LOOK-ALIKE " + str(span["category"])
    return "UNLABELLED"


def diff(before: dict[str, Any], after: dict[str, Any], splits: list[Path]) -> tuple[Counter[str], list[str]]:
    """Counts of slots gained or changed (``+``) and lost or changed (``-``) per class, and one
    line for each that is not on a credential."""
    counts: Counter[str] = Counter()
    lines = []
    for split in splits:
        for row in split_rows(split):
            key = f"{split.name}/{row['path']}"
            old = {tuple(s) for s in before.get(key, [])}
            new = {tuple(s) for s in after.get(key, [])}
            if old == new:
                continue
            text = (split / "corpus" / row["path"]).read_text(encoding="utf-8")
            for sign, slots in (("+", new - old), ("-", old - new)):
                for start, end, evidence in sorted(slots):
                    kind = _covers(row, int(start), int(end))
                    counts[f"{sign} {kind}"] += 1
                    if not kind.startswith("credential"):
                        value = text[int(start):int(end)]
                        lines.append(f"{sign} {kind} {key} {masked(value)} evidence {evidence}")
    return counts, lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p_unread = sub.add_parser("unread", help="labelled credentials in files a scan never reads")
    p_unread.add_argument("splits", nargs="+", type=Path)
    p_dump = sub.add_parser("dump", help="judged slots of every file")
    p_dump.add_argument("--out", type=Path, required=True)
    p_dump.add_argument("splits", nargs="+", type=Path)
    p_diff = sub.add_parser("diff", help="slots two dumps disagree on, classed by their labels")
    p_diff.add_argument("before", type=Path)
    p_diff.add_argument("after", type=Path)
    p_diff.add_argument("splits", nargs="+", type=Path)
    a = ap.parse_args(argv)
    for split in a.splits:
        if not (split / "labels.jsonl").is_file():
            ap.error(f"{split} holds no labels.jsonl: build it with bench/multiformat_gen.py")
    if a.command == "unread":
        for split in a.splits:
            counts = unread(split)
            print(f"{split.name}: {sum(counts.values())} credentials unread" + "".join(
                f"; {k} {n}" for k, n in sorted(counts.items())))
    elif a.command == "dump":
        a.out.write_text(json.dumps(dump(a.splits)) + "\n", encoding="utf-8")
    else:
        for name in (a.before, a.after):
            if not name.is_file():
                ap.error(f"{name}: no such dump; write it with `mf_slots.py dump`")
        before = json.loads(a.before.read_text(encoding="utf-8"))
        after = json.loads(a.after.read_text(encoding="utf-8"))
        counts, lines = diff(before, after, a.splits)
        print("\n".join(lines))
        for kind, n in sorted(counts.items()):
            print(f"{n:6d} {kind}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
