"""The SARIF 2.1.0 report (``--format sarif``), for GitHub code scanning and other SARIF consumers.

One run, one rule per finding kind (``credential``, ``dead-code``, ``surprise``), one result per
finding with a physical location (root-relative URI, 1-based lines and code-point columns,
``columnKind: unicodeCodePoints``, end column exclusive as in the JSON report).

``partialFingerprints["smscan/v1"]`` is the finding's fingerprint: a hash of the kind, the path
and the flagged text, the same content a baseline entry matches on (:mod:`smscan.decide.baseline`), so
an alert survives code moving up or down a file, a rebase or another author; it never includes a
commit, an author or a line number.

No flagged value appears in full unless ``no_redact``: messages carry the redacted preview, and
``region.snippet`` is written only with ``no_redact`` (consumers show snippets as code).
"""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import quote

from smscan import __version__
from smscan.kinds import KIND_INFO
from smscan.records import Finding, ScanResult
from smscan.reports.json import stats_dict
from smscan.reports.redact import redact
from smscan.reports.visible import json_escaped

SARIF_VERSION = "2.1.0"
SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
FINGERPRINT_KEY = "smscan/v1"
SOURCE_ROOT = "%SRCROOT%"

_HELP = (
    "Review the flagged span. Remove a real secret (and rotate it); accept a false positive with an "
    "inline allow comment or a baseline (`smscan baseline`). `smscan explain FILE:LINE` shows why "
    "the span was reported."
)


def render_sarif(
    result: ScanResult,
    *,
    model: dict[str, Any],
    rule: dict[str, Any],
    config_source: str,
    values: dict[str, str],
    no_redact: bool = False,
    suppressed: dict[str, Any] | None = None,
) -> str:
    """Serialise a scan as a SARIF 2.1.0 log.

    Args:
        result: the scan.
        model: the model description (name, source, fingerprint, ...), kept in run properties.
        rule: the effective rules (the JSON report's ``rule`` object), kept in run properties.
        config_source: where settings came from.
        values: finding fingerprint -> flagged value, shown only redacted unless ``no_redact``.
        no_redact: put flagged values in full in messages and snippets.
        suppressed: what inline comments and a baseline took out (the JSON report's section).

    Returns:
        The log as a JSON string ending in a newline.

    Example:
        >>> from smscan.records import ScanResult
        >>> log = render_sarif(ScanResult(), model={}, rule={}, config_source="defaults", values={})
        >>> json.loads(log)["version"]
        '2.1.0'
    """
    kinds = list(rule.get("kinds", []))
    for finding in result.findings:
        if finding.kind not in kinds:
            kinds.append(finding.kind)
    rule_index = {kind: index for index, kind in enumerate(kinds)}
    properties: dict[str, Any] = {
        "model": model,
        "rule": rule,
        "stats": stats_dict(result, config_source=config_source),
    }
    if suppressed is not None:
        properties["suppressed"] = suppressed
    run = {
        "tool": {
            "driver": {
                "name": "smscan",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [_rule(kind) for kind in kinds],
            }
        },
        "columnKind": "unicodeCodePoints",
        "originalUriBaseIds": {
            SOURCE_ROOT: {"description": {"text": "The scan root (the git top level, else the scanned folder)."}}
        },
        "results": [
            _result(f, rule_index[f.kind], values.get(f.fingerprint, ""), no_redact) for f in result.findings
        ],
        "properties": properties,
    }
    log = {"$schema": SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}
    return json_escaped(json.dumps(log, indent=2, ensure_ascii=False, allow_nan=False)) + "\n"


def _rule(kind: str) -> dict[str, Any]:
    """The rule of ``kind``: the kind id, the SARIF text its ``KindInfo`` gives."""
    info = KIND_INFO.get(kind)
    if info is None:
        return {"id": kind, "shortDescription": {"text": kind}}
    rule = info.sarif
    return {
        "id": kind,
        "name": rule.name,
        "shortDescription": {"text": rule.short},
        "fullDescription": {"text": rule.full},
        "help": {"text": _HELP},
        "defaultConfiguration": {"level": rule.level},
        "properties": {"tags": list(rule.tags), "security-severity": rule.security_severity},
    }


def _result(finding: Finding, index: int, value: str, no_redact: bool) -> dict[str, Any]:
    score = finding.score if finding.score == finding.score else None  # NaN -> null
    shown = value if no_redact else redact(value)
    info = KIND_INFO.get(finding.kind)
    what = info.sarif.short if info is not None else finding.kind
    if score is None:
        measure = f"repeat of a flagged span (threshold {finding.threshold:.2f})"
    else:
        measure = f"score {score:.2f} >= threshold {finding.threshold:.2f}"
    region: dict[str, Any] = {
        "startLine": finding.start.line,
        "startColumn": finding.start.column,
        "endLine": finding.end.line,
        "endColumn": finding.end.column,
    }
    if no_redact:
        region["snippet"] = {"text": value}
    return {
        "ruleId": finding.kind,
        "ruleIndex": index,
        "level": info.sarif.level if info is not None else "warning",
        "message": {"text": f"{what}: {shown} ({measure})"},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": _uri(finding.path), "uriBaseId": SOURCE_ROOT},
                    "region": region,
                }
            }
        ],
        "partialFingerprints": {FINGERPRINT_KEY: finding.fingerprint},
        "properties": {
            "score": score,
            "threshold": finding.threshold,
            "char_start": finding.char_start,
            "char_end": finding.char_end,
            "preview": shown,
            "details": finding.details,
        },
    }


def _uri(path: str) -> str:
    # The file name's own bytes, percent-encoded: a name that is not UTF-8 (its bytes kept as
    # surrogate escapes by os.fsdecode) has no UTF-8 spelling to quote.
    return quote(os.fsencode(path), safe="/")
