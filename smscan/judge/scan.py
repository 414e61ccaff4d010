"""A scan's sink: judged groups -> findings.

:func:`scan` runs the one judging stage (:func:`smscan.judge.stage.judge_groups`) over documents
and turns each finished group into findings: raw ``surprise`` spans of the propagated masks and
each detector's kept candidates (``smscan.judge.findings``). :func:`smscan.decide.decisions.decide`
then applies what the user decided (kinds, allow comments, the credential/dead-code overlap, the
baseline), and :func:`smscan.decide.scanner.scan_and_decide` runs both for every scanning command.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence

from smscan.engine.masking import MaskRule
from smscan.judge.findings import make_finding, surprise_findings
from smscan.judge.stage import BatchCallback, Judged, JudgedGroup, judge_groups
from smscan.model.scorer import Scorer
from smscan.records import Detection, Document, ScanResult, Skip
from smscan.rules.resolve import Rules
from smscan.scoring.judgements import JudgementMemo

__all__ = ["BatchCallback", "ProgressCallback", "scan"]

ProgressCallback = Callable[[Document | Skip], None]


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
    rules = Rules(rule, tuple(detections))
    groups = judge_groups(
        items, scorer, rules, whole=whole_documents, memo=judgements, on_batch=on_batch,
        on_item=on_item,  # type: ignore[arg-type]  # a scan's items are Documents and Skips
    )
    for group in groups:
        _collect(group, rules, result)
    result.findings.sort(key=lambda f: (f.path, f.char_start, f.kind))
    result.stats.seconds = time.perf_counter() - started
    return result


def _collect(group: JudgedGroup[Document], rules: Rules, result: ScanResult) -> None:
    """Count the group's skips and documents, and add its findings to ``result``."""
    for item in group.items:
        if isinstance(item, Skip):
            result.skips.append(item)
            result.stats.skipped[item.reason] += 1
        elif isinstance(item, Judged):
            result.stats.tokens_scored += item.tokens_scored
            result.stats.files_scanned += 1
    for member in group.members:
        document = member.subject
        if rules.surprise is not None:
            for scores, masked, mask in zip(member.scores, member.masks, member.surprise):
                result.findings.extend(surprise_findings(document, scores, masked, mask, rules.surprise, result))
        for detection in rules.detections:
            kind = detection.detector.kind
            for candidate in member.kept.get(kind, []):
                finding = make_finding(
                    document, kind, candidate.char_start, candidate.char_end,
                    score=candidate.score, threshold=detection.threshold, details=dict(candidate.details), result=result,
                )
                if finding is not None:
                    result.findings.append(finding)
