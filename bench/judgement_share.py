#!/usr/bin/env python3
"""How much still needs the reference model: candidates and planned tokens, with and without
the cheap gate, and with the learned judgement.

    python bench/judgement_share.py [--judgement J.json] DIR [DIR ...]

For every text file under each DIR (a split's ``corpus`` or a package's unpacked tree; ``.git``
left out), the learned detector's cheap verdicts are counted (sure out, sure in, undecided) and
the pieces each detector plans are tokenized with the reference tokenizer (no model is run): the
rules' plan without the cheap gate (``cheap_gate = None``), the default plan (the rules behind the
gate), the learned judgement's plan (only the undecided slots), beside the whole files.
``--judgement`` defaults to the packaged judgement.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from smscan.detectors.credential import CredentialDetector, CredentialRule
from smscan.detectors.judgement.detector import LearnedCredentialDetector
from smscan.detectors.judgement.model import Judgement, packaged_judgement
from smscan.plan.pieces import plan_pieces
from smscan.records import Document


def main(argv: list[str] | None = None) -> int:
    from smscan.scoring.lazy import load_tokenizer_file, tokenize_with
    from smscan.model.source import resolve_model

    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("dirs", type=Path, nargs="+")
    ap.add_argument("--judgement", type=Path, help="a judgement file (default: the packaged one)")
    args = ap.parse_args(argv)
    tokenizer = load_tokenizer_file(resolve_model("default").folder / "tokenizer.json")
    judgement = (Judgement.from_json(args.judgement.read_text(), where=str(args.judgement))
                 if args.judgement else packaged_judgement())
    print("| folder | files | characters | candidates | sure out | sure in | undecided | tokens: whole files "
          "| rules without the gate | rules behind the gate (default) | learned plan |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for folder in args.dirs:
        learned = LearnedCredentialDetector(judgement=judgement)
        ungated = CredentialDetector(CredentialRule(cheap_gate=None))
        rules = CredentialDetector()
        counts = {"files": 0, "chars": 0, "slots": 0, "out": 0, "in": 0, "undecided": 0}
        tokens = {"whole": 0, "ungated": 0, "rules": 0, "learned": 0}
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and ".git" not in p.relative_to(folder).parts):
            try:
                text = path.read_text("utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            relative = path.relative_to(folder).as_posix()
            document = Document(relative, text, group=relative)
            verdicts = learned.verdicts(text, relative)
            counts["files"] += 1
            counts["chars"] += len(text)
            counts["slots"] += len(verdicts)
            counts["out"] += sum(v.log_odds <= judgement.sure_out for v in verdicts)
            counts["in"] += sum(v.log_odds >= judgement.sure_in for v in verdicts)
            for name, detector in (("ungated", ungated), ("rules", rules), ("learned", learned)):
                pieces = plan_pieces(document, [detector])
                tokens[name] += sum(len(s.nll) for s in tokenize_with(tokenizer, [p.text for p in pieces])) if pieces else 0
            tokens["whole"] += len(tokenize_with(tokenizer, [text])[0].nll) if text else 0
        counts["undecided"] = counts["slots"] - counts["out"] - counts["in"]
        slots = max(counts["slots"], 1)
        print(f"| {folder.as_posix()} | {counts['files']} | {counts['chars']:,} | {counts['slots']:,} | "
              f"{counts['out'] / slots:.3f} | {counts['in'] / slots:.3f} | {counts['undecided'] / slots:.3f} | "
              f"{tokens['whole']:,} | " + " | ".join(
                  f"{tokens[name]:,} ({tokens[name] / max(tokens['whole'], 1):.3f})" for name in ("ungated", "rules", "learned")
              ) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
