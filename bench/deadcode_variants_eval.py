#!/usr/bin/env python3
"""Dead-code findings of the real CLI on a labelled MBPP set (bench/deadcode_variants_gen.py).

    python -m bench.deadcode_variants_eval --labels DIR/mbpp_dev.jsonl [--rule units=line] [--json OUT]
    python -m bench.deadcode_variants_eval --clean CODE_DIR [--rule ...]
    python -m bench.deadcode_variants_eval --labels DIR/js_dev.jsonl --suffix js   # bench/deadcode_js_gen.py

Writes each program to a temporary folder as ``<id>.py``, runs ``smscan files ... --kinds
dead-code --format json`` on them (the score cache of ``SMSCAN_SCORE_CACHE`` or the default one,
the packaged thresholds unless ``--thresholds``; ``--rule KEY=VALUE`` writes a thresholds file with
the packaged dead-code entry's rule changed), and prints line P/R/F1 (a finding covers every line
from its start to its end), recall per attack, how many poisoned programs have every poisoned
line found (whole blocks), and the lines reported that were not poisoned per 1,000 non-blank lines.
With ``--clean``, every ``.py`` file under a folder of real code nobody poisoned is the set (each
program clean): every finding is counted as a false alarm (some are real dead code). ``--suffix js``
(or ``ts``) writes and reads files of that suffix instead.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common.runs import run_json
from bench.common.sections import DOCUMENT, write_section
from bench.common.splits import read_rows
from smscan.rules.thresholds_file import packaged_thresholds

SECTION = "Dead code found by the CLI on a labelled set (bench.deadcode_variants_eval)"


def thresholds_with(changes: dict[str, Any], base: Path | None) -> dict[str, Any]:
    """A thresholds document whose dead-code rule has ``changes`` applied."""
    document = json.loads(base.read_text()) if base else packaged_thresholds()
    document["kinds"]["dead-code"]["rule"].update(changes)
    return document


def scan(records: list[dict[str, Any]], folder: Path, thresholds: Path | None, suffix: str = "py") -> dict[str, set[int]]:
    """Run the CLI on every program; 1-based lines each file's findings cover, by record id."""
    for record in records:
        (folder / f"{record['id']}.{suffix}").write_text(record["code"])
    args = ["files", *sorted(str(p) for p in folder.glob(f"*.{suffix}")), "--kinds", "dead-code"]
    if thresholds is not None:
        args += ["--thresholds", str(thresholds)]
    report = run_json(args, cwd=folder, report=folder / "report.json")
    found: dict[str, set[int]] = {}
    for finding in report["findings"]:
        lines = found.setdefault(Path(finding["path"]).stem, set())
        lines.update(range(finding["start"]["line"], finding["end"]["line"] + 1))
    return found


def measure(records: list[dict[str, Any]], found: dict[str, set[int]]) -> dict[str, Any]:
    tp = fp = fn = nonblank = whole = poisoned_programs = 0
    by_attack: dict[str, list[int]] = {}
    false_lines = []
    for record in records:
        code_lines = record["code"].split("\n")
        content = {i for i, line in enumerate(code_lines, start=1) if line.strip()}
        nonblank += len(content)
        truth = set(record["poisoned_lines"])
        reported = found.get(record["id"], set()) & content
        tp += len(reported & truth)
        fn += len(truth - reported)
        fp += len(reported - truth)
        false_lines += [f"{record['id']}:{line}: {code_lines[line - 1].strip()[:70]}" for line in sorted(reported - truth)]
        if truth:
            poisoned_programs += 1
            whole += truth <= reported
            hits = by_attack.setdefault(record["attack"], [0, 0])
            hits[0] += len(truth & reported)
            hits[1] += len(truth)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return {
        "tp": tp, "fp": fp, "fn": fn, "precision": round(precision, 4), "recall": round(recall, 4),
        "f1": round(2 * precision * recall / (precision + recall), 4) if precision + recall else 0.0,
        "recall_by_attack": {name: round(h / t, 4) for name, (h, t) in sorted(by_attack.items())},
        "whole_blocks": f"{whole} of {poisoned_programs}", "nonblank_lines": nonblank,
        "false_per_1000_lines": round(1000 * fp / max(nonblank, 1), 3), "false_lines": false_lines,
    }


def read_clean(folder: Path, suffix: str = "py") -> list[dict[str, Any]]:
    """Every ``.<suffix>`` file under ``folder`` as a clean record (its id: the path, ``/`` as ``__``)."""
    records = []
    for path in sorted(folder.rglob(f"*.{suffix}")):
        code = path.read_text(encoding="utf-8", errors="replace")
        rel = path.relative_to(folder).as_posix().removesuffix(f".{suffix}").replace("/", "__")
        records.append({"id": rel, "code": code, "poisoned_lines": [], "attack": "clean"})
    return records


def markdown(name: str, result: dict[str, Any]) -> str:
    """The figures of one run as a table row, and recall per attack."""
    lines = ["| set | P | R | F1 | whole blocks | false lines / 1,000 non-blank |", "|---|---|---|---|---|---|",
             f"| {name} | {result['precision']:.3f} | {result['recall']:.3f} | {result['f1']:.3f} | "
             f"{result['whole_blocks']} | {result['false_per_1000_lines']:.2f} ({result['fp']} in "
             f"{result['nonblank_lines']:,}) |"]
    if result["recall_by_attack"]:
        lines += ["", "Recall per attack: " + ", ".join(
            f"{attack} {recall:.3f}" for attack, recall in result["recall_by_attack"].items()) + "."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--labels", type=Path, help="a set written by bench/deadcode_variants_gen.py")
    source.add_argument("--clean", type=Path, help="a folder of real code: its .py files, all clean")
    parser.add_argument("--thresholds", type=Path, help="thresholds file (default: the packaged one)")
    parser.add_argument("--rule", action="append", default=[], help="KEY=VALUE change to the dead-code rule")
    parser.add_argument("--only-attacks", help="comma-separated attacks to keep (and clean programs)")
    parser.add_argument("--suffix", default="py", help="the programs' file suffix (js, ts: bench/deadcode_js_gen.py)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--write", type=Path, nargs="?", const=DOCUMENT, metavar="FILE",
                        help=f"also write the table as the section \"## {SECTION}\" of FILE (default docs/BENCHMARKS.md)")
    args = parser.parse_args(argv)
    records = read_clean(args.clean, args.suffix) if args.clean else read_rows(args.labels)
    if args.only_attacks:
        keep = set(args.only_attacks.split(",")) | {"clean"}
        records = [r for r in records if r["attack"] in keep]
    with tempfile.TemporaryDirectory() as folder:
        thresholds = args.thresholds
        if args.rule:
            changes = {k: json.loads(v) if v[:1] in "0123456789-tfn[{" else v
                       for k, v in (item.split("=", 1) for item in args.rule)}
            thresholds = Path(folder) / "thresholds.json"
            thresholds.write_text(json.dumps(thresholds_with(changes, args.thresholds)))
        programs = Path(folder) / "py"
        programs.mkdir()
        result = measure(records, scan(records, programs, thresholds, args.suffix))
    print(json.dumps({k: v for k, v in result.items() if k != "false_lines"}, indent=1))
    for line in result["false_lines"][:40]:
        print("  false:", line)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    if args.write:
        name = args.labels.name if args.labels else f"{args.clean.name} (clean)"
        write_section(SECTION, markdown(name, result), module="bench.deadcode_variants_eval", argv=argv,
                      document=args.write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
