"""Findings of a document: spans turned into reported positions, fingerprints and code frames.

A scan and ``explain`` build their findings here, so both report the same span the same way.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections.abc import Iterator
from typing import Any

import numpy as np

from smscan.engine.rules import local_ranks
from smscan.engine.spans import char_spans
from smscan.kinds import SURPRISE
from smscan.engine.masking import MaskRule, TextMask
from smscan.records import Document, Finding, Position, ScanResult, TokenScores
from smscan.plan.regions import line_starts, touches_changed_lines


def surprise_findings(
    document: Document, scores: TokenScores, masked: TextMask, mask: np.ndarray, rule: MaskRule, result: ScanResult
) -> Iterator[Finding]:
    """The ``surprise`` spans of one scored piece (``scores`` in document offsets) under ``mask``.

    A span's score is its most surprising window: its mean NLL against the threshold (global
    ranking), or 100 minus its rank among its neighbours against 100 - ``rank_max`` (local), so
    a higher score is more surprising under either. A span reached only by duplicate propagation
    may have none at or above the threshold (``details["propagated"]``).
    """
    token_starts = scores.char_starts
    windows = masked.windows
    local = rule.ranking == "local"
    values = 100.0 - local_ranks(windows, neighbours=rule.neighbours) if local else windows.scores
    threshold = 100.0 - rule.rank_max if local else rule.threshold
    for char_start, char_end in char_spans(mask, scores.char_starts, scores.char_ends):
        first = int(np.searchsorted(token_starts, char_start, side="left"))
        last = int(np.searchsorted(token_starts, char_end, side="left"))
        overlapping = (windows.starts < last) & (windows.ends > first)
        window_scores = values[overlapping & np.isfinite(values)]
        score = float(window_scores.max()) if window_scores.size else float("nan")
        by_window = bool((masked.selected & overlapping).any())
        finding = make_finding(
            document, SURPRISE, char_start, char_end, score=score,
            threshold=threshold, details={"propagated": not by_window} | ({"ranking": "local"} if local else {}), result=result,
        )
        if finding is not None:
            yield finding


def make_finding(
    document: Document,
    kind: str,
    char_start: int,
    char_end: int,
    *,
    score: float,
    threshold: float,
    details: dict[str, Any],
    result: ScanResult,
) -> Finding | None:
    """A finding of ``document``, or None when a diff scan's changed lines do not touch it.

    Records the lines it covers and its value in ``result`` for the reports.
    """
    text = document.text
    starts = line_starts(text)
    start = _position(starts, char_start)
    end = _position(starts, char_end)
    last_line = _last_line(starts, char_end)
    if not touches_changed_lines(document, start.line, last_line):
        return None
    for line in range(start.line, last_line + 1):
        lo = starts[line - 1]
        hi = starts[line] - 1 if line < len(starts) else len(text)
        result.lines.setdefault(document.path, {})[line] = text[lo:hi]
    value = text[char_start:char_end]
    fingerprint = finding_fingerprint(kind, value, document.path)
    result.values[fingerprint] = value
    return Finding(
        path=document.path,
        kind=kind,
        char_start=char_start,
        char_end=char_end,
        start=start,
        end=end,
        score=round(score, 4),
        threshold=threshold,
        fingerprint=fingerprint,
        details=details,
    )


def finding_fingerprint(kind: str, value: str, path: str) -> str:
    """Identify a finding by what it is, not by the model or where in the file it sits."""
    digest = hashlib.sha256("\0".join((kind, path, value)).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:32]


def _position(line_starts: list[int], offset: int) -> Position:
    line = bisect_right(line_starts, offset)
    return Position(line=line, column=offset - line_starts[line - 1] + 1)


def _last_line(line_starts: list[int], char_end: int) -> int:
    # The line holding the span's last character (char_end is exclusive).
    return bisect_right(line_starts, max(char_end - 1, 0))
