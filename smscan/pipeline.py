"""The one place where stages are wired: Documents -> token scores -> masks and candidates -> findings.

Each document is scored once, by plan (:mod:`smscan.plan`): only the pieces the enabled kinds need
(credential values and Python dead-code evidence lines with bounded left context), or the whole
text when a kind needs it (raw ``surprise``, dead code outside parseable Python); raw Surprise
Masking (``surprise`` findings) and every detector (``credential``, ``dead-code``) read the same
token scores. Every scanning mode (repo, and later staged, diff, files, export) feeds Documents and Skips into
:func:`scan` and differs only in its source and sink. Duplicate propagation needs a whole group, so
masks are buffered one group at a time; documents of a group must arrive contiguously.
"""

from __future__ import annotations

import hashlib
import time
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from smscan.detectors import CREDENTIAL, DEAD_CODE, SURPRISE
from smscan.detectors.candidate import Candidate, propagate_values
from smscan.engine.mask import token_mask
from smscan.engine.propagate import propagate_duplicates
from smscan.engine.rules import select_global
from smscan.engine.spans import char_spans
from smscan.engine.windows import Windows, fixed_windows
from smscan.judgements import JudgementMemo, Remembered
from smscan.model.scorer import Scorer
from smscan.plan import document_scores, plan_pieces
from smscan.records import (
    Document,
    Finding,
    Position,
    ScanResult,
    Skip,
    TokenScores,
)
from smscan.regions import Piece, line_starts, touches_changed_lines
from smscan.rules import Detection

# Texts handed to the scorer at once: enough to fill its batches, few enough to keep memory flat.
_BATCH_DOCUMENTS = 16
_BATCH_CHARS = 200_000


@dataclass(frozen=True, slots=True)
class SurpriseRule:
    """Global Surprise Masking over fixed windows (paper section 2, appendix D.1-D.5)."""

    window: int
    threshold: float
    consensus: int = 1
    propagate: bool = True

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": SURPRISE,
            "rule": "global",
            "window": self.window,
            "threshold": self.threshold,
            "consensus": self.consensus,
            "propagate": self.propagate,
        }


@dataclass(slots=True)
class _Masked:
    """One scored piece under raw Surprise Masking, in document offsets."""

    scores: TokenScores
    windows: Windows
    selected: np.ndarray
    mask: np.ndarray


@dataclass(slots=True)
class _Scored:
    document: Document
    pieces: list[_Masked]
    candidates: dict[str, list[Candidate]]


ProgressCallback = Callable[[Document | Skip], None]


def scan(
    items: Iterable[Document | Skip],
    scorer: Scorer,
    rule: SurpriseRule | None,
    *,
    detections: Sequence[Detection] = (),
    on_item: ProgressCallback | None = None,
    whole_documents: bool = False,
    judgements: JudgementMemo | None = None,
) -> ScanResult:
    """Score documents once and report ``surprise`` spans and each detector's findings.

    Args:
        items: Documents to scan and Skips to count, documents of a group contiguous.
        scorer: the reference model.
        rule: raw Surprise Masking (window size, threshold, consensus, propagation), reported as
            ``surprise`` findings; None reports none.
        detections: detectors with their calibrated thresholds (``credential``, ``dead-code``).
        on_item: called once per item after it is handled (for progress bars).
        whole_documents: score whole documents even when the detectors need less (``explain``,
            which draws every token).
        judgements: remembered candidates of unchanged whole documents (``smscan.judgements``);
            not used when whole documents are scored (raw ``surprise`` needs the scores).

    Returns:
        The findings, skips and counters of the scan.
    """
    started = time.perf_counter()
    result = ScanResult()
    group_key: str | None = None
    group: list[_Scored] = []
    detectors = [detection.detector for detection in detections]
    whole = whole_documents or rule is not None
    memo = None if whole else judgements
    for batch in _batches(items, result, on_item):
        known = memo.recall(batch) if memo is not None else [None] * len(batch)
        plans = [plan_pieces(d, detectors, whole=whole) if k is None else [] for d, k in zip(batch, known)]
        scored = scorer.score_texts([piece.text for pieces in plans for piece in pieces])
        index = 0
        judged = []
        for document, pieces, remembered in zip(batch, plans, known):
            piece_scores = scored[index : index + len(pieces)]
            index += len(pieces)
            if group_key is not None and document.group != group_key:
                _finish_group(group, rule, detections, result)
                group = []
            group_key = document.group
            if remembered is not None:
                group.append(_Scored(document, [], remembered.candidates))
                result.stats.tokens_scored += remembered.tokens_scored
            else:
                group.append(_score_document(document, pieces, piece_scores, rule, detections))
                tokens = sum(int(np.isfinite(s.nll).sum()) for s in piece_scores)
                judged.append((document, Remembered(group[-1].candidates, tokens)))
                result.stats.tokens_scored += tokens
            result.stats.files_scanned += 1
            if on_item is not None:
                on_item(document)
        if memo is not None:
            memo.remember(judged)
    _finish_group(group, rule, detections, result)
    result.findings.sort(key=lambda f: (f.path, f.char_start, f.kind))
    result.stats.seconds = time.perf_counter() - started
    return result


def without_dead_code_on_credential_lines(findings: list[Finding]) -> list[Finding]:
    """Drop ``dead-code`` findings on a line that holds a ``credential`` finding.

    A credential makes its whole line surprising, and a secret assigned to a name nothing reads
    is also a dead store, so the same line would be reported twice; the credential is the finding
    to act on (and removing it removes the line's dead code too). Apply it to the findings that are
    reported, after allow comments and the baseline: a line whose credential is accepted must still
    have its dead code reported, and a baseline holds both findings of such a line.
    """
    credential_lines: dict[str, set[int]] = {}
    for finding in findings:
        if finding.kind == CREDENTIAL:
            credential_lines.setdefault(finding.path, set()).update(range(finding.start.line, finding.end.line + 1))
    return [
        finding
        for finding in findings
        if finding.kind != DEAD_CODE
        or credential_lines.get(finding.path, set()).isdisjoint(range(finding.start.line, finding.end.line + 1))
    ]


def _shift(scores: TokenScores, offset: int) -> TokenScores:
    # Scores of a piece, in the coordinates of the whole document.
    if offset == 0:
        return scores
    return TokenScores(
        token_ids=scores.token_ids,
        char_starts=scores.char_starts + offset,
        char_ends=scores.char_ends + offset,
        nll=scores.nll,
    )


def _batches(
    items: Iterable[Document | Skip], result: ScanResult, on_item: ProgressCallback | None
) -> Iterator[list[Document]]:
    batch: list[Document] = []
    chars = 0
    for item in items:
        if isinstance(item, Skip):
            result.skips.append(item)
            result.stats.skipped[item.reason] += 1
            if on_item is not None:
                on_item(item)
            continue
        batch.append(item)
        chars += len(item.text)
        if len(batch) >= _BATCH_DOCUMENTS or chars >= _BATCH_CHARS:
            yield batch
            batch, chars = [], 0
    if batch:
        yield batch


def _score_document(
    document: Document,
    pieces: Sequence[Piece],
    scores: Sequence[TokenScores],
    rule: SurpriseRule | None,
    detections: Sequence[Detection],
) -> _Scored:
    masked = []
    if rule is not None:
        # Raw masking runs within each scored piece (windows never span two pieces).
        for piece, piece_scores in zip(pieces, scores):
            shifted = _shift(piece_scores, piece.offset)
            windows = fixed_windows(shifted.nll, size=rule.window)
            selected = select_global(windows, threshold=rule.threshold)
            mask = token_mask(windows, selected, num_tokens=len(shifted), consensus=rule.consensus)
            masked.append(_Masked(shifted, windows, selected, mask))
    candidates: dict[str, list[Candidate]] = {}
    applicable = [d.detector for d in detections if d.detector.applies_to(document.path)]
    if applicable:
        # Detectors see the whole text and the scores of its pieces in document offsets.
        sparse = document_scores(pieces, scores)
        for detector in applicable:
            candidates[detector.kind] = detector.candidates(document.text, sparse)
    return _Scored(document, masked, candidates)


def _finish_group(
    group: Sequence[_Scored],
    rule: SurpriseRule | None,
    detections: Sequence[Detection],
    result: ScanResult,
) -> None:
    if not group:
        return
    if rule is not None:
        pieces = [(item.document, piece) for item in group for piece in item.pieces]
        masks = [piece.mask for _, piece in pieces]
        if rule.propagate:
            masks = propagate_duplicates(
                [piece.scores.token_ids for _, piece in pieces], masks, size=rule.window
            )
        for (document, piece), mask in zip(pieces, masks):
            result.findings.extend(_surprise_findings(document, piece, mask, rule, result))
    for detection in detections:
        kind = detection.detector.kind
        found = [item.candidates.get(kind, []) for item in group]
        if detection.detector.propagate:
            found = propagate_values([item.document.text for item in group], found)
        for item, candidates in zip(group, found):
            for candidate in candidates:
                if candidate.score >= detection.threshold:
                    finding = _finding(
                        item.document, kind, candidate.char_start, candidate.char_end,
                        score=candidate.score, threshold=detection.threshold,
                        details=dict(candidate.details), result=result,
                    )
                    if finding is not None:
                        result.findings.append(finding)


def _surprise_findings(
    document: Document, item: _Masked, mask: np.ndarray, rule: SurpriseRule, result: ScanResult
) -> Iterator[Finding]:
    token_starts = item.scores.char_starts
    for char_start, char_end in char_spans(mask, item.scores.char_starts, item.scores.char_ends):
        # The span's score is its most surprising window; a span reached only by duplicate
        # propagation may have none at or above the threshold.
        first = int(np.searchsorted(token_starts, char_start, side="left"))
        last = int(np.searchsorted(token_starts, char_end, side="left"))
        overlapping = (item.windows.starts < last) & (item.windows.ends > first)
        window_scores = item.windows.scores[overlapping & np.isfinite(item.windows.scores)]
        score = float(window_scores.max()) if window_scores.size else float("nan")
        by_window = bool((item.selected & overlapping).any())
        finding = _finding(
            document, SURPRISE, char_start, char_end, score=score,
            threshold=rule.threshold, details={"propagated": not by_window}, result=result,
        )
        if finding is not None:
            yield finding


def _finding(
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
