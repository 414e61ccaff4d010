"""Where a warm worker's hook request spends its time: the request function in this process.

Runs ``smscan.worker.scan_service.run_scan_request`` (what ``smscan serve`` runs for a thin
client's ``staged``) with the real default model behind a fresh score cache, on the changes
``bench.hook_latency`` makes (the ``requests`` sdist, stdlib functions appended to 5 files), and
prints per request the wall time, the time outside the model, the tokens scored, and the p50 of a
few stages (git, planning, the slot search, the Python analysis, the slot judgement). With
``--answers FILE`` it saves each answer (less the digest and the timings), so two commits can be
compared for identical findings, scores and stats; ``--profile`` adds cProfile's top functions.

    python -m bench.hook_profile --runs 16 --answers /tmp/a.jsonl [--profile]
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.hook_latency import STRIDE
from bench.speed import SMALL_SDIST, Bench, git, reset_repo, sdist_repo, tracked_files, write_change

# (module, function, label): each is timed where the request calls it (absent ones are skipped).
STAGES = (
    ("smscan.worker.scan_service", "_items", "git: the staged documents"),
    ("smscan.judge.stage", "plan_pieces", "planning (all of the below)"),
    ("smscan.detectors.slots", "_slots_of", "  slot search"),
    ("smscan.detectors.python_dead", "_analyse", "  Python analysis"),
    ("smscan.detectors.credential_evidence", "judge_slot", "  slot judgement"),
)


def _timed(spent: dict[str, float], label: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            spent[label] += time.perf_counter() - started

    return timed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=16, help="timed requests (after one untimed)")
    parser.add_argument("--answers", type=Path, help="save each answer here, one JSON line each")
    parser.add_argument("--profile", action="store_true", help="print cProfile's top 40 functions (by own time)")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "smscan-bench")
    args = parser.parse_args()
    import importlib

    work = Path(tempfile.mkdtemp(prefix="smscan-hook-profile-"))
    bench = Bench(argparse.Namespace(cache=args.cache, timeout=900.0, quick=False), work)
    repo = sdist_repo(bench, *SMALL_SDIST)
    files = [p for p in tracked_files(repo) if p.endswith(".py") and (repo / p).stat().st_size > 1500][:5]
    os.environ.update(bench.fresh_env("hook"))

    from smscan.cli.services import Services
    from smscan.config.settings import load_settings
    from smscan.scoring.cached_scorer import CachedScorer
    from smscan.scoring.chain import open_score_cache
    from smscan.scoring.worker_address import worker_key
    from smscan.worker.scan_request import forwarded_environment
    from smscan.worker.scan_service import run_scan_request

    settings = load_settings(repo)
    scorer: Any = Services().model_scorer(settings)
    cache = open_score_cache(settings)
    if cache is not None:
        scorer = CachedScorer(scorer, cache)  # as `smscan serve` holds it
    key = worker_key(settings)
    spent: dict[str, float] = collections.defaultdict(float)
    scorer.score_texts = _timed(spent, "model", scorer.score_texts)
    for module_name, name, label in STAGES:
        module = importlib.import_module(module_name)
        if hasattr(module, name):
            setattr(module, name, _timed(spent, label, getattr(module, name)))
    profile = cProfile.Profile()
    rows: list[dict[str, float]] = []
    answers = []
    for run in range(args.runs + 1):
        reset_repo(repo)
        write_change(repo, files, lines_per_file=40, skip=run * STRIDE)
        git(repo, "add", "-A")
        request: dict[str, Any] = {"op": "scan", "command": "staged", "args": [], "root": str(repo), "config": None,
                   "env": forwarded_environment(os.environ, repo), "wait_s": 3.0}  # fmt: skip
        spent.clear()
        if run and args.profile:
            profile.enable()
        started = time.perf_counter()
        answer = run_scan_request(request, scorer, key=key)
        wall = time.perf_counter() - started
        if run and args.profile:
            profile.disable()
        tokens = int(answer["stats"].get("tokens_scored") or 0)
        print(f"request {run}{' (untimed)' if not run else ''}: {wall * 1000:.0f} ms, outside the model "
              f"{(wall - spent['model']) * 1000:.0f} ms, {tokens} tokens scored, {len(answer['findings'])} findings")
        answer.pop("digest")
        answer["stats"] = {name: value for name, value in answer["stats"].items() if "second" not in name}
        answers.append(json.dumps(answer, sort_keys=True))
        if run:
            rows.append({"wall": wall, "outside the model": wall - spent["model"], **spent})
    reset_repo(repo)
    print(f"\np50 of {args.runs} requests, load {os.getloadavg()[0]:.1f}:")
    for label in ["wall", "outside the model", *(label for _, _, label in STAGES)]:
        values = [row.get(label, 0.0) for row in rows]
        print(f"  {label}: {statistics.median(values) * 1000:.1f} ms")
    if args.answers:
        args.answers.write_text("\n".join(answers) + "\n", encoding="utf-8")
    if args.profile:
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(40)
        print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
