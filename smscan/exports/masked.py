"""The export's chain: records -> reference scores -> masks per group -> output records.

The stages are the scan's (``smscan/judge/stages.py``): records are scored a few at a time; duplicate
propagation needs a whole group, so the records of one group are held until the next group
starts, then the group is masked and handed on (with the records rejected while it was open).
Groups must arrive contiguously: a group key seen again after another group is a
:class:`~smscan.errors.SourceError` naming the key (``--two-pass``, ``exports/two_pass.py``,
regroups such input).

What is masked: Surprise Masking, raw (:class:`~smscan.engine.masking.MaskRule`, the paper's rule) or
value-aware (:class:`~smscan.exports.values.ValueRule`: surprising values masked whole with their
repeats), or detector findings (``credential``, ``dead-code``, each value whole) at their
calibrated thresholds, or both. Only supervised messages' tokens are scored for masking and
masked (``exports/layout.py`` writes the record).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from smscan.judge.detect import candidates_of, kept_in_group
from smscan.engine.spans import char_spans
from smscan.errors import SmscanError, SourceError
from smscan.exports.plan import ExportPlan
from smscan.exports.layout import Span, output_record, raw_json, render_chat
from smscan.exports.values import RepeatIndex, TextValues, ValueRule, value_spans
from smscan.kinds import SURPRISE
from smscan.engine.masking import MaskRule, mask_group, supervised_tokens
from smscan.model.scorer import Scorer
from smscan.records import DatasetRecord, Rejected, TokenScores
from smscan.rules.resolve import Detection
from smscan.judge.stages import Scored, buffer_groups, contiguous, flatten, score_batches

@dataclass(slots=True)
class GroupOutput:
    """One finished group: output records and rejects in input order, and counters.

    ``consumed`` is the number of input records read up to and including this group, so a
    resumed export skips exactly that many.
    """

    records: list[dict[str, Any]]
    rejected: list[Rejected]
    consumed: int
    tokens: int
    position: int


@dataclass(slots=True)
class _Pending:
    """A record as scored: its text (a chat rendered as one) and each text's bounds in it."""

    record: DatasetRecord
    text: str
    bounds: list[tuple[int, int]]

    @property
    def to_score(self) -> tuple[str]:
        return (self.text,)


_Item = _Pending | Rejected


def export_groups(
    items: Iterable[DatasetRecord | Rejected],
    scorer: Scorer,
    plan: ExportPlan,
    *,
    model: dict[str, Any],
    check_contiguous: bool = True,
) -> Iterator[GroupOutput]:
    """Mask a stream of records group by group.

    Args:
        items: records and rejects in input order, each group's records contiguous.
        scorer: the reference model.
        plan: what to mask and write.
        model: what each record says about the model (``scorer.describe()``).
        check_contiguous: refuse a group key that reappears after another group.

    Yields:
        Finished groups in input order.

    Raises:
        SourceError: a group's records are not contiguous.
    """
    rule_dict = plan.rule_dict()
    stream: Iterable[DatasetRecord | Rejected] = items
    if check_contiguous:
        stream = contiguous(items, record_group, scattered_record)
    pending = (item if isinstance(item, Rejected) else _pending(item) for item in stream)
    scored = flatten(score_batches(pending, scorer, size_of=_size, plan=_as_planned))
    for group in buffer_groups(scored, _scored_group):
        yield _finish(group, plan, rule_dict, model)


def record_group(item: DatasetRecord | Rejected) -> str | None:
    """A record's group key; a reject joins the group open when it was read."""
    return None if isinstance(item, Rejected) else item.group


def scattered_record(item: DatasetRecord | Rejected) -> SourceError:
    """``scattered_group`` for a stream item (only a record has a group key to reappear)."""
    assert isinstance(item, DatasetRecord)
    return scattered_group(item)


def scattered_group(item: DatasetRecord) -> SourceError:
    """The error for a record whose group appeared earlier with other groups in between."""
    return SourceError(
        f"record {item.index}: group {item.group!r} appeared earlier with other groups "
        "in between; duplicate propagation needs each group's records together: sort "
        "the input by the group field, or export with --two-pass"
    )


def _pending(record: DatasetRecord) -> _Pending:
    if record.is_chat:
        text, bounds = render_chat(record.roles, record.texts)
        return _Pending(record, text, bounds)
    return _Pending(record, record.texts[0], [(0, len(record.texts[0]))])


def _size(item: _Item) -> int | None:
    return None if isinstance(item, Rejected) else len(item.text)


def _as_planned(batch: list[_Item]) -> list[_Pending]:
    return [item for item in batch if isinstance(item, _Pending)]


def _scored_group(item: Scored[_Item, _Pending]) -> str | None:
    return None if isinstance(item.item, Rejected) else item.item.record.group


def _finish(
    group: list[Scored[_Item, _Pending]], plan: ExportPlan, rule_dict: dict[str, Any], model: dict[str, Any]
) -> GroupOutput:
    members = [(entry.item, entry.scores[0]) for entry in group if isinstance(entry.item, _Pending)]
    rejected = [entry.item for entry in group if isinstance(entry.item, Rejected)]
    pending = [item for item, _ in members]
    scored = [scores for _, scores in members]
    found = _spans(pending, scored, plan)
    records = []
    for item, spans in zip(pending, found):
        try:
            records.append(output_record(item.record, item.bounds, spans, plan, rule_dict, model))
        except SmscanError as error:  # a record the downstream tokenizer cannot label
            rejected.append(Rejected(item.record.index, str(error), raw_json(item.record)))
    last = group[-1].item
    consumed = (last.sequence if isinstance(last, Rejected) else last.record.sequence) + 1
    position = last.position if isinstance(last, Rejected) else last.record.position
    tokens = sum(int(np.isfinite(s.nll).sum()) for s in scored)
    return GroupOutput(records, rejected, consumed, tokens, position)


def _spans(pending: list[_Pending], scored: list[TokenScores], plan: ExportPlan) -> list[list[Span]]:
    """Per record, the spans raw masking and each detector mask, in the scored text."""
    supervised = [[b for b, ok in zip(item.bounds, item.record.supervised) if ok] for item in pending]
    found: list[list[Span]] = [[] for _ in pending]
    values = plan.values
    if plan.rule is not None:
        allowed = [supervised_tokens(s, iv) for s, iv in zip(scored, supervised)]
        if values is not None:
            layouts = [TextValues.of(item.text, s, ok) for item, s, ok in zip(pending, scored, allowed)]
            repeats = RepeatIndex([item.text for item in pending])
            masked = value_spans(scored, allowed, supervised, values, values=layouts, repeats=repeats)
            for spans, value_masked in zip(found, masked):
                spans.extend((a, b, SURPRISE) for a, b in value_masked)
        else:
            masks = mask_group(scored, allowed, plan.rule)
            for spans, s, mask in zip(found, scored, masks):
                spans.extend((a, b, SURPRISE) for a, b in char_spans(mask, s.char_starts, s.char_ends))
    for detection in plan.detections:
        detector = detection.detector
        candidates = [
            candidates_of(detector, str(item.record.data.get("path", "")), item.text, s)
            for item, s in zip(pending, scored)
        ]
        kept = kept_in_group(detection, [item.text for item in pending], candidates)
        for spans, here, intervals in zip(found, kept, supervised):
            for candidate in here:
                for start, end in intervals:
                    a, b = max(candidate.char_start, start), min(candidate.char_end, end)
                    if a < b:
                        spans.append((a, b, detector.kind))
    return found


@dataclass(slots=True)
class ExportStats:
    """Counters of an export run, for the summary and the progress bar."""

    records: int = 0
    rejected: int = 0
    reasons: dict[str, int] = field(default_factory=dict)
    tokens: int = 0
    masked_fraction_sum: float = 0.0
    skipped: dict[str, int] = field(default_factory=dict)
    resumed: int = 0
    run_records: int = 0
    summed_records: int = 0  # records in masked_fraction_sum (a resume restores both)
    position: int = 0
    started: float = field(default_factory=time.perf_counter)

    @property
    def mean_masked_fraction(self) -> float:
        """The mean masked fraction of every record exported, resumed ones included."""
        return self.masked_fraction_sum / max(self.summed_records, 1)

    def totals(self) -> dict[str, object]:
        """What a resume needs to carry on the summary's totals (kept in the writer's state)."""
        return {"masked_fraction_sum": self.masked_fraction_sum, "summed_records": self.summed_records,
                "reasons": dict(self.reasons)}

    def restore(self, totals: dict[str, object]) -> None:
        """Carry on from ``totals()`` of an interrupted run (an empty dict restores nothing)."""
        fraction, summed, reasons = totals.get("masked_fraction_sum"), totals.get("summed_records"), totals.get("reasons")
        if isinstance(fraction, float | int) and isinstance(summed, int) and isinstance(reasons, dict):
            self.masked_fraction_sum, self.summed_records = float(fraction), summed
            self.reasons = {str(k): int(v) for k, v in reasons.items()}

    def add(self, group: GroupOutput) -> None:
        self.records += len(group.records)
        self.run_records += len(group.records)
        self.summed_records += len(group.records)
        self.position = group.position
        self.tokens += group.tokens
        self.masked_fraction_sum += sum(r["smscan"]["masked_fraction"] for r in group.records)
        for reject in group.rejected:
            self.rejected += 1
            reason = reject.reason.split(" (")[0]
            self.reasons[reason] = self.reasons.get(reason, 0) + 1
