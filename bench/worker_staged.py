"""`smscan staged` end to end on a ~200-line change: a fresh process vs with a warm worker.

A temporary git repository holds five real source files of smscan; the first commit lacks 40
lines of each, which are then staged (200 added lines). Each mode runs ``python -m smscan staged``
``--runs`` times (default settings, CPU; the worker from ``smscan serve --detach``) and prints the
wall time of every run and the median. The first worker run is a warm-up and not counted.

    PYTHONPATH=$PWD python bench/worker_staged.py --runs 3 [--threads 1]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SOURCES = ["pipeline.py", "config.py", "cache.py", "baseline.py", "regions.py"]
LINES_PER_FILE = 40


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@invalid", *args], cwd=repo, check=True, capture_output=True)


def make_repo(repo: Path) -> int:
    package = Path(__file__).resolve().parents[1] / "smscan"
    git(repo, "init", "-q")
    full = {}
    for name in SOURCES:
        lines = (package / name).read_text(encoding="utf-8").splitlines(keepends=True)
        full[name] = lines
        cut = len(lines) // 3
        (repo / name).write_text("".join(lines[:cut] + lines[cut + LINES_PER_FILE :]), encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    for name, lines in full.items():
        (repo / name).write_text("".join(lines), encoding="utf-8")
    git(repo, "add", ".")
    return LINES_PER_FILE * len(SOURCES)


def run_staged(repo: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "smscan", "staged", "-q"], cwd=repo, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if result.returncode not in (0, 1):
        raise SystemExit(f"smscan staged failed ({result.returncode}): {result.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=0, help="the repository's `threads` setting (0: torch's default)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="smwb-", dir="/tmp"))
    env = {**os.environ, "XDG_RUNTIME_DIR": str(root / "run")}
    env.pop("SMSCAN_MODEL", None)
    try:
        repo = root / "repo"
        repo.mkdir()
        added = make_repo(repo)
        if args.threads:
            (repo / ".smscan.toml").write_text(f"threads = {args.threads}\n", encoding="utf-8")
        print(f"staged change: {added} added lines in {len(SOURCES)} files")
        fresh = [run_staged(repo, env) for _ in range(args.runs)]
        print("fresh process: " + ", ".join(f"{t:.2f}" for t in fresh) + f" s; median {statistics.median(fresh):.2f} s")
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "smscan", "serve", "--detach", "--idle-timeout", "120"], cwd=repo, env=env, check=True, capture_output=True)
        print(f"worker start (serve --detach, until it answers): {time.perf_counter() - started:.2f} s")
        try:
            run_staged(repo, env)  # warm-up: the worker's first forward passes
            warm = [run_staged(repo, env) for _ in range(args.runs)]
            print("with the worker: " + ", ".join(f"{t:.2f}" for t in warm) + f" s; median {statistics.median(warm):.2f} s")
            status = subprocess.run([sys.executable, "-m", "smscan", "serve", "--status"], cwd=repo, env=env, capture_output=True, text=True)
            print(next(line for line in status.stdout.splitlines() if line.startswith("texts scored")))
        finally:
            subprocess.run([sys.executable, "-m", "smscan", "serve", "--stop"], cwd=repo, env=env, capture_output=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
