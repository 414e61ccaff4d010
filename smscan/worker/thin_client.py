"""The hook's thin client: with a warm worker running, `staged`, `hook` and `diff` are one request.

``run_thin`` is tried first by the console script. For a command line it can send whole
(``scan_request.parse_thin_arguments``) and a worker running for this repository's settings, it
finds the git top level (one ``git rev-parse``), loads the settings, asks the worker to run the
whole scan (``scan_service.py``), checks the answer and prints the report itself: the worker
sends structured findings with their values, this process redacts and escapes them and picks
the exit code. It imports no detector, numpy, gitpython, typer, rich or model runtime (a test
pins the set).

It returns None, and the full command line runs in this process as if no worker ran, when the
command line is one it does not send, no worker runs (one ``listdir`` of the run dir: the cost
without a worker), the settings turn the worker off or cannot be read, or with a one-line
notice on any doubt about the worker: the peer, its version or key, a deadline, a malformed
answer, or a digest of inputs that is not the one this process computed. After such a notice
the command runs with the worker off: a worker doubted once is not asked for scores either.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

# The answer must come whole within this; a scan that takes longer is run in this process.
SCAN_DEADLINE_S = 60.0
BUSY_WAIT_S = 3.0
MAX_ANSWER_BYTES = 64 << 20
MAX_ANSWER_DEPTH = 16
JSON_REPORT_VERSION = 2  # smscan.reports.json.VERSION (a test keeps them equal)
# What the hook prints under a report that stops a commit (smscan.cli.git_modes.NEXT_STEPS).
NEXT_STEPS = (
    "commit blocked by smscan. If a finding is fine: add `# smscan: ignore` on its line, or accept the\n"
    "current findings with `smscan baseline`. See why a line was flagged: `smscan explain FILE:LINE`.\n"
    "Last resort: `git commit --no-verify` skips every hook for one commit."
)


WORKER_IGNORED = "worker ignored"
"""What ``run_thin`` returns after a notice: the full command line runs with ``worker = "off"``."""


def run_thin(
    argv: Sequence[str],
    *,
    environ: Mapping[str, str] = os.environ,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int | str | None:
    """Run ``argv`` through a warm worker, or say why the full command line must run it.

    Args:
        argv: the arguments after the program name.
        environ: the environment (run dir, settings variables, what is forwarded).
        stdout: where the report goes (default ``sys.stdout``).
        stderr: where notices go (default ``sys.stderr``).

    Returns:
        0 clean, 1 findings; None when this process must run the command itself, as if no
        worker ran; ``WORKER_IGNORED`` when it must run it without the worker it doubted.
    """
    from smscan.worker.scan_request import parse_thin_arguments

    parsed = parse_thin_arguments(argv)
    if parsed is None or not _has_sockets(environ):
        return None
    out, err = stdout or sys.stdout, stderr or sys.stderr

    doubted: list[str] = []

    def notice(reason: str) -> None:
        doubted.append(reason)
        print(f"smscan: the warm worker was ignored ({reason}); scanning in this process", file=err, flush=True)

    answer = _ask_worker(parsed, environ, notice)
    if answer is None:
        return WORKER_IGNORED if doubted else None
    findings = answer["findings"]
    show_values = parsed.report_format == "text" and out.isatty() and not environ.get("CI")
    if parsed.report_format == "json":
        out.write(_json_report(answer, show_values=False))
    else:
        out.write(_text_report(answer, show_values=show_values))
    out.flush()
    code = 1 if findings else 0
    if code and parsed.command in ("staged", "hook"):
        print(NEXT_STEPS, file=err, flush=True)
    return code


def _has_sockets(environ: Mapping[str, str]) -> bool:
    from smscan.scoring.worker_address import run_dir

    try:
        return any(name.endswith(".sock") for name in os.listdir(run_dir(environ)))
    except OSError:
        return False


def _ask_worker(parsed: Any, environ: Mapping[str, str], notice: Any) -> dict[str, Any] | None:
    from smscan import __version__
    from smscan.config.settings import load_settings
    from smscan.errors import SmscanError
    from smscan.scoring.worker_address import WorkerPlaceError, run_dir, socket_path, worker_key
    from smscan.scoring.worker_connection import WorkerConnection, WorkerUnavailable
    from smscan.scoring.worker_protocol import PROTOCOL_VERSION, ProtocolError, parse_json_object
    from smscan.worker.scan_request import forwarded_environment, input_files, request_digest

    cwd = Path.cwd()
    root = _git_top_level(cwd, environ)
    if root is None:
        return None
    try:
        settings = load_settings(root, explicit=Path(parsed.config) if parsed.config else None, environ=environ)
        if settings.worker == "off":
            return None
        key = worker_key(settings, environ=environ)
        path = socket_path(run_dir(environ), key)
    except (SmscanError, OSError):
        return None  # the full command line says what is wrong
    if not path.exists():
        return None
    args = list(parsed.args)
    if parsed.command == "hook":
        args = [os.path.abspath(cwd / arg) for arg in args]
    request: dict[str, Any] = {
        "op": "scan", "command": parsed.command, "args": args, "root": str(root),
        "config": os.path.abspath(cwd / parsed.config) if parsed.config else None,
        "env": forwarded_environment(environ, cwd), "wait_s": BUSY_WAIT_S,
    }  # fmt: skip
    expected = request_digest(request, input_files(root, settings))
    try:
        with WorkerConnection(path) as connection:
            hello = connection.hello()
            if (hello.smscan, hello.protocol, hello.key) != (__version__, PROTOCOL_VERSION, key):
                notice("it runs another smscan version or settings")
                return None
            header, payload = connection.request(
                request, timeout=SCAN_DEADLINE_S + BUSY_WAIT_S, limits=(1 << 12, MAX_ANSWER_BYTES)
            )
    except WorkerUnavailable as error:
        if not error.quiet:
            notice(str(error))
        return None
    except WorkerPlaceError as error:
        notice(str(error))
        return None
    if header.get("digest") != expected:
        notice("it scanned other inputs than this process reads")
        return None
    try:
        answer = parse_json_object(payload, max_depth=MAX_ANSWER_DEPTH)
        _check_answer(answer)
    except (ProtocolError, ValueError) as error:
        notice(f"a malformed answer: {error}")
        return None
    return answer


def _git_top_level(cwd: Path, environ: Mapping[str, str]) -> Path | None:
    try:
        run = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"], cwd=cwd, env=dict(environ), capture_output=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    top = os.fsdecode(run.stdout).strip()
    return Path(top).resolve() if run.returncode == 0 and top else None


_FINDING_FIELDS: tuple[tuple[str, type | tuple[type, ...]], ...] = (
    ("path", str), ("kind", str), ("start", dict), ("end", dict), ("char_start", int), ("char_end", int),
    ("score", (int, float, type(None))), ("threshold", (int, float)), ("fingerprint", str), ("value", str),
    ("details", dict),
)  # fmt: skip


def _check_answer(answer: dict[str, Any]) -> None:
    """Types of every field this process prints or decides on; ValueError naming the first bad one."""
    tops: tuple[tuple[str, type], ...] = (
        ("findings", list), ("model", dict), ("rule", dict), ("stats", dict), ("suppressed", dict), ("config", str),
    )  # fmt: skip
    for top, top_kind in tops:
        if not isinstance(answer.get(top), top_kind):
            raise ValueError(f"'{top}'")
    for finding in answer["findings"]:
        if not isinstance(finding, dict):
            raise ValueError("a finding")
        for name, kind in _FINDING_FIELDS:
            if not isinstance(finding.get(name), kind) or isinstance(finding.get(name), bool):
                raise ValueError(f"a finding's '{name}'")
        for end in ("start", "end"):
            if not all(isinstance(finding[end].get(axis), int) for axis in ("line", "column")):
                raise ValueError(f"a finding's '{end}'")


def _json_report(answer: dict[str, Any], *, show_values: bool) -> str:
    """The JSON report as ``smscan.reports.json.render_json`` writes it, values redacted here."""
    from smscan import __version__
    from smscan.reports.redact import redact
    from smscan.reports.visible import json_escaped

    findings = []
    for finding in answer["findings"]:
        fields = ("path", "kind", "start", "end", "char_start", "char_end", "score", "threshold", "fingerprint")
        record = {name: finding[name] for name in fields}
        record["preview"] = finding["value"] if show_values else redact(finding["value"])
        record["details"] = finding["details"]
        findings.append(record)
    report = {
        "version": JSON_REPORT_VERSION, "tool": {"name": "smscan", "version": __version__},
        "model": answer["model"], "rule": answer["rule"], "findings": findings, "stats": answer["stats"],
        "suppressed": answer["suppressed"],
    }  # fmt: skip
    return json_escaped(json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False)) + "\n"


def _text_report(answer: dict[str, Any], *, show_values: bool) -> str:
    """A compact text report: one line per finding (position, kind, score, value), then a summary."""
    from smscan import __version__
    from smscan.reports.redact import redact
    from smscan.reports.visible import visible

    lines = []
    for finding in answer["findings"]:
        value = finding["value"] if show_values else redact(finding["value"])
        score = "-" if finding["score"] is None else f"{finding['score']:.2f}"
        lines.append(
            f"{visible(finding['path'])}:{finding['start']['line']}:{finding['start']['column']}: "
            f"{visible(finding['kind'])} score {score} (threshold {finding['threshold']:.2f})  {visible(value)}"
        )
    stats = answer["stats"]
    count = len(answer["findings"])
    lines.append(
        f"summary (smscan {__version__}, warm worker): {count} finding{'s' if count != 1 else ''}; "
        f"files scanned {stats.get('files_scanned')}, skipped {stats.get('files_skipped')}, "
        f"tokens scored {stats.get('tokens_scored')}"
    )
    suppressed = answer["suppressed"]
    if suppressed.get("inline"):
        lines.append(f"suppressed by allow comments: {suppressed['inline']}")
    baseline = suppressed.get("baseline")
    if isinstance(baseline, dict):
        lines.append(f"accepted by the baseline {visible(str(baseline.get('file')))}: {baseline.get('accepted')}")
    return "\n".join(lines) + "\n"
