"""The ``smscan explain`` view: a surprisal heat map, window scores, and a verdict per span.

This module only draws an :class:`Explanation` (built by :mod:`smscan.cli.explain`, which runs the
scorer, the engine and the detectors): each character is coloured by the NLL of the token that
covers it (see :data:`SCALE` and the legend), each line shows its highest token NLL so the map
reads without colour, then the most surprising windows, then for every flagged or
near-threshold span why it was or was not reported.

With ``redact_values`` the characters of credential candidates and flagged ``surprise`` spans are
drawn as ``•`` everywhere in the view, as in other shared output.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rich.console import Console
from rich.text import Text

from smscan.reports.redact import occurrences
from smscan.reports.visible import escape_char, visible

# Upper bounds (nats per token) of the heat map's bins and their styles; the last bin is open.
SCALE: tuple[tuple[float, str], ...] = (
    (1.0, "grey50"),
    (2.0, "green"),
    (4.0, "yellow"),
    (6.0, "dark_orange"),
    (8.0, "red"),
    (math.inf, "bold white on red"),
)
_MASK = "•"


@dataclass(frozen=True, slots=True)
class TokenHeat:
    """One token's characters ``[char_start, char_end)`` and its NLL (NaN: no score)."""

    char_start: int
    char_end: int
    nll: float


@dataclass(frozen=True, slots=True)
class WindowScore:
    """A window of tokens: where it starts, its characters, mean NLL and whether it was selected."""

    line: int
    column: int
    char_start: int
    char_end: int
    score: float
    selected: bool


@dataclass(frozen=True, slots=True)
class SpanVerdict:
    """A flagged or near-threshold span and why it was or was not reported."""

    kind: str
    line: int
    column: int
    end_line: int
    end_column: int
    score: float
    threshold: float
    reported: bool
    reasons: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Explanation:
    """Everything ``explain`` shows for lines ``first_line..last_line`` of one file."""

    path: str
    text: str
    first_line: int
    last_line: int
    model: str
    window: int
    surprise_threshold: float
    tokens: tuple[TokenHeat, ...]
    windows: tuple[WindowScore, ...]
    spans: tuple[SpanVerdict, ...]
    sensitive: tuple[tuple[int, int], ...] = ()
    """Character ranges drawn as ``•`` when values are redacted."""
    kinds: tuple[str, ...] = ()
    """The kinds a scan reports (the verdicts cover these)."""
    local_selection: str = ""
    """Under local ranking, how windows are selected (then τ does not select them); else empty."""


def heat_style(nll: float) -> str:
    """The style of a token with this NLL (no style for an unscored token).

    Example:
        >>> heat_style(0.2), heat_style(9.0), heat_style(float("nan"))
        ('grey50', 'bold white on red', '')
    """
    if not math.isfinite(nll):
        return ""
    for bound, style in SCALE:
        if nll < bound:
            return style
    return SCALE[-1][1]


def render_explanation(console: Console, explanation: Explanation, *, redact_values: bool) -> None:
    """Print the heat map with its legend, the top windows and the span verdicts.

    Args:
        console: where to print (its width bounds the code lines).
        explanation: what to show.
        redact_values: draw credential candidates and flagged surprise spans as ``•``.
    """
    e = explanation
    text = _masked(e.text, e.sensitive) if redact_values else e.text
    console.print(
        Text.assemble(
            ("explain ", "bold"), (f"{visible(e.path)}:{e.first_line}-{e.last_line}", "bold underline"),
            f"  model {e.model}; windows of {e.window} tokens; "
            + (e.local_selection or f"surprise threshold τ {e.surprise_threshold:.2f}"),
        )
    )
    if e.kinds:
        console.print(f"reported kinds: {', '.join(e.kinds)}")
    console.print(_legend())
    _print_heat_map(console, e, text)
    console.print()
    console.print(Text("most surprising windows", style="bold"))
    if not e.windows:
        console.print("  (no scored window in these lines)")
    for window in e.windows:
        if e.local_selection:
            mark = "selected" if window.selected else "not selected"
        else:
            mark = "≥ τ, selected" if window.selected else f"< τ by {e.surprise_threshold - window.score:.2f}"
        snippet = visible(text[window.char_start : window.char_end].replace("\n", "⏎").replace("\t", " "))
        where = f"{window.line}:{window.column}"
        line = Text(f"  {where:<9} {window.score:5.2f}  {mark:<16}  ")
        line.append(snippet, style=heat_style(window.score))
        console.print(line, overflow="ellipsis", no_wrap=True, crop=True)
    console.print()
    console.print(Text("spans", style="bold"))
    if not e.spans:
        console.print("  no flagged or near-threshold span in these lines")
    for span in e.spans:
        verdict = ("reported", "bold red") if span.reported else ("not reported", "bold green")
        score = "n/a" if not math.isfinite(span.score) else f"{span.score:.2f}"
        console.print(
            Text.assemble(
                f"  {span.line}:{span.column}-{span.end_line}:{span.end_column}  ",
                (span.kind, "bold magenta"),
                f"  score {score} vs threshold {span.threshold:.2f}: ",
                verdict,
            )
        )
        for reason in span.reasons:
            console.print(Text(f"      - {reason}"))


def _legend() -> Text:
    legend = Text("legend (NLL, nats/token): ")
    low = 0.0
    for bound, style in SCALE:
        label = f"≥{low:g}" if math.isinf(bound) else f"{low:g}-{bound:g}"
        legend.append(f" {label} ", style=style)
        low = bound
    legend.append("  (the number before each line is its highest token NLL)")
    return legend


def _print_heat_map(console: Console, e: Explanation, text: str) -> None:
    starts = [0]
    for index, char in enumerate(text):
        if char == "\n":
            starts.append(index + 1)
    nll_at = [math.nan] * len(text)
    for token in e.tokens:
        for position in range(max(token.char_start, 0), min(token.char_end, len(text))):
            nll_at[position] = token.nll
    gutter = len(str(e.last_line))
    for number in range(e.first_line, min(e.last_line, len(starts)) + 1):
        lo = starts[number - 1]
        hi = starts[number] - 1 if number < len(starts) else len(text)
        scored = [v for v in nll_at[lo:hi] if math.isfinite(v)]
        peak = f"{max(scored):5.1f}" if scored else "    -"
        line = Text(f"{number:>{gutter}} {peak} │ ", style="dim")
        for position in range(lo, hi):
            char = text[position]
            char = "    " if char == "\t" else escape_char(char)
            line.append(char, style=heat_style(nll_at[position]))
        console.print(line, overflow="ellipsis", no_wrap=True, crop=True)


def _masked(text: str, ranges: tuple[tuple[int, int], ...]) -> str:
    # Each sensitive value is hidden wherever it is written again in the shown text, not only
    # where it was judged.
    values = [text[start:end] for start, end in ranges]
    chars = list(text)
    for start, end in [*ranges, *occurrences(text, values)]:
        for position in range(max(start, 0), min(end, len(chars))):
            if chars[position] != "\n":
                chars[position] = _MASK
    return "".join(chars)
