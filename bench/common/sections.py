"""A benchmark's own section of ``docs/BENCHMARKS.md``: written on ``--write``, replaced on a rerun.

A section runs from its ``## `` heading to the next ``## `` heading; the rest of the document (the
hand-written sections of earlier rounds) is kept byte for byte. Each section names the command that
wrote it, so its figures can be reproduced.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

DOCUMENT = Path(__file__).resolve().parents[2] / "docs" / "BENCHMARKS.md"


def command_line(module: str, argv: list[str]) -> str:
    """How to rerun: ``python -m MODULE ARGS`` with the arguments quoted for a shell."""
    return " ".join(["python", "-m", module, *(shlex.quote(a) for a in argv)])


def section_text(heading: str, command: str, body: str) -> str:
    """``## HEADING``, the command indented as a code block, then ``body``."""
    return f"## {heading}\n\nWritten by\n\n    {command}\n\n{body.strip()}\n"


def replace_section(document: str, heading: str, section: str) -> str:
    """``document`` with its ``## heading`` section replaced by ``section`` (appended where it has none).

    Example:
        >>> replace_section("# T\\n\\n## A\\nold\\n\\n## B\\nb\\n", "A", "## A\\nnew\\n")
        '# T\\n\\n## A\\nnew\\n\\n## B\\nb\\n'
        >>> replace_section("# T\\n", "A", "## A\\nnew\\n")
        '# T\\n\\n## A\\nnew\\n'
    """
    section = section.rstrip("\n") + "\n"
    lines = document.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip("\n") == f"## {heading}"), None)
    if start is None:
        return document.rstrip("\n") + "\n\n" + section
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    tail = "".join(lines[end:])
    return "".join(lines[:start]) + section + ("\n" + tail if tail else "")


def write_section(heading: str, body: str, *, module: str, argv: list[str] | None = None,
                  document: Path = DOCUMENT) -> None:
    """Write (or replace) the ``## heading`` section of ``document``: the rerun command, then ``body``."""
    command = command_line(module, sys.argv[1:] if argv is None else argv)
    text = document.read_text(encoding="utf-8") if document.exists() else "# Benchmarks\n"
    document.write_text(replace_section(text, heading, section_text(heading, command, body)), encoding="utf-8")
    print(f"wrote section {heading!r} of {document.name}", file=sys.stderr)
