"""Report formats by name: a new format is one writer and one entry in :data:`FORMATS`.

Every writer takes the same :class:`Report` and a console to write to (the terminal, or a
buffer the CLI then writes to ``--output`` atomically). Machine formats write their text as it
is; the text format renders with rich.

Example:
    >>> sorted(FORMATS)
    ['json', 'sarif', 'text']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console

from smscan.errors import SmscanError
from smscan.records import ScanResult, Suppressed
from smscan.reports.visible import visible


@dataclass(frozen=True, slots=True)
class Report:
    """Everything a report says: the findings and what made them.

    Attributes:
        result: the scan, after the decisions (kinds, allow comments, overlap, baseline).
        model: the model description (name, fingerprint, device, dtype, settings).
        rule: the effective rules (``Rules.as_dict``).
        config_source: where the settings came from ("defaults" or a file).
        suppressed: what allow comments and a baseline took out (``Suppressed``), or None.
        show_values: print flagged values in full (the user asked, or a person's own terminal).
        quiet: findings left out of the text report, only the summary shown.
        verbose: the text report also names each skipped file and why.
    """

    result: ScanResult
    model: Mapping[str, Any] = field(default_factory=dict)
    rule: Mapping[str, Any] = field(default_factory=dict)
    config_source: str = "defaults"
    suppressed: Suppressed | None = None
    show_values: bool = False
    quiet: bool = False
    verbose: bool = False


@dataclass(frozen=True, slots=True)
class ReportFormat:
    """How one format writes a report; ``machine`` formats are text for tools, not people."""

    write: Callable[[Report, Console], None]
    machine: bool


def _write_json(report: Report, console: Console) -> None:
    from smscan.reports.json import render_json

    console.file.write(render_json(report.result, **_machine_arguments(report)))


def _write_sarif(report: Report, console: Console) -> None:
    from smscan.reports.sarif import render_sarif

    console.file.write(render_sarif(report.result, **_machine_arguments(report)))


def _machine_arguments(report: Report) -> dict[str, Any]:
    return {
        "model": dict(report.model), "rule": dict(report.rule), "config_source": report.config_source,
        "values": report.result.values, "no_redact": report.show_values,
        "suppressed": report.suppressed.as_dict() if report.suppressed is not None else None,
    }


def _write_text(report: Report, console: Console) -> None:
    from smscan.reports.terminal import render_terminal

    render_terminal(console, report.result, redact_values=not report.show_values, quiet=report.quiet, verbose=report.verbose)
    if report.suppressed is not None:
        _print_suppressed(console, report.suppressed, quiet=report.quiet)


def _print_suppressed(console: Console, suppressed: Suppressed, *, quiet: bool) -> None:
    if suppressed.inline:
        console.print(f"suppressed by allow comments: {suppressed.inline}", markup=False)
    if suppressed.baseline_file is None:
        return
    console.print(f"accepted by the baseline {visible(str(suppressed.baseline_file))}: {suppressed.accepted}", markup=False)
    if suppressed.stale:
        console.print(
            f"baseline entries that no longer match (remove them with `smscan baseline`): {len(suppressed.stale)}"
        )
        if not quiet:
            for entry in suppressed.stale:
                console.print(f"  {visible(entry.path)}  {entry.kind}  {entry.hash[:12]}", markup=False)


FORMATS: dict[str, ReportFormat] = {
    "text": ReportFormat(_write_text, machine=False),
    "json": ReportFormat(_write_json, machine=True),
    "sarif": ReportFormat(_write_sarif, machine=True),
}


def report_format(name: str) -> ReportFormat:
    """The format called ``name``.

    Raises:
        SmscanError: no format has that name (the message lists the known ones).
    """
    try:
        return FORMATS[name]
    except KeyError:
        raise SmscanError(f"unknown report format {name!r}; known formats: {', '.join(FORMATS)}") from None
