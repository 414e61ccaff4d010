"""The human-readable report: findings grouped by file, each with a code frame, then a summary.

A finding is a header (position, kind, score against threshold, evidence) and a code frame: the
flagged lines with their numbers, the span highlighted and underlined with ``^`` so it stays
visible without colour. Long lines are cut around the span to the console's width; tabs are
expanded. With ``redact_values`` the span's text is replaced by its redacted form (length and at
most a 4-character prefix), and a span over several lines is drawn as one line, so no line inside a
flagged value is shown either.
"""

from __future__ import annotations

from collections import Counter
from itertools import groupby

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from smscan import __version__
from smscan.kinds import shows_values
from smscan.records import Finding, ScanResult
from smscan.reports.redact import redact, redact_repeats
from smscan.reports.visible import escape_char, visible

# Lines of an unredacted multi-line span shown before "… N more lines".
_MAX_FRAME_LINES = 6
_ELLIPSIS = "…"
_TAB = 4


def render_terminal(
    console: Console, result: ScanResult, *, redact_values: bool, quiet: bool = False, verbose: bool = False
) -> None:
    """Print findings (unless ``quiet``), the skipped files (when ``verbose``) and the summary.

    Args:
        console: where to print; its width bounds every line, its colour settings apply.
        result: the scan.
        redact_values: show flagged values redacted (CI logs, files, piped output).
        quiet: print only the summary.
        verbose: also name each skipped file and its reason (the summary only counts them).

    Example:
        >>> from io import StringIO
        >>> console = Console(file=StringIO(), width=60, color_system=None)
        >>> render_terminal(console, ScanResult(), redact_values=True)
        >>> "nothing to scan" in console.file.getvalue()
        True
    """
    if not quiet:
        hidden = _hidden_values(result) if redact_values else frozenset()
        for path, group in groupby(result.findings, key=lambda f: f.path):
            console.print(Text(visible(path), style="bold underline"), overflow="fold")
            findings = list(group)
            # Context shown around one finding may cross another's span (a value repeated on the
            # next line of a span that ends mid-line): redacted frames hide those too. Spans that
            # overlap the finding mostly share its value, which is hidden already (their other
            # parts are the quotes and names around it).
            spans = [f for f in findings if not shows_values(f.kind)] if redact_values else []
            for finding in findings:
                _print_finding(console, result, finding, redact_values=redact_values, hidden=hidden, spans=spans)
            console.print()
    if verbose and result.skips:
        console.print(Text("skipped", style="bold"))
        for skip in sorted(result.skips, key=lambda s: (s.reason, s.path)):
            console.print(Text.assemble(f"  {skip.reason:<16} ", (visible(skip.path), "dim")), overflow="fold")
        console.print()
    # The version that made the report, as JSON and SARIF carry it: a CI log says what ran.
    console.print(Text.assemble(("summary", "bold"), (f" (smscan {__version__})", "dim")))
    console.print(summary_table(result))


def _hidden_values(result: ScanResult) -> frozenset[str]:
    # Values whose every occurrence a redacted frame hides. Dead code is code, not a secret: its
    # frame still hides the flagged line itself, but its text may stand in other lines' context.
    return frozenset(
        result.values[f.fingerprint]
        for f in result.findings
        if not shows_values(f.kind) and f.fingerprint in result.values
    )


def _print_finding(
    console: Console,
    result: ScanResult,
    finding: Finding,
    *,
    redact_values: bool,
    hidden: frozenset[str],
    spans: list[Finding],
) -> None:
    console.print(_header(finding))
    lines = result.lines.get(finding.path, {})
    value = result.values.get(finding.fingerprint)
    last = finding.end.line if finding.end.column > 1 or finding.end.line == finding.start.line else finding.end.line - 1
    last = max(last, finding.start.line)
    multi = last != finding.start.line
    gutter = len(f"{finding.start.line}-{last}") if multi and redact_values else len(str(last))
    width = max(console.width - gutter - 5, 20)  # "  NNN │ " around the code
    if redact_values or not multi:
        first_text = _line(lines, finding.start.line)
        last_text = _line(lines, last)
        before = first_text[: finding.start.column - 1]
        if not multi:
            span = first_text[finding.start.column - 1 : _end_column(finding, last_text, last) - 1]
        else:
            span = value if value is not None else ""
        after = last_text[_end_column(finding, last_text, last) - 1 :]
        if redact_values:
            span = redact(value if value is not None else span)
            others = [s for s in spans if s.char_end <= finding.char_start or s.char_start >= finding.char_end]
            before = _hide_spans(before, finding.start.line, 0, others)
            after = _hide_spans(after, last, len(last_text) - len(after), others)
            before, after = redact_repeats(before, hidden), redact_repeats(after, hidden)
        number = f"{finding.start.line}-{last}" if multi else str(finding.start.line)
        _print_frame_line(console, number, gutter, before, span, after, width, marks=True)
        return
    for offset, line in enumerate(range(finding.start.line, last + 1)):
        if offset == _MAX_FRAME_LINES:
            console.print(Text(f"  {'':>{gutter}} │ {_ELLIPSIS} {last - line + 1} more lines", style="dim"))
            break
        text = _line(lines, line)
        lo = finding.start.column - 1 if line == finding.start.line else 0
        hi = _end_column(finding, text, line) - 1 if line == last else len(text)
        _print_frame_line(console, str(line), gutter, text[:lo], text[lo:hi], text[hi:], width, marks=hi > lo)


def _header(finding: Finding) -> Text:
    score = "n/a" if finding.score != finding.score else f"{finding.score:.2f}"
    header = Text.assemble(
        ("  ", ""),
        (f"{finding.start.line}:{finding.start.column}", "cyan"),
        ("  ", ""),
        (finding.kind, "bold magenta"),
        f"  score {score} ≥ threshold {finding.threshold:.2f}",
    )
    notes = []
    details = finding.details
    if details.get("place"):
        notes.append(f"in a {details['place']}")
    if details.get("evidence"):
        notes.append(f"evidence: {details['evidence']}")
    if details.get("propagated"):
        notes.append("repeat of a flagged span")
    if details.get("commit"):
        notes.append(f"commit {str(details['commit'])[:12]}")
    if notes:
        header.append("  (" + "; ".join(notes) + ")", style="dim")
    return header


def _hide_spans(text: str, line: int, offset: int, spans: list[Finding]) -> str:
    """``text`` (the part of ``line`` from 0-based column ``offset``) with each stretch that lies in
    one of ``spans`` redacted."""
    covered = []
    for span in spans:
        if not span.start.line <= line <= span.end.line:
            continue
        lo = span.start.column - 1 if line == span.start.line else 0
        hi = span.end.column - 1 if line == span.end.line else offset + len(text)
        lo, hi = max(lo - offset, 0), min(hi - offset, len(text))
        if lo < hi:
            covered.append((lo, hi))
    if not covered:
        return text
    pieces, last = [], 0
    for lo, hi in sorted(covered):
        if hi <= last:
            continue
        lo = max(lo, last)
        pieces += [text[last:lo], redact(text[lo:hi])]
        last = hi
    return "".join([*pieces, text[last:]])


def _line(lines: dict[int, str], number: int) -> str:
    return lines.get(number, "").rstrip("\r\n")


def _end_column(finding: Finding, text: str, line: int) -> int:
    # The span's end column on its last shown line (a span ending at a line break ends there).
    if line == finding.end.line:
        return finding.end.column
    return len(text) + 1


def _print_frame_line(
    console: Console,
    number: str,
    gutter: int,
    before: str,
    span: str,
    after: str,
    width: int,
    *,
    marks: bool,
) -> None:
    before, span, after = _fit(_expand(before), _expand(span, len(_expand(before))), _expand(after), width)
    code = Text(f"  {number:>{gutter}} │ ", style="dim")
    code.append(before)
    code.append(span, style="bold red reverse")
    code.append(after)
    code.rstrip()
    console.print(code, overflow="crop", no_wrap=True, crop=True)
    if marks:
        underline = Text(f"  {'':>{gutter}} │ ", style="dim")
        underline.append(" " * len(before))
        underline.append("^" * max(len(span), 1), style="bold red")
        console.print(underline, overflow="crop", no_wrap=True, crop=True)


def _expand(text: str, column: int = 0) -> str:
    # Tabs to spaces; control, bidi and zero-width characters to visible escapes (reports.visible).
    out = []
    for char in text:
        if char == "\t":
            pad = _TAB - (column % _TAB)
            out.append(" " * pad)
            column += pad
        else:
            shown = escape_char(char)
            out.append(shown)
            column += len(shown)
    return "".join(out)


def _fit(before: str, span: str, after: str, width: int) -> tuple[str, str, str]:
    """Cut a line to ``width`` characters, keeping as much of the span as fits, centred."""
    if len(before) + len(span) + len(after) <= width:
        return before, span, after
    if len(span) >= width - 2:
        return (_ELLIPSIS if before else ""), span[: width - 2] + _ELLIPSIS, ""
    room = width - len(span)
    keep_before = min(len(before), max(room // 3, room - len(after)))
    keep_after = room - keep_before
    if keep_before < len(before):
        before = _ELLIPSIS + before[len(before) - keep_before + 1 :] if keep_before > 0 else ""
    if keep_after < len(after):
        after = after[: max(keep_after - 1, 0)] + _ELLIPSIS if keep_after > 0 else ""
    return before, span, after


def summary_table(result: ScanResult) -> Table:
    """Files scanned, skipped by reason, tokens, time, speed and findings by kind."""
    stats = result.stats
    table = Table(show_header=False, box=box.ROUNDED)
    table.add_column("what", style="bold")
    table.add_column("value", justify="right")
    table.add_row("files scanned", str(stats.files_scanned))
    table.add_row("files skipped", str(sum(stats.skipped.values())))
    for reason, count in sorted(stats.skipped.items()):
        table.add_row(f"  {reason}", str(count))
    table.add_row("tokens scored", f"{stats.tokens_scored:,}")
    table.add_row("time", f"{stats.seconds:.1f} s")
    table.add_row("tokens/s", f"{stats.tokens_per_second:,.0f}")
    kinds = Counter(finding.kind for finding in result.findings)
    table.add_row("findings", str(len(result.findings)))
    for kind, count in sorted(kinds.items()):
        table.add_row(f"  {kind}", str(count))
    if stats.files_scanned == 0:
        table.add_row("note", "nothing to scan")
    return table
