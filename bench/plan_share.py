#!/usr/bin/env python3
"""How much of a corpus the scoring plan sends to the model: planned tokens / whole-file tokens.

    python -m bench.plan_share DIR_OR_LABELS.jsonl [...] [--kinds credential,dead-code] [--context 128]

Tokenizer only (the default model's ``tokenizer.json``; no weights are run). A folder is read the
way ``smscan repo`` reads it (``iter_worktree``, the default size limit); a labels file gives its
texts. For each input prints files, whole-file tokens, planned tokens (the pieces
``smscan.plan.pieces.plan_pieces`` gives for the kinds, each tokenized on its own as the scan scores
it) and their share, split by what asked for it: credential values, dead-code evidence lines, and
whole files (dead code outside parseable Python).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from smscan.sources.labels import read_labels
from smscan.detectors import make_detector
from smscan.plan.pieces import plan_pieces
from smscan.records import Document
from smscan.plan.regions import pieces_for_targets


def documents_of(source: Path) -> list[Document]:
    if source.is_dir():
        from smscan.sources.worktree import iter_worktree

        return [d for d in iter_worktree(source, max_file_bytes=1_000_000) if isinstance(d, Document)]
    return [Document(d.name, d.text) for d in read_labels(source)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sources", nargs="+", type=Path)
    parser.add_argument("--kinds", default="credential,dead-code")
    parser.add_argument("--context", type=int, nargs="+", default=[128], help="left context chars to compare")
    parser.add_argument("--tokenizer", type=Path,
                        default=Path.home() / ".cache/smscan/models/SmolLM2-135M-Instruct/tokenizer.json")
    args = parser.parse_args()
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(args.tokenizer))

    def count(texts: list[str]) -> int:
        return sum(len(e.ids) for e in tokenizer.encode_batch(texts, add_special_tokens=False)) if texts else 0

    detectors = [make_detector(kind) for kind in args.kinds.split(",")]
    print("| input | context chars | files | whole tokens | planned tokens | share | credential-only plan | whole files planned |")
    print("|---|---|---|---|---|---|---|---|")
    for source in args.sources:
        documents = documents_of(source)
        whole = count([d.text for d in documents])
        for context in args.context:
            planned = credential_only = 0
            whole_files = 0
            for document in documents:
                pieces = plan_pieces(document, detectors)
                if context != 128:  # the same targets, another context
                    targets: list[tuple[int, int]] = []
                    for detector in detectors:
                        if detector.applies_to(document.path):
                            wanted = detector.regions(document.text, document.path)
                            if wanted is None:
                                targets = [(0, len(document.text))]
                                break
                            targets.extend(wanted)
                    pieces = pieces_for_targets(document, targets, context_chars=context)
                if len(pieces) == 1 and pieces[0].offset == 0 and len(pieces[0].text) == len(document.text):
                    whole_files += 1
                planned += count([p.text for p in pieces])
                credential = [d for d in detectors if d.kind == "credential"]
                if credential:
                    wanted = credential[0].regions(document.text, document.path) or []
                    credential_only += count([p.text for p in pieces_for_targets(document, wanted, context_chars=context)])
            print(f"| {source.name} | {context} | {len(documents)} | {whole:,} | {planned:,} | {planned / max(whole, 1):.3f} | "
                  f"{credential_only / max(whole, 1):.3f} | {whole_files} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
