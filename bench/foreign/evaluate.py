"""``eval``: one tool's credential recall, look-alikes flagged and character F1 on the foreign examples, per source.

The examples are written as a split folder under ``--work`` and scanned there by the shared scorer's
adapters (``shared/bench/secrets_eval/run.py``: smscan through ``--smscan-cmd``, detect-secrets,
CredSweeper and Betterleaks through ``--peers-python``); the matching is the shared scorer's, the
same as every other credential figure of the project (a credential is found when any of its
characters is flagged, a look-alike is flagged when any of its characters is).

Leave-one-source-out: ``--leave-out S`` scores only source S (tune on the others, e.g. with
``load_examples(data, exclude=S)``); ``--only A,B`` scores a chosen set.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from bench.common.splits import find_shared, load_scorer
from bench.multiformat_eval import run_tool

from .examples import Example, read_jsonl, write_split

TOOLS = ("smscan", "detect-secrets", "credsweeper", "betterleaks")
SMSCAN_CMD = "{python} -m smscan repo {{path}} --format json -o {{out}} --kinds credential"


def load_examples(data: Path, *, only: list[str] | None = None, exclude: str | None = None,
                  limit: int | None = None) -> list[Example]:
    """The examples of DATA/examples.jsonl, optionally of some sources only or without one (leave-one-out).

    Args:
        data: a folder written by ``python -m bench.foreign build``.
        only: keep these sources only.
        exclude: drop this source (train on the rest, measure on it).
        limit: at most this many examples per source, a sample spread over its rules (the same every run).

    Returns:
        The examples, in file order.
    """
    kept = [ex for ex in read_jsonl(data / "examples.jsonl")
            if not (only and ex.source not in only) and ex.source != exclude]
    if limit is None:
        return kept
    chosen: set[tuple[str, str]] = set()
    for source in {ex.source for ex in kept}:
        ranked = sorted((ex for ex in kept if ex.source == source), key=lambda ex: sample_key(ex))
        chosen.update((ex.source, ex.id) for ex in ranked[:limit])
    return [ex for ex in kept if (ex.source, ex.id) in chosen]


def sample_key(ex: Example) -> str:
    """A stable pseudo-random order (a hash of the id), so a sample spreads over all rules of a source."""
    return hashlib.sha1(f"{ex.source}/{ex.id}".encode()).hexdigest()


def subset(split: Any, rows: list[dict[str, Any]]) -> Any:
    sub = object.__new__(type(split))
    sub.__dict__.update(split.__dict__)
    sub.rows = rows
    sub.bytes = sum(len(split.texts[r["path"]].encode("utf-8")) for r in rows)
    return sub


def measure(score: ModuleType, split: Any, files: dict[str, list[list[int]]], wall_s: float | None) -> dict[str, Any]:
    out: dict[str, Any] = {"all": score.score(split, files, wall_s)}
    for source in sorted({r["source"] for r in split.rows}):
        out[source] = score.score(subset(split, [r for r in split.rows if r["source"] == source]), files, None)
    return out


def markdown(tool: str, results: dict[str, Any]) -> str:
    lines = [f"Tool: {tool}. Recall also on realistic values alone and on patterned stand-ins (abcd1234..., "
             "FakeValues...), n in brackets.", "",
             "| source | credentials | look-alikes | credential recall | realistic | patterned | look-alikes flagged | "
             "char P | char R | char F1 |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for source, m in results.items():
        cat = m["per_category"]
        cells = [f"{cat[c]['recall']:.3f} ({cat[c]['secrets']})" if c in cat else "-" for c in ("realistic", "patterned")]
        lines.append(f"| {source} | {m['secrets']} | {m['hard_negatives']} | {m['secret_recall']:.3f} | {cells[0]} | "
                     f"{cells[1]} | {m['hard_negative_fp_rate']:.3f} | {m['char']['precision']:.3f} | "
                     f"{m['char']['recall']:.3f} | {m['char']['f1']:.3f} |")
    return "\n".join(lines) + "\n"


def eval_cmd(a: argparse.Namespace) -> int:
    if a.tool not in TOOLS:
        print(f"error: unknown tool {a.tool}; choose from {', '.join(TOOLS)}", file=sys.stderr)
        return 2
    if not (a.data / "examples.jsonl").exists():
        print(f"error: {a.data} holds no examples.jsonl: build it with python -m bench.foreign build", file=sys.stderr)
        return 2
    shared = find_shared()
    if shared is None:
        print("error: shared/bench/secrets_eval not found beside the checkout", file=sys.stderr)
        return 2
    score = load_scorer(shared)
    only = [a.leave_out] if a.leave_out else ([s for s in a.only.split(",") if s] if a.only else None)
    data = a.work / "data"
    if not a.score_only:
        examples = load_examples(a.data, only=only, limit=a.limit)
        if not examples:
            print(f"error: no examples of {', '.join(only or [])} in {a.data}", file=sys.stderr)
            return 2
        write_split(examples, data)
        if a.tool != "smscan" and not a.peers_python:
            print(f"error: {a.tool} needs --peers-python", file=sys.stderr)
            return 2
        t0 = time.time()
        run_tool(a.tool, data, shared=shared, work=a.work, peers_python=a.peers_python,
                 smscan_cmd=a.smscan_cmd or SMSCAN_CMD.format(python=sys.executable))
        print(f"{a.tool}: {time.time() - t0:.0f} s", file=sys.stderr)
    if not (data / "preds" / f"{a.tool}.json").exists():
        print(f"error: no predictions of {a.tool} under {data / 'preds'}: run without --score-only", file=sys.stderr)
        return 2
    split = score.Split(data)
    pred = json.loads((data / "preds" / f"{a.tool}.json").read_text())
    results = measure(score, split, pred["files"], pred.get("wall_s"))
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps({"tool": a.tool, "results": results}, indent=1) + "\n")
    print(markdown(a.tool, results))
    return 0


def side_by_side(runs: list[tuple[str, dict[str, Any]]]) -> str:
    """One table of several eval runs (``--json`` files): per source, credential recall (realistic values
    only) / look-alikes flagged / char F1 of each run, e.g. today's rules beside a learned judgement."""
    sources = [s for s in runs[0][1] if all(s in r for _, r in runs)]
    names = [n for n, _ in runs]
    lines = ["Per source: credential recall (realistic values only) / look-alikes flagged / char F1.", "",
             "| source | credentials, look-alikes | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    for source in sources:
        first = runs[0][1][source]
        cells = []
        for _, r in runs:
            m = r[source]
            real = m["per_category"].get("realistic", {}).get("recall")
            cells.append(f"{m['secret_recall']:.2f} ({'-' if real is None else f'{real:.2f}'}) / "
                         f"{m['hard_negative_fp_rate']:.2f} / {m['char']['f1']:.2f}")
        lines.append(f"| {source} | {first['secrets']}, {first['hard_negatives']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def table_cmd(a: argparse.Namespace) -> int:
    runs = []
    for path in a.json_files:
        if not path.exists():
            print(f"error: no eval figures at {path}: write them with eval --json", file=sys.stderr)
            return 2
        doc = json.loads(path.read_text())
        runs.append((doc.get("tool", path.stem), doc["results"]))
    if a.names:
        names = a.names.split(",")
        if len(names) != len(runs):
            print(f"error: --names gives {len(names)} names for {len(runs)} files", file=sys.stderr)
            return 2
        runs = [(n, r) for n, (_, r) in zip(names, runs)]
    print(side_by_side(runs))
    return 0
