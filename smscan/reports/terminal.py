"""The human-readable report: findings grouped by file with a code frame, then a summary."""

from __future__ import annotations

from itertools import groupby

from rich.console import Console
from rich.table import Table
from rich.text import Text

from smscan.pipeline import ScanResult
from smscan.records import Finding
from smscan.reports.redact import redact

# Characters of code shown either side of a span on a long line.
_FRAME_MARGIN = 40


def render_terminal(
    console: Console, result: ScanResult, *, redact_values: bool, quiet: bool = False
) -> None:
    """Print findings (unless ``quiet``) and the summary table to ``console``."""
    if not quiet:
        for path, findings in groupby(result.findings, key=lambda f: f.path):
            console.print(Text(path, style="bold underline"))
            for finding in findings:
                _print_finding(console, result, finding, redact_values=redact_values)
            console.print()
    console.print(_summary(result))


def _print_finding(
    console: Console, result: ScanResult, finding: Finding, *, redact_values: bool
) -> None:
    score = "n/a" if finding.score != finding.score else f"{finding.score:.2f}"
    header = Text.assemble(
        (f"  {finding.start.line}:{finding.start.column}", "cyan"),
        "  ",
        (finding.kind, "bold magenta"),
        f"  score {score} >= threshold {finding.threshold:.2f}",
    )
    if finding.details.get("propagated"):
        header.append("  (repeat of a flagged span)", style="dim")
    console.print(header)
    line_text = result.lines.get(finding.path, {}).get(finding.start.line, "").rstrip("\r\n")
    start = finding.start.column - 1
    end = finding.end.column - 1 if finding.end.line == finding.start.line else len(line_text)
    before, value, after = line_text[:start], line_text[start:end], line_text[end:]
    if redact_values:
        value = redact(result.values.get(finding.fingerprint, value))
    if len(before) > _FRAME_MARGIN:
        before = "…" + before[-_FRAME_MARGIN:]
    if len(after) > _FRAME_MARGIN:
        after = after[:_FRAME_MARGIN] + "…"
    frame = Text(f"  {finding.start.line:>5} | ", style="dim")
    frame.append(before.expandtabs(4))
    frame.append(value, style="bold red reverse")
    frame.append(after.expandtabs(4))
    console.print(frame, overflow="ellipsis", no_wrap=True, crop=True)


def _summary(result: ScanResult) -> Table:
    stats = result.stats
    table = Table(title="smscan summary", show_header=False, title_justify="left")
    table.add_column("what", style="bold")
    table.add_column("value", justify="right")
    table.add_row("files scanned", str(stats.files_scanned))
    skipped = ", ".join(f"{reason} {n}" for reason, n in sorted(stats.skipped.items()))
    table.add_row("files skipped", f"{sum(stats.skipped.values())}" + (f" ({skipped})" if skipped else ""))
    table.add_row("tokens scored", f"{stats.tokens_scored:,}")
    table.add_row("time", f"{stats.seconds:.1f} s ({stats.tokens_per_second:,.0f} tokens/s)")
    kinds: dict[str, int] = {}
    for finding in result.findings:
        kinds[finding.kind] = kinds.get(finding.kind, 0) + 1
    by_kind = ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items()))
    table.add_row("findings", f"{len(result.findings)}" + (f" ({by_kind})" if by_kind else ""))
    if stats.files_scanned == 0:
        table.add_row("note", "nothing to scan")
    return table
