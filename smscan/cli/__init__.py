"""The command line: the only code that reads argv, owns the Console and picks exit codes.

``main`` first offers the command line to the hook's thin client (``smscan.worker.thin_client``):
with a warm worker running, ``staged``, ``hook`` and ``diff`` are answered without importing the
Typer app or the scanning library. Otherwise, and for every other command, the full app runs.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from smscan.cli.services import Services

__all__ = ["app", "main"]


def main(argv: Sequence[str] | None = None, *, services: Services | None = None) -> int:
    """Run the CLI and return its exit code (``smscan.cli.app.main``; the console script's entry).

    Only the real entry (no ``argv`` and no ``services`` given: a process of its own) tries the
    thin client first, and only there do ``staged`` and ``hook`` start a worker when none runs
    (``worker = "auto"`` unless the config or a flag sets ``worker``); a caller that passes
    arguments or services gets the full app as asked.
    """
    if argv is None and services is None:
        from smscan.worker.thin_client import WORKER_IGNORED, run_thin

        code = run_thin(sys.argv[1:])
        if isinstance(code, int):
            return code
        from smscan.cli.services import Services

        services = Services(worker_off=code == WORKER_IGNORED, hook_starts_worker=True)
    from smscan.cli.app import main as full_main

    return full_main(argv, services=services)


def __getattr__(name: str) -> Any:
    if name == "app":
        from smscan.cli.app import app

        return app
    raise AttributeError(f"module 'smscan.cli' has no attribute {name!r}")
