#!/usr/bin/env python3
"""Score smscan, detect-secrets and CredSweeper on a multi-format split, per tool and per file format.

    python bench/multiformat_eval.py --data DATA --tools smscan,detect-secrets,credsweeper \\
        --peers-python PEERS/bin/python --work /tmp/NAME/mf-eval [--limit N] [--json OUT]

DATA is a folder written by ``bench/multiformat_gen.py``. The tools run through the shared
scorer's adapters (``shared/bench/secrets_eval/run.py``, found beside the checkout or given with
``--shared``) on a copy of DATA under ``--work`` (``--limit N`` copies only the first N files: a
dry run), so DATA itself is never written. The matching is the shared scorer's: a credential is
found when any of its characters is flagged, character precision is pooled over all characters,
and a look-alike is flagged when any of its characters is. Printed as Markdown:

- per tool: character P/R/F1, credential recall, share of look-alikes flagged, share of files
  without credentials flagged, seconds per file;
- per format: credential recall and share of look-alikes flagged of each tool;
- per context (how the credential is written) and per look-alike category;
- how many credentials lie in files smscan's default selection skips by path (a vendored folder,
  a lock file, a bundle): smscan never reads those, so they bound its recall on a split.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from types import ModuleType
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common.sections import DOCUMENT, write_section
from bench.common.splits import find_shared, load_scorer, per_format, split_rows, write_split

TOOLS = ("smscan", "detect-secrets", "credsweeper")
SMSCAN_CMD = "{python} -m smscan repo {{path}} --format json -o {{out}} --kinds credential"
SECTION = "Multi-format credentials per tool and file type (bench.multiformat_eval)"


def copy_split(data: Path, work: Path, limit: int | None) -> Path:
    rows = split_rows(data)
    if limit:
        rows = rows[:limit]
    dst = work / "data"
    write_split(data, rows, dst)
    if (data / "manifest.json").exists():
        shutil.copyfile(data / "manifest.json", dst / "manifest.json")
    return dst


def run_tool(tool: str, data: Path, *, shared: Path, work: Path, peers_python: str | None, smscan_cmd: str) -> None:
    cmd = [sys.executable, str(shared / "run.py"), tool, "--data", str(data)]
    if tool == "smscan":
        cmd += ["--cmd", smscan_cmd, "--kinds", "credential"]
    else:
        if not peers_python:
            raise SystemExit(f"{tool} needs --peers-python (a venv with detect-secrets==1.5.0 credsweeper==1.19.5)")
        cmd += ["--python", peers_python, "--repeat", "1"]
    env = dict(os.environ, SECRETS_EVAL_RESULTS=str(work / "shared-results"))
    subprocess.run(cmd, check=True, env=env, stdout=sys.stderr)  # stdout is the tables


def context_of(span: dict[str, Any]) -> str:
    return str(span["context"]).split(":")[0]


def measure(score: ModuleType, split: Any, files: dict[str, list[list[int]]], wall_s: float | None) -> dict[str, Any]:
    """The shared scorer's figures overall and per format, plus recall per context."""
    out: dict[str, Any] = {"overall": score.score(split, files, wall_s)}
    out["per_format"] = {fmt: score.score(sub, files, None) for fmt, sub in per_format(split)}
    contexts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in split.rows:
        pred = score.merge([(s, e) for s, e in files.get(r["path"], [])])
        groups: dict[int, list[dict[str, Any]]] = defaultdict(list)
        for s in r["spans"]:
            groups[s["secret_id"]].append(s)
        for g in groups.values():
            c = contexts[context_of(g[0])]
            c[0] += 1
            c[1] += any(score.hits((s["start"], s["end"]), pred) > 0 for s in g)
    out["per_context"] = {k: {"secrets": n, "found": f, "recall": round(f / n, 4)} for k, (n, f) in sorted(contexts.items())}
    return out


def default_skips(rows: list[dict[str, Any]]) -> Counter[str]:
    """Credentials per "format reason" in files smscan's default selection skips by path."""
    from smscan.sources.selection import Selection

    selection = Selection()  # the defaults: vendored folders, lock files and bundles skipped
    out: Counter[str] = Counter()
    for r in rows:
        skip = selection.skip_by_path(r["path"])
        if skip and r["spans"]:
            out[f"{r['ext_class']} {skip.reason}"] += len({s["secret_id"] for s in r["spans"]})
    return out


def _cell(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def markdown(results: dict[str, dict[str, Any]], skips: Counter[str] | None = None) -> str:
    tools = list(results)
    first = results[tools[0]]["overall"]
    lines = [f"{first['files']} files, {first['secrets']} credentials, {first['hard_negatives']} look-alikes."]
    if skips:
        lines.append(f"{sum(skips.values())} credentials lie in files smscan's default selection skips by path: "
                     + ", ".join(f"{k} {n}" for k, n in sorted(skips.items())) + ".")
    lines += ["",
             "| tool | char P | char R | char F1 | credential recall | look-alikes flagged | clean files flagged | s/file |",
             "|---|---|---|---|---|---|---|---|"]
    for t in tools:
        m = results[t]["overall"]
        spf = f"{m['wall_s'] / m['files']:.3f}" if m.get("wall_s") else "-"
        lines.append(f"| {t} | {m['char']['precision']:.3f} | {m['char']['recall']:.3f} | {m['char']['f1']:.3f} | "
                     f"{m['secret_recall']:.3f} | {m['hard_negative_fp_rate']:.3f} | {m['clean_file_fp_rate']:.3f} | {spf} |")
    formats = sorted({f for t in tools for f in results[t]["per_format"]})
    lines += ["", "Per format: credential recall / share of look-alikes flagged (n = credentials, look-alikes).", "",
              "| format | n | " + " | ".join(tools) + " |", "|---|---|" + "---|" * len(tools)]
    for f in formats:
        m0 = results[tools[0]]["per_format"][f]
        cells = []
        for t in tools:
            m = results[t]["per_format"][f]
            cells.append(f"{_cell(m['secret_recall'] if m['secrets'] else None)} / "
                         f"{_cell(m['hard_negative_fp_rate'] if m['hard_negatives'] else None)}")
        lines.append(f"| {f} | {m0['secrets']}, {m0['hard_negatives']} | " + " | ".join(cells) + " |")
    contexts = sorted({c for t in tools for c in results[t]["per_context"]})
    lines += ["", "Credential recall per context (how the value is written).", "",
              "| context | n | " + " | ".join(tools) + " |", "|---|---|" + "---|" * len(tools)]
    for c in contexts:
        n = results[tools[0]]["per_context"][c]["secrets"]
        lines.append(f"| {c} | {n} | " + " | ".join(_cell(results[t]["per_context"][c]["recall"]) for t in tools) + " |")
    cats = sorted({c for t in tools for c in results[t]["overall"]["per_negative_category"]})
    lines += ["", "Share of look-alikes flagged per category.", "",
              "| look-alike | n | " + " | ".join(tools) + " |", "|---|---|" + "---|" * len(tools)]
    for c in cats:
        n = results[tools[0]]["overall"]["per_negative_category"][c]["spans"]
        lines.append(f"| {c} | {n} | " + " | ".join(_cell(results[t]["overall"]["per_negative_category"][c]["fp_rate"]) for t in tools) + " |")
    cats = sorted({c for t in tools for c in results[t]["overall"]["per_category"]})
    lines += ["", "Credential recall per category.", "",
              "| category | n | " + " | ".join(tools) + " |", "|---|---|" + "---|" * len(tools)]
    for c in cats:
        n = results[tools[0]]["overall"]["per_category"][c]["secrets"]
        lines.append(f"| {c} | {n} | " + " | ".join(_cell(results[t]["overall"]["per_category"][c]["recall"]) for t in tools) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True, help="a split written by bench/multiformat_gen.py")
    ap.add_argument("--tools", default=",".join(TOOLS), help=f"comma-separated, of {', '.join(TOOLS)}")
    ap.add_argument("--work", type=Path, required=True, help="folder for the copy of the split and the predictions")
    ap.add_argument("--peers-python", help="python of the venv holding detect-secrets and credsweeper")
    ap.add_argument("--smscan-cmd", default=SMSCAN_CMD.format(python=sys.executable),
                    help="command run by the shared adapter ({path}, {out})")
    ap.add_argument("--shared", type=Path, default=None, help="shared/bench/secrets_eval (default: found beside the checkout)")
    ap.add_argument("--limit", type=int, help="copy only the first N files (a dry run)")
    ap.add_argument("--score-only", action="store_true", help="score the predictions already under --work")
    ap.add_argument("--json", type=Path, help="write all figures here")
    ap.add_argument("--write", type=Path, nargs="?", const=DOCUMENT, metavar="FILE",
                    help=f"also write the tables as the section \"## {SECTION}\" of FILE (default docs/BENCHMARKS.md)")
    a = ap.parse_args(argv)
    tools = [t for t in a.tools.split(",") if t]
    unknown = [t for t in tools if t not in TOOLS]
    if unknown or not tools:
        ap.error(f"unknown tool(s) {', '.join(unknown) or '(none)'}; choose from {', '.join(TOOLS)}")
    if not (a.data / "labels.jsonl").exists():
        ap.error(f"{a.data} holds no labels.jsonl: build it with bench/multiformat_gen.py")
    shared = a.shared or find_shared()
    if shared is None or not (shared / "run.py").exists():
        ap.error("shared/bench/secrets_eval not found beside the checkout: pass --shared")
    score = load_scorer(shared)
    data = a.work / "data" if a.score_only else copy_split(a.data, a.work, a.limit)
    split = score.Split(data)
    results = {}
    for tool in tools:
        if not a.score_only:
            run_tool(tool, data, shared=shared, work=a.work, peers_python=a.peers_python, smscan_cmd=a.smscan_cmd)
        pred = json.loads((data / "preds" / f"{tool}.json").read_text())
        results[tool] = measure(score, split, pred["files"], pred.get("wall_s"))
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps(results, indent=1) + "\n")
    text = markdown(results, default_skips(split.rows))
    print(text)
    if a.write:
        write_section(SECTION, text, module="bench.multiformat_eval", argv=argv, document=a.write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
