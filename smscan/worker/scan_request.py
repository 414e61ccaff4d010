"""A whole scan asked of a warm worker: which command lines qualify, what is sent, and its digest.

The hook's thin client (``thin_client.py``) and the worker (``scan_service.py``) share this
module, so both compute the digest the same way: a sha256 over the request and the bytes of the
config, thresholds and baseline files each side's settings name. The worker answers with the
digest of what it read; the client, which read the same files, takes the answer only when the
two agree (a worker that scanned with other inputs, or a confused one, is ignored).

Light on purpose: the standard library and ``smscan.config`` only.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# What a thin scan accepts; any other flag (or --help) goes to the full command line.
THIN_COMMANDS = ("staged", "hook", "diff")
THIN_FORMATS = ("text", "json")
# The client's variables that change what a scan reads or decides, sent with the request:
# the index a commit is writing (``git commit -a``), pre-commit's range, smscan's own.
FORWARDED_ENVIRONMENT = ("GIT_INDEX_FILE", "PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "CI")
FORWARDED_PREFIX = "SMSCAN_"
# The repository's own thresholds file (``smscan.rules.thresholds_file.REPOSITORY_FILE``).
REPOSITORY_THRESHOLDS = ".smscan/thresholds.json"


@dataclass(frozen=True, slots=True)
class ThinArguments:
    """A command line the thin client can send whole: command, positional arguments, format, config."""

    command: str
    args: tuple[str, ...]
    report_format: str = "text"
    config: str | None = None


def parse_thin_arguments(argv: Sequence[str]) -> ThinArguments | None:
    """``staged``, ``hook [FILES...]`` or ``diff BASE [HEAD]`` with at most ``-f/--format text|json``
    and ``--config FILE``; None for anything else (the full command line handles it).

    Example:
        >>> parse_thin_arguments(["staged", "-f", "json"])
        ThinArguments(command='staged', args=(), report_format='json', config=None)
        >>> parse_thin_arguments(["staged", "--no-redact"]) is None
        True
    """
    if not argv or argv[0] not in THIN_COMMANDS:
        return None
    command, rest = argv[0], list(argv[1:])
    positional: list[str] = []
    options: dict[str, str] = {}
    while rest:
        word = rest.pop(0)
        name, _, inline = word.partition("=")
        if name in ("-f", "--format", "--config"):
            value = inline if inline else (rest.pop(0) if rest else None)
            if value is None or name in options or ("-f" in options and name == "--format"):
                return None
            options["-f" if name == "--format" else name] = value
        elif word.startswith("-"):
            return None
        else:
            positional.append(word)
    report_format = options.get("-f", "text")
    if report_format not in THIN_FORMATS:
        return None
    if (command == "staged" and positional) or (command == "diff" and not 1 <= len(positional) <= 2):
        return None
    if command == "diff" and any(".." in arg for arg in positional[1:]):
        return None
    return ThinArguments(command, tuple(positional), report_format, options.get("--config"))


def forwarded_environment(environ: Mapping[str, str], cwd: Path) -> dict[str, str]:
    """The variables a worker must scan with (``FORWARDED_ENVIRONMENT``, ``SMSCAN_*``), a relative
    ``GIT_INDEX_FILE`` made absolute against ``cwd`` (git gives hooks ``.git/index.lock``)."""
    chosen = {
        name: value for name, value in environ.items() if name in FORWARDED_ENVIRONMENT or name.startswith(FORWARDED_PREFIX)
    }
    if "GIT_INDEX_FILE" in chosen:
        chosen["GIT_INDEX_FILE"] = os.path.abspath(cwd / chosen["GIT_INDEX_FILE"])
    return chosen


def input_files(root: Path, settings: Any) -> list[Path]:
    """The files whose bytes go into the digest: the config file, the thresholds file it names,
    the repository's thresholds file and the baseline (those that are named, present or not)."""
    files = []
    if settings.source != "defaults":
        files.append(Path(settings.source))
    if settings.thresholds:
        files.append(Path(settings.thresholds) if Path(settings.thresholds).is_absolute() else root / settings.thresholds)
    files.append(root / REPOSITORY_THRESHOLDS)
    if settings.baseline:
        files.append(root / settings.baseline)
    return files


def request_digest(request: Mapping[str, Any], files: Sequence[Path]) -> str:
    """sha256 of the request (without ``op`` and ``wait_s``) and of each file's bytes (or its absence)."""
    digest = hashlib.sha256()
    fields = {name: value for name, value in request.items() if name not in ("op", "wait_s", "v")}
    digest.update(json.dumps(fields, sort_keys=True, separators=(",", ":")).encode("utf-8"))
    for path in files:
        digest.update(b"\0" + os.fsencode(path) + b"\0")
        try:
            digest.update(hashlib.sha256(path.read_bytes()).digest())
        except OSError:
            digest.update(b"absent")
    return digest.hexdigest()
