#!/usr/bin/env python3
"""Issue #12's "keep what works" figures for one checkout, in one command.

    OMP_NUM_THREADS=1 SMSCAN_SCORE_CACHE=CACHE python -m bench.keep_what_works \\
        --code DATA --work DIR [--formats MFDATA] [--max-chars 6000] [--min-per-type 3] [--json OUT]

``--code`` is a credential set on code written by ``shared/bench/secrets_gen.py`` (the held-out
one of docs/BENCHMARKS.md: seed 2, ``bench/heldout_packages.txt``); ``--formats`` an optional
split of ``bench/multiformat_gen.py`` (any split: this script reads no labels but its own
arguments'). Only the files up to ``--max-chars`` characters (and, of ``--formats``, the
``--min-per-type`` shortest files of each type) are copied to ``DIR`` and scanned
(``smscan repo --kinds credential``, packaged thresholds, through the shared scorer's smscan
adapter), so a stated, fixed subset can be rerun cheaply from the score cache. Prints:

1. on code: character P/R/F1 and the hard-negative false-positive rate (the share of injected
   look-alikes with any flagged character), as the shared scorer computes them;
2. false alarms per 1,000 lines: flagged spans that touch no labelled secret, over every line of
   the scanned files, and over the lines of the files that hold no secret (clean code);
3. look-alikes flagged per file type of ``--formats`` next to the rate on code (issue #12: no
   higher than on code), and the same false-alarm rate per file type.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from bench.common.sections import DOCUMENT, write_section
from bench.common.splits import find_shared, load_scorer, per_format, read_manifest, split_rows, write_split
from bench.multiformat_eval import SMSCAN_CMD, run_tool

SECTION = "Keep what works: credentials on code and per file type (bench.keep_what_works)"


def copy_subset(data: Path, dst: Path, max_chars: int | None, min_per_type: int = 0) -> int:
    """Copy the labelled files of ``data`` up to ``max_chars`` characters to ``dst``, and the
    ``min_per_type`` shortest of each file type however long (so no type drops out)."""
    rows = split_rows(data)
    size = {r["path"]: len((data / "corpus" / r["path"]).read_bytes().decode("utf-8")) for r in rows}
    shortest: set[str] = set()
    for fmt in {r["ext_class"] for r in rows}:
        of_type = sorted((size[r["path"]], r["path"]) for r in rows if r["ext_class"] == fmt)
        shortest |= {path for _, path in of_type[:min_per_type]}
    kept = [r for r in rows if max_chars is None or size[r["path"]] <= max_chars or r["path"] in shortest]
    write_split(data, kept, dst)
    manifest = read_manifest(data)
    name = manifest.get("generator", "data").split()[0]
    (dst / "manifest.json").write_text(json.dumps({**manifest, "generator": f"{name}-keep", "subset_files": len(kept)}) + "\n")
    return len(kept)


def false_alarms(score: ModuleType, split: Any, files: dict[str, list[list[int]]], rows: list[dict[str, Any]]) -> dict[str, float]:
    """Flagged spans touching no labelled secret, per 1,000 lines (all files, and files with no secret)."""
    alarms = clean_alarms = lines = clean_lines = 0
    for row in rows:
        path = row["path"]
        text = split.texts[path]
        count = text.count("\n") + (not text.endswith("\n"))
        spans = score.merge([(s, e) for s, e in files.get(path, [])])
        outside = sum(1 for s, e in spans if score.hits((s, e), split.pos[path]) == 0)
        alarms, lines = alarms + outside, lines + count
        if not row["spans"]:
            clean_alarms, clean_lines = clean_alarms + outside, clean_lines + count
    return {"lines": lines, "false_alarms": alarms, "per_1000_lines": round(1000 * alarms / max(lines, 1), 3),
            "clean_lines": clean_lines, "clean_false_alarms": clean_alarms,
            "clean_per_1000_lines": round(1000 * clean_alarms / max(clean_lines, 1), 3)}


def measure(score: ModuleType, data: Path) -> dict[str, Any]:
    split = score.Split(data)
    files = json.loads((data / "preds" / "smscan.json").read_text())["files"]
    overall = score.score(split, files, None)
    out: dict[str, Any] = {"overall": overall, "alarms": false_alarms(score, split, files, split.rows), "per_format": {}}
    for fmt, sub in per_format(split):
        out["per_format"][fmt] = {**score.score(sub, files, None), "alarms": false_alarms(score, sub, files, sub.rows)}
    return out


def scan(data: Path, dst: Path, *, max_chars: int | None, min_per_type: int, shared: Path, work: Path) -> int:
    files = copy_subset(data, dst, max_chars, min_per_type)
    run_tool("smscan", dst, shared=shared, work=work, peers_python=None,
             smscan_cmd=SMSCAN_CMD.format(python=sys.executable))
    return files


def _set_row(name: str, figures: dict[str, Any]) -> str:
    m, a = figures["overall"], figures["alarms"]
    return (f"| {name} | {m['files']} | {a['lines']} | {m['char']['precision']:.3f} | {m['char']['recall']:.3f} | "
            f"{m['char']['f1']:.3f} | {m['secret_recall']:.3f} | {m['hard_negative_fp_rate']:.3f} | "
            f"{a['per_1000_lines']:.2f} ({a['false_alarms']}) | "
            f"{a['clean_per_1000_lines']:.2f} ({a['clean_false_alarms']} in {a['clean_lines']} lines) |")


def markdown(code: dict[str, Any], formats: dict[str, Any] | None) -> str:
    header = ("| set | files | lines | char P | char R | char F1 | secret recall | hard-neg FP | "
              "false alarms / 1,000 lines | on clean files |")
    lines = [header, "|---|---|---|---|---|---|---|---|---|---|", _set_row("code", code)]
    if formats is None:
        return "\n".join(lines) + "\n"
    lines.append(_set_row("formats", formats))
    code_rate = code["overall"]["hard_negative_fp_rate"]
    against = f"against {code_rate:.3f} on code ({code['overall']['hard_negatives']} hard negatives)"
    lines += ["", f"Look-alikes flagged per file type, {against}:", "",
              "| file type | files | look-alikes | flagged | no higher than code | false alarms / 1,000 lines |",
              "|---|---|---|---|---|---|"]
    for fmt, f in formats["per_format"].items():
        rate = f["hard_negative_fp_rate"] if f["hard_negatives"] else 0.0
        lines.append(f"| {fmt} | {f['files']} | {f['hard_negatives']} | {rate:.3f} | "
                     f"{'yes' if rate <= code_rate else 'NO'} | {f['alarms']['per_1000_lines']:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--code", type=Path, required=True, help="a set written by shared/bench/secrets_gen.py")
    ap.add_argument("--formats", type=Path, help="a split written by bench/multiformat_gen.py")
    ap.add_argument("--work", type=Path, required=True, help="folder for the copies and the predictions")
    ap.add_argument("--max-chars", type=int, default=6000, help="scan only the files up to this many characters (0: all)")
    ap.add_argument("--min-per-type", type=int, default=3,
                    help="of --formats, also scan the N shortest files of each file type, however long")
    ap.add_argument("--shared", type=Path, default=None, help="shared/bench/secrets_eval (default: found beside the checkout)")
    ap.add_argument("--json", type=Path, help="write all figures here")
    ap.add_argument("--write", type=Path, nargs="?", const=DOCUMENT, metavar="FILE",
                    help=f"also write the tables as the section \"## {SECTION}\" of FILE (default docs/BENCHMARKS.md)")
    a = ap.parse_args(argv)
    for data in (a.code, a.formats):
        if data is not None and not (data / "labels.jsonl").exists():
            ap.error(f"{data} holds no labels.jsonl")
    shared = a.shared or find_shared()
    if shared is None or not (shared / "run.py").exists():
        ap.error("shared/bench/secrets_eval not found beside the checkout: pass --shared")
    if "SMSCAN_SCORE_CACHE" not in os.environ:
        print("note: SMSCAN_SCORE_CACHE is not set; every file is scored again", file=sys.stderr)
    score = load_scorer(shared)
    max_chars = a.max_chars or None
    scan(a.code, a.work / "code", max_chars=max_chars, min_per_type=0, shared=shared, work=a.work)
    code = measure(score, a.work / "code")
    formats = None
    if a.formats is not None:
        scan(a.formats, a.work / "formats", max_chars=max_chars, min_per_type=a.min_per_type, shared=shared, work=a.work)
        formats = measure(score, a.work / "formats")
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps({"code": code, "formats": formats, "max_chars": max_chars, "min_per_type": a.min_per_type}, indent=1) + "\n")
    text = markdown(code, formats)
    print(text)
    if a.write:
        write_section(SECTION, text, module="bench.keep_what_works", argv=argv, document=a.write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
