"""``python -m smscan``: the CLI (how a detached worker is started with this interpreter)."""

from __future__ import annotations

import sys

from smscan.cli import main

if __name__ == "__main__":
    sys.exit(main())
