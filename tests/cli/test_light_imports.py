"""`smscan --version` and `--help` answer without the library's heavy parts: no detector, numpy,
gitpython or model runtime is imported (they are imported when a command runs)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("numpy", "git", "torch", "transformers", "ctranslate2", "tokenizers", "smscan.detectors", "smscan.judge", "smscan.model.load")

PROBE = """
import json, sys
from smscan.cli import main
code = main(sys.argv[1:])
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def imported_by(*args: str) -> set[str]:
    run = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=120, check=True)
    return set(json.loads(run.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize("args", [("--version",), ("--help",)])
def test_version_and_help_import_nothing_heavy(args: tuple[str, ...]) -> None:
    modules = imported_by(*args)
    heavy = sorted(name for name in modules if any(name == h or name.startswith(h + ".") for h in HEAVY))
    assert heavy == []


def test_the_heavy_names_are_what_the_chain_imports() -> None:
    # So the test above cannot pass by checking names nothing would ever import.
    run = subprocess.run(
        [sys.executable, "-c", "import sys, smscan.judge.stage; print('smscan.detectors' in sys.modules, 'numpy' in sys.modules)"],
        capture_output=True, text=True, timeout=120, check=True,
    )
    assert run.stdout.split() == ["True", "True"]
