"""The JSON report (format documented in docs/report-format.md; any change bumps VERSION)."""

from __future__ import annotations

import json
from typing import Any

from smscan import __version__
from smscan.records import Finding, ScanResult
from smscan.reports.redact import redact
from smscan.reports.visible import json_escaped

VERSION = 2


def render_json(
    result: ScanResult,
    *,
    model: dict[str, Any],
    rule: dict[str, Any],
    config_source: str,
    values: dict[str, str],
    no_redact: bool = False,
    suppressed: dict[str, Any] | None = None,
) -> str:
    """Serialise a scan as the versioned JSON report.

    Args:
        result: the scan.
        model: the model description (name, source, fingerprint, device, dtype, settings).
        rule: the effective masking rule.
        config_source: where settings came from ("defaults" or a file).
        values: finding fingerprint -> flagged value, shown redacted unless ``no_redact``.
        no_redact: put flagged values in full in the report.
        suppressed: what inline allow comments and a baseline took out (the ``suppressed``
            section, docs/git-modes.md); omitted when None.

    Returns:
        The report as a JSON string ending in a newline.
    """
    report: dict[str, Any] = {
        "version": VERSION,
        "tool": {"name": "smscan", "version": __version__},
        "model": model,
        "rule": rule,
        "findings": [_finding(f, values.get(f.fingerprint, ""), no_redact) for f in result.findings],
        "stats": stats_dict(result, config_source=config_source),
    }
    if suppressed is not None:
        report["suppressed"] = suppressed
    return json_escaped(json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False)) + "\n"


def _finding(finding: Finding, value: str, no_redact: bool) -> dict[str, Any]:
    score = finding.score if finding.score == finding.score else None  # NaN -> null
    return {
        "path": finding.path,
        "kind": finding.kind,
        "start": {"line": finding.start.line, "column": finding.start.column},
        "end": {"line": finding.end.line, "column": finding.end.column},
        "char_start": finding.char_start,
        "char_end": finding.char_end,
        "score": score,
        "threshold": finding.threshold,
        "fingerprint": finding.fingerprint,
        "preview": value if no_redact else redact(value),
        "details": finding.details,
    }


def stats_dict(result: ScanResult, *, config_source: str) -> dict[str, Any]:
    stats = result.stats
    findings_by_kind: dict[str, int] = {}
    for finding in result.findings:
        findings_by_kind[finding.kind] = findings_by_kind.get(finding.kind, 0) + 1
    return {
        "files_scanned": stats.files_scanned,
        "files_skipped": sum(stats.skipped.values()),
        "skipped_by_reason": dict(sorted(stats.skipped.items())),
        "tokens_scored": stats.tokens_scored,
        "seconds": round(stats.seconds, 3),
        "tokens_per_second": round(stats.tokens_per_second, 1),
        "findings_by_kind": dict(sorted(findings_by_kind.items())),
        "config": config_source,
    }
