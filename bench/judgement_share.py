#!/usr/bin/env python3
"""How much still needs the reference model with the learned judgement: candidates and planned tokens.

    python bench/judgement_share.py --judgement J.json DIR [DIR ...]

For every text file under each DIR (a split's ``corpus`` or a package's unpacked tree), the
learned detector's cheap verdicts are counted (sure out, sure in, undecided) and the pieces each
detector plans are tokenized with the reference tokenizer (no model is run): the learned
judgement's plan (only the undecided slots) beside today's rules' plan and the whole files.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from smscan.detectors.credential import CredentialDetector
from smscan.detectors.judgement.detector import LearnedCredentialDetector
from smscan.detectors.judgement.model import Judgement
from smscan.plan.pieces import plan_pieces
from smscan.records import Document


def main(argv: list[str] | None = None) -> int:
    from smscan.scoring.lazy import load_tokenizer_file, tokenize_with
    from smscan.model.source import resolve_model

    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("dirs", type=Path, nargs="+")
    ap.add_argument("--judgement", type=Path, required=True)
    args = ap.parse_args(argv)
    tokenizer = load_tokenizer_file(resolve_model("default").folder / "tokenizer.json")
    judgement = Judgement.from_json(args.judgement.read_text(), where=str(args.judgement))
    print("| folder | files | characters | candidates | sure out | sure in | undecided | tokens: whole files | rules' plan | learned plan |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for folder in args.dirs:
        learned = LearnedCredentialDetector(judgement=judgement)
        rules = CredentialDetector()
        counts = {"files": 0, "chars": 0, "slots": 0, "out": 0, "in": 0, "undecided": 0}
        tokens = {"whole": 0, "rules": 0, "learned": 0}
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
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
            for name, detector in (("rules", rules), ("learned", learned)):
                pieces = plan_pieces(document, [detector])
                tokens[name] += sum(len(s.nll) for s in tokenize_with(tokenizer, [p.text for p in pieces])) if pieces else 0
            tokens["whole"] += len(tokenize_with(tokenizer, [text])[0].nll) if text else 0
        counts["undecided"] = counts["slots"] - counts["out"] - counts["in"]
        slots = max(counts["slots"], 1)
        print(f"| {folder.as_posix()} | {counts['files']} | {counts['chars']:,} | {counts['slots']:,} | "
              f"{counts['out'] / slots:.3f} | {counts['in'] / slots:.3f} | {counts['undecided'] / slots:.3f} | "
              f"{tokens['whole']:,} | {tokens['rules']:,} ({tokens['rules'] / max(tokens['whole'], 1):.3f}) | "
              f"{tokens['learned']:,} ({tokens['learned'] / max(tokens['whole'], 1):.3f}) |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
