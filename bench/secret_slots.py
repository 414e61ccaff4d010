#!/usr/bin/env python3
"""Slots judged with a secret name's evidence in every text file of a folder: no model, seconds.

    python bench/secret_slots.py FOLDER > SLOTS.txt

For a folder of files with no labels (smscan's own docs and calibration files, say): every value
that the model-free judgement (:func:`smscan.detectors.credential_evidence.judged_slots`) keeps
with at least the secret bonus, one line each (path, offset, kind of place, the value masked as
smscan's reports mask it: its length, and a four-character prefix only when long), then the count
on stderr. Run it once per checkout (``PYTHONPATH=CHECKOUT``) and ``diff`` the two outputs: a name
of a thing that gains secret evidence shows as a new line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common.listings import slot_line


def secret_slots(folder: Path) -> list[str]:
    """One line per slot with secret evidence, files in path order, values masked."""
    from smscan.detectors.credential_evidence import judged_slots
    from smscan.detectors.credential_rule import CredentialRule

    rule = CredentialRule()
    lines = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        name = path.relative_to(folder).as_posix()
        for slot in judged_slots(text, rule, path=name):
            if slot.evidence >= rule.secret_bonus:
                lines.append(slot_line(f"{name}:{slot.start}", text[slot.start : slot.end], place=slot.where,
                                       evidence=slot.evidence))
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("folder", type=Path)
    a = ap.parse_args(argv)
    if not a.folder.is_dir():
        ap.error(f"{a.folder}: no such folder")
    lines = secret_slots(a.folder)
    print("\n".join(lines))
    print(f"{len(lines)} slots with secret evidence", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
