"""The command line: the only code that reads argv, owns the Console and picks exit codes."""

from __future__ import annotations

from smscan.cli.app import app, main

__all__ = ["app", "main"]
