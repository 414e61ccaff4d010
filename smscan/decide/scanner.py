"""One library call for every scanning command: scan, then decide what is reported.

``smscan repo``, ``staged``, ``diff``, ``files``, ``baseline`` and ``explain`` all reach their
findings through :func:`scan_and_decide`, so what one reports is what the others report; the
commands only choose the source, build the scorer and rules, and render.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from smscan.decide.baseline import Baseline
from smscan.decide.decisions import decide
from smscan.scoring.judgements import JudgementMemo
from smscan.model.scorer import Scorer
from smscan.judge.scan import BatchCallback, ProgressCallback, scan
from smscan.records import Document, ScanResult, Skip, Suppressed
from smscan.rules.resolve import Rules


def scan_and_decide(
    items: Sequence[Document | Skip],
    scorer: Scorer | None,
    rules: Rules,
    *,
    kinds: Iterable[str] | None,
    baseline: tuple[str, Baseline] | None = None,
    on_item: ProgressCallback | None = None,
    annotate: Callable[[ScanResult], None] | None = None,
    on_batch: BatchCallback | None = None,
) -> tuple[ScanResult, Suppressed]:
    """Scan ``items`` and keep the findings a report shows (``smscan.decide.decisions``).

    Args:
        items: Documents and Skips, documents of a group contiguous.
        scorer: the scorer chain, or None when there is nothing to score (only Skips).
        rules: the kinds and thresholds (``smscan.rules.resolve.resolve_rules``).
        kinds: the kinds the user asked for (``Settings.kinds``); None: every kind of ``rules``.
        baseline: the baseline's name and entries, or None.
        on_item: called once per item (progress).
        annotate: may annotate the detectors' findings before any decision (commit ids).
        on_batch: called before each batch is scored (progress within a batch).

    Returns:
        The result with its reported findings, and what was suppressed.
    """
    if scorer is None:
        result = skips_only(items, on_item)
    else:
        memo = judgement_memo(scorer, rules)
        result = scan(
            items, scorer, rules.surprise, detections=rules.detections, on_item=on_item, judgements=memo,
            on_batch=on_batch,
        )
    if annotate is not None:
        annotate(result)
    suppressed = decide(result, items, kinds=kinds, baseline=baseline)
    return result, suppressed


def judgement_memo(scorer: Scorer, rules: Rules) -> JudgementMemo | None:
    """Remembered candidates of unchanged documents, kept in the score cache when it is on."""
    from smscan.scoring.cache_entries import settings_key
    from smscan.scoring.cached_scorer import CachedScorer

    if not isinstance(scorer, CachedScorer) or rules.surprise is not None or not rules.detections:
        return None
    return JudgementMemo(
        scorer.judgement_store(), fingerprint=scorer.fingerprint, settings_key=settings_key(scorer.settings),
        detectors=[detection.detector for detection in rules.detections],
    )


def skips_only(items: Sequence[Document | Skip], on_item: ProgressCallback | None = None) -> ScanResult:
    """The result of a scan with nothing to score: no model is loaded (or downloaded) to say so."""
    result = ScanResult()
    for item in items:
        if isinstance(item, Skip):
            result.skips.append(item)
            result.stats.skipped[item.reason] += 1
        if on_item is not None:
            on_item(item)
    return result
