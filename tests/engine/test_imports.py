from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import smscan.engine


def test_public_names() -> None:
    assert sorted(smscan.engine.__all__) == [
        "Windows",
        "char_spans",
        "fixed_windows",
        "line_windows",
        "local_ranks",
        "propagate_duplicates",
        "select_global",
        "select_local",
        "token_mask",
        "token_runs",
    ]


def test_engine_imports_no_heavy_dependency() -> None:
    # A fresh interpreter, since the test session may already have loaded anything.
    code = (
        "import sys, smscan.engine; "
        "print(sorted({'torch', 'transformers', 'git', 'rich'} & set(sys.modules)))"
    )
    repository = Path(smscan.engine.__file__).resolve().parents[2]
    environment = {**os.environ, "PYTHONPATH": str(repository)}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=environment
    )
    assert result.stdout.strip() == "[]"
