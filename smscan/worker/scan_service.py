"""A whole scan in the worker, for the hook's thin client: read git, plan, judge, decide.

The request names the command (``staged``, ``hook``, ``diff``), its positional arguments, the
root, the config file and the client's forwarded variables (``scan_request.py``). The worker
loads the settings there as the command line would, refuses settings whose model is not the one
it holds, reads what git gives (the client's ``GIT_INDEX_FILE`` when a commit writes another
index), runs ``scan_and_decide`` with its own scorer (behind its own score cache), and answers
with structured findings: each finding's fields and its flagged value, unredacted, for the
client to redact and escape; the model, the rule, stats, what was suppressed, and the digest of
the inputs it read. Nothing here renders text.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from smscan.worker.scan_request import THIN_COMMANDS, input_files, request_digest

# Variables of the worker's own environment that would redirect what git reads for a client.
_GIT_REDIRECTS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR")


class ScanRefused(Exception):
    """The worker cannot run this scan as the client's own process would (fixed reason)."""


def run_scan_request(request: Mapping[str, Any], scorer: Any, *, key: str) -> dict[str, Any]:
    """Run the scan ``request`` asks for with ``scorer`` and return the structured answer.

    Args:
        request: the client's request (``thin_client.scan_request``).
        scorer: the worker's scorer (the model behind the worker's score cache).
        key: the worker's key; settings that give another are refused.

    Returns:
        ``digest``, ``findings`` (each with its ``value``), ``model``, ``rule``, ``stats``,
        ``suppressed`` and ``config``.

    Raises:
        ScanRefused: malformed request, other settings, or a worker environment that redirects git.
        SmscanError: what the command line would report as an error (the client then runs it).
    """
    from smscan.config.settings import load_settings
    from smscan.scoring.worker_address import worker_key

    command, args, root, environ = _checked(request)
    if any(os.environ.get(name) for name in _GIT_REDIRECTS):
        raise ScanRefused("the worker's environment redirects git")
    config = request.get("config")
    settings = load_settings(root, explicit=Path(config) if isinstance(config, str) else None, environ=environ)
    if worker_key(settings, environ=environ) != key:
        raise ScanRefused("these settings need another worker")
    from smscan.decide.baseline import load_baseline
    from smscan.decide.scanner import scan_and_decide
    from smscan.reports.json import stats_dict
    from smscan.rules.flags import RuleFlags
    from smscan.rules.resolve import resolve_rules, unscored_rules
    from smscan.rules.thresholds_file import threshold_files
    from smscan.sources.selection import Selection

    threshold_files(root, configured=settings.thresholds)  # a bad file fails here, as in the CLI
    baseline = None
    if settings.baseline:
        path = root / settings.baseline
        baseline = (str(path), load_baseline(path))
    selection = Selection.for_root(root, settings, outputs=[])
    items = _items(command, args, root, selection, environ)
    has_documents = any(type(item).__name__ == "Document" for item in items)
    if has_documents:
        rules = resolve_rules(settings, RuleFlags(), root=root, fingerprint=scorer.fingerprint)
    else:
        rules = unscored_rules(settings)  # nothing to score, as in the command line
    result, suppressed = scan_and_decide(
        items, scorer if has_documents else None, rules, kinds=settings.kinds, baseline=baseline
    )
    model = scorer.describe() if has_documents else {"name": settings.model}
    findings = [_finding(finding, result.values.get(finding.fingerprint, "")) for finding in result.findings]
    return {
        "digest": request_digest(request, input_files(root, settings)),
        "findings": findings,
        "model": model,
        "rule": rules.as_dict(),
        "stats": stats_dict(result, config_source=settings.source),
        "suppressed": suppressed.as_dict(),
        "config": settings.source,
    }


def _checked(request: Mapping[str, Any]) -> tuple[str, list[str], Path, dict[str, str]]:
    command, args, root, env = request.get("command"), request.get("args"), request.get("root"), request.get("env")
    if command not in THIN_COMMANDS or not isinstance(root, str) or not os.path.isabs(root):
        raise ScanRefused("malformed scan request")
    if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
        raise ScanRefused("malformed scan request")
    if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise ScanRefused("malformed scan request")
    # The worker's variables, less smscan's and git's own, then the client's.
    environ = {
        name: value for name, value in os.environ.items()
        if not name.startswith("SMSCAN_") and name not in _GIT_REDIRECTS and name not in ("CI", "PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF")
    }  # fmt: skip
    environ.update(env)
    return str(command), list(args), Path(root), environ


def _items(command: str, args: list[str], root: Path, selection: Any, environ: Mapping[str, str]) -> list[Any]:
    from smscan.sources.git import GitRepository

    group = root.as_posix()
    with GitRepository(root) as repo:
        if environ.get("GIT_INDEX_FILE"):
            repo.use_index_file(environ["GIT_INDEX_FILE"])
        if command == "staged":
            from smscan.sources.diff import iter_staged

            return list(iter_staged(repo, selection=selection, group=group))
        if command == "hook":
            from smscan.sources.files import iter_hook, relative_names

            names = relative_names(root, [Path(arg) for arg in args], cwd=root)
            return list(iter_hook(repo, names, selection=selection, group=group, environ=environ))
        from smscan.sources.diff import iter_range, resolve_range

        span = resolve_range(repo, args[0], args[1] if len(args) > 1 else None)
        return list(iter_range(repo, span, selection=selection, group=group))


def _finding(finding: Any, value: str) -> dict[str, Any]:
    score = finding.score if finding.score == finding.score else None  # NaN -> null, as the JSON report
    return {
        "path": finding.path, "kind": finding.kind,
        "start": {"line": finding.start.line, "column": finding.start.column},
        "end": {"line": finding.end.line, "column": finding.end.column},
        "char_start": finding.char_start, "char_end": finding.char_end, "score": score,
        "threshold": finding.threshold, "fingerprint": finding.fingerprint, "value": value,
        "details": finding.details,
    }  # fmt: skip

