"""A scan's chain: Documents -> token scores -> masks and candidates -> findings.

The stages are the export's (``smscan/judge/stages.py``): documents are scored a batch at a time, by
plan (:mod:`smscan.plan.pieces`): only the pieces the enabled kinds need (credential values and Python
dead-code evidence lines with bounded left context), or the whole text when a kind needs it (raw
``surprise``, dead code outside parseable Python). Raw Surprise Masking (``surprise`` findings,
``smscan.engine.masking``) and every detector (``credential``, ``dead-code``, ``smscan.judge.detect``) read the
same token scores. Duplicate propagation needs a whole group, so documents are buffered one group
at a time; documents of a group must arrive contiguously.

:func:`scan` reports what the detectors find; :func:`smscan.decide.decisions.decide` then applies what
the user decided (kinds, allow comments, the credential/dead-code overlap, the baseline), and
:func:`smscan.decide.scanner.scan_and_decide` runs both for every scanning command.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from smscan.judge.detect import applies, kept_in_group
from smscan.detectors.candidate import Candidate
from smscan.judge.findings import finding_fingerprint, make_finding, surprise_findings
from smscan.scoring.judgements import JudgementMemo, Remembered
from smscan.engine.masking import MaskRule, TextMask, mask_text, propagate_group
from smscan.model.scorer import Scorer
from smscan.plan.pieces import document_scores, plan_pieces
from smscan.records import Document, ScanResult, Skip, TokenScores
from smscan.plan.regions import Piece
from smscan.rules.resolve import Detection
from smscan.judge.stages import Scored, buffer_groups, score_batches

SurpriseRule = MaskRule
"""A scan's raw Surprise Masking rule is the one rule type; the name stays for callers."""

__all__ = [
    "BatchCallback", "Detection", "ProgressCallback", "ScanResult", "SurpriseRule", "finding_fingerprint", "scan",
]

ProgressCallback = Callable[[Document | Skip], None]
BatchCallback = Callable[[list[Document], list[int]], None]
"""Called before each batch is scored: its documents and how many texts each sends the scorer."""


@dataclass(slots=True)
class _Plan:
    """A document's pieces to score, or its remembered candidates (then nothing is scored)."""

    pieces: list[Piece]
    remembered: Remembered | None

    @property
    def to_score(self) -> list[str]:
        return [piece.text for piece in self.pieces]


@dataclass(slots=True)
class _Judged:
    document: Document
    masked: list[tuple[TokenScores, TextMask]]  # raw masking of each piece, in document offsets
    candidates: dict[str, list[Candidate]]


def scan(
    items: Iterable[Document | Skip],
    scorer: Scorer,
    rule: MaskRule | None,
    *,
    detections: Sequence[Detection] = (),
    on_item: ProgressCallback | None = None,
    whole_documents: bool = False,
    judgements: JudgementMemo | None = None,
    on_batch: BatchCallback | None = None,
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
        judgements: remembered candidates of unchanged whole documents (``smscan.scoring.judgements``);
            not used when whole documents are scored (raw ``surprise`` needs the scores).
        on_batch: called before each batch is scored (progress within a batch).

    Returns:
        The findings, skips and counters of the scan.
    """
    started = time.perf_counter()
    result = ScanResult()
    detectors = [detection.detector for detection in detections]
    whole = whole_documents or rule is not None
    memo = None if whole else judgements

    def plan(batch: list[Document | Skip]) -> list[_Plan]:
        documents = [item for item in batch if isinstance(item, Document)]
        known = memo.recall(documents) if memo is not None else [None] * len(documents)
        plans = [
            _Plan(plan_pieces(document, detectors, whole=whole) if remembered is None else [], remembered)
            for document, remembered in zip(documents, known)
        ]
        if on_batch is not None:
            on_batch(documents, [len(planned.pieces) for planned in plans])
        return plans

    batches = score_batches(items, scorer, size_of=_size, plan=plan)
    judged = _judge(batches, rule, detections, memo, result, on_item)
    for group in buffer_groups(judged, lambda item: item.document.group):
        _finish_group(group, rule, detections, result)
    result.findings.sort(key=lambda f: (f.path, f.char_start, f.kind))
    result.stats.seconds = time.perf_counter() - started
    return result


def _size(item: Document | Skip) -> int | None:
    return len(item.text) if isinstance(item, Document) else None


def _judge(
    batches: Iterable[list[Scored[Document | Skip, _Plan]]],
    rule: MaskRule | None,
    detections: Sequence[Detection],
    memo: JudgementMemo | None,
    result: ScanResult,
    on_item: ProgressCallback | None,
) -> Iterator[_Judged]:
    """Each scored document's masks and candidates; Skips are counted here, in input order."""
    for batch in batches:
        fresh = []
        for entry in batch:
            item = entry.item
            if isinstance(item, Skip):
                result.skips.append(item)
                result.stats.skipped[item.reason] += 1
            else:
                assert entry.plan is not None
                remembered = entry.plan.remembered
                if remembered is None:
                    judged = _judge_document(item, entry.plan.pieces, entry.scores, rule, detections)
                    tokens = sum(int(np.isfinite(s.nll).sum()) for s in entry.scores)
                    remembered = Remembered(judged.candidates, tokens)
                    fresh.append((item, remembered))
                else:
                    judged = _Judged(item, [], remembered.candidates)
                result.stats.tokens_scored += remembered.tokens_scored
                result.stats.files_scanned += 1
            if on_item is not None:
                on_item(item)
            if isinstance(item, Document):
                yield judged
        if memo is not None:
            memo.remember(fresh)


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


def _judge_document(
    document: Document,
    pieces: Sequence[Piece],
    scores: Sequence[TokenScores],
    rule: MaskRule | None,
    detections: Sequence[Detection],
) -> _Judged:
    masked = []
    if rule is not None:
        # Raw masking runs within each scored piece (windows never span two pieces).
        for piece, piece_scores in zip(pieces, scores):
            shifted = _shift(piece_scores, piece.offset)
            masked.append((shifted, mask_text(shifted, np.ones(len(shifted), dtype=np.bool_), rule)))
    candidates: dict[str, list[Candidate]] = {}
    applicable = [d.detector for d in detections if applies(d.detector, document.path)]
    if applicable:
        # Detectors see the whole text and the scores of its pieces in document offsets.
        sparse = document_scores(pieces, scores)
        for detector in applicable:
            candidates[detector.kind] = detector.candidates(document.text, sparse, path=document.path)
    return _Judged(document, masked, candidates)


def _finish_group(
    group: Sequence[_Judged], rule: MaskRule | None, detections: Sequence[Detection], result: ScanResult
) -> None:
    if rule is not None:
        pieces = [(item.document, scores, masked) for item in group for scores, masked in item.masked]
        masks = propagate_group(
            [scores for _, scores, _ in pieces], [masked.mask for _, _, masked in pieces],
            [np.ones(len(scores), dtype=np.bool_) for _, scores, _ in pieces], rule,
        )
        for (document, scores, masked), mask in zip(pieces, masks):
            result.findings.extend(surprise_findings(document, scores, masked, mask, rule, result))
    texts = [item.document.text for item in group]
    for detection in detections:
        kind = detection.detector.kind
        kept = kept_in_group(detection, texts, [item.candidates.get(kind, []) for item in group])
        for item, candidates in zip(group, kept):
            for candidate in candidates:
                finding = make_finding(
                    item.document, kind, candidate.char_start, candidate.char_end,
                    score=candidate.score, threshold=detection.threshold,
                    details=dict(candidate.details), result=result,
                )
                if finding is not None:
                    result.findings.append(finding)
