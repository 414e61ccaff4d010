"""The ``smscan`` of the running interpreter (the checkout on ``PYTHONPATH``), run on files or a folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def smscan_argv() -> list[str]:
    """The command line that starts this interpreter's smscan (``python -m smscan``)."""
    return [sys.executable, "-m", "smscan"]


def run_json(args: list[str], *, cwd: Path, report: Path) -> dict[str, Any]:
    """Run ``smscan ARGS --format json -o REPORT`` in ``cwd`` and read the report.

    Exit codes 0 (nothing found) and 1 (findings) are both results; any other ends the benchmark
    with smscan's last words on stderr (a benchmark that reads a half-written report measures nothing)."""
    command = [*smscan_argv(), *args, "--format", "json", "-o", str(report)]
    done = subprocess.run(command, capture_output=True, text=True, env=os.environ.copy(), cwd=cwd, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"smscan exited {done.returncode}: {done.stderr[-2000:]}")
    return dict(json.loads(report.read_text(encoding="utf-8")))
