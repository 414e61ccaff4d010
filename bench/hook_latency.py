"""Hook latency with a warm worker (the thin client) against a fresh process, p50/p95 of N commits.

Each run stages a new ~200-line change in 5 files of the ``requests`` 2.32.3 sdist committed to a
fresh repository (stdlib functions appended, different ones each run, so no run finds its text in
any cache), then times ``smscan staged -f json`` through the console script, end to end. The
fresh-process runs have no worker (``--config`` naming a file with ``worker = "off"``: without it
the hook's default ``worker = "auto"`` starts one on the first run and the next runs use it); the
worker runs have ``smscan serve`` (the default model) running for the same settings. Each mode is
warmed up on one other change first. Python's bytecode is cached in a folder of the run
(``PYTHONPYCACHEPREFIX``, ``PYTHONDONTWRITEBYTECODE`` unset), as an installed package has it:
otherwise every run compiles each module it imports from source.

    python -m bench.hook_latency --runs 20 --write     # writes "## Hook latency" into docs/BENCHMARKS.md
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.speed import SMALL_SDIST, Bench, git, replace_section, reset_repo, sdist_repo, smscan_command, tracked_files, write_change

SECTION = "## Hook latency (thin client and warm worker)"
# Stdlib blocks per change (5 files x 40 lines take about 19): every change gets its own blocks.
STRIDE = 24


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def timed_runs(
    repo: Path, files: list[str], env: dict[str, str], *, runs: int, per_file: int, skip: int, extra: tuple[str, ...] = ()
) -> tuple[list[tuple[float, int]], int, list[str]]:
    """``(seconds, tokens the model scored)`` of each run, the lines each change added, notices."""
    seconds: list[tuple[float, int]] = []
    added, notes = 0, []
    for run in range(runs):
        reset_repo(repo)
        added = write_change(repo, files, lines_per_file=per_file, skip=skip + run * STRIDE)
        git(repo, "add", "-A")
        started = time.monotonic()
        done = subprocess.run([*smscan_command(), "staged", "-f", "json", *extra], cwd=repo, env=env, capture_output=True, text=True, timeout=900, check=False)
        elapsed = time.monotonic() - started
        if done.returncode not in (0, 1):
            raise SystemExit(f"smscan staged exited {done.returncode}: {done.stderr[-400:]}")
        if "ignored" in done.stderr:
            notes.append(done.stderr.strip().splitlines()[0])
        seconds.append((elapsed, int(json.loads(done.stdout)["stats"].get("tokens_scored") or 0)))
    reset_repo(repo)
    return seconds, added, notes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--lines-per-file", type=int, default=40)
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "smscan-bench")
    parser.add_argument("--write", action="store_true", help="write the section into docs/BENCHMARKS.md")
    args = parser.parse_args()
    load_start = os.getloadavg()[0]
    here = Path(__file__).resolve().parents[1]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True, text=True, check=False).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="smscan-hook-") as folder:
        bench = Bench(argparse.Namespace(cache=args.cache, timeout=900.0, quick=False), Path(folder))
        repo = sdist_repo(bench, *SMALL_SDIST)
        files = [p for p in tracked_files(repo) if p.endswith(".py") and (repo / p).stat().st_size > 1500][:5]
        env = bench.fresh_env("hook")
        env["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="smh-", dir="/tmp")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(folder) / "pycache")
        no_worker = Path(folder) / "no-worker.toml"
        no_worker.write_text('worker = "off"\n', encoding="utf-8")
        off = ("--config", str(no_worker))
        per_file, stride = args.lines_per_file, (args.runs + 1) * STRIDE
        # The warm-up writes the bytecode; its scores go to a cache of their own, so that the
        # worker's warm-up on the same blocks (the stdlib holds ~1,000) still runs its model.
        aside = {**env, "SMSCAN_SCORE_CACHE": str(Path(folder) / "warm-up-scores")}
        timed_runs(repo, files, aside, runs=1, per_file=per_file, skip=args.runs * STRIDE, extra=off)
        bench.log(f"fresh process, {args.runs} runs")
        fresh, added, _ = timed_runs(repo, files, env, runs=args.runs, per_file=per_file, skip=0, extra=off)
        bench.log("starting the worker")
        subprocess.run([*smscan_command(), "serve", "--detach", "--idle-timeout", "30m"], cwd=repo, env=env, check=True, timeout=900)
        try:
            timed_runs(repo, files, env, runs=1, per_file=per_file, skip=args.runs * STRIDE)  # warm-up
            bench.log(f"warm worker, {args.runs} runs")
            warm, _, notes = timed_runs(repo, files, env, runs=args.runs, per_file=per_file, skip=stride)
            status = subprocess.run([*smscan_command(), "serve", "--status"], cwd=repo, env=env, capture_output=True, text=True, check=False).stdout
        finally:
            subprocess.run([*smscan_command(), "serve", "--stop"], cwd=repo, env=env, check=False, timeout=60)

    def row(mode: str, runs: list[tuple[float, int]]) -> str:
        wall = [seconds for seconds, _ in runs]
        tokens = sorted(count for _, count in runs if count)
        without = [seconds for seconds, count in runs if not count]
        scored = f"{len(tokens)} ({statistics.median(tokens):.0f} / {max(tokens)})" if tokens else "0"
        return (
            f"| {mode} | {statistics.median(wall):.2f} | {percentile(wall, 0.95):.2f} | {min(wall):.2f} | {max(wall):.2f} "
            f"| {scored} | {statistics.median(without) if without else float('nan'):.2f} |"
        )

    latency = next((line.split(":", 1)[1].strip() for line in status.splitlines() if line.startswith("latency:")), "?")
    table = "\n".join([
        SECTION, "",
        f"`smscan staged -f json` on a {added}-line change in {len(files)} files of the `requests` {SMALL_SDIST[1]} sdist "
        f"(a new change each run, so no cache holds it), {args.runs} runs each, wall time of the whole command, "
        f"{os.cpu_count()} CPUs, load {load_start:.1f} at the start and {os.getloadavg()[0]:.1f} at the end; "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit}. Command: "
        f"`python -m bench.hook_latency --runs {args.runs} --write`.", "",
        "| mode | p50 s | p95 s | min s | max s | runs the model scored (tokens: median / max) | p50 s of the runs it did not |",
        "|---|---|---|---|---|---|---|",
        row("fresh process, no worker", fresh), row("warm worker (thin client)", warm),
        "", f"The worker's own request latency (`smscan serve --status`): {latency}.",
        *([f"Notices during the worker runs: {len(notes)} (first: {notes[0]})."] if notes else []), "",
    ])
    print(table)
    if args.write:
        path = Path(__file__).resolve().parents[1] / "docs" / "BENCHMARKS.md"
        path.write_text(replace_section(path.read_text(encoding="utf-8"), table, heading=SECTION), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
