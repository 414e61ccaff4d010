"""The export's chain: records -> reference scores -> masks per group -> output records.

The judging stage is the scan's (:func:`smscan.judge.stage.judge_groups`, whole texts): records
are scored a few at a time; duplicate propagation needs a whole group, so the records of one group
are held until the next group starts, then the group is masked and handed on (with the records
rejected while it was open). This module is the export's sink: judged groups -> output records.
Groups must arrive contiguously: a group key seen again after another group is a
:class:`~smscan.errors.SourceError` naming the key (``--two-pass``, ``exports/two_pass.py``,
regroups such input).

What is masked: Surprise Masking, raw (:class:`~smscan.engine.masking.MaskRule`, the paper's rule) or
value-aware (:class:`~smscan.judge.values.ValueRule`: surprising values masked whole with their
repeats), or detector findings (``credential``, ``dead-code``, each value whole) at their
calibrated thresholds, or both. Only supervised messages' tokens are scored for masking and
masked (``exports/layout.py`` writes the record).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from smscan.engine.spans import char_spans
from smscan.errors import SmscanError, SourceError
from smscan.exports.layout import Span, output_record, raw_json, render_chat
from smscan.exports.plan import ExportPlan
from smscan.judge.stage import Judged, JudgedGroup, judge_groups
from smscan.judge.stages import contiguous
from smscan.judge.values import mask_every_occurrence
from smscan.kinds import SURPRISE
from smscan.model.scorer import Scorer
from smscan.records import DatasetRecord, Rejected
from smscan.rules.resolve import Rules


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
    """A record as judged: its text (a chat rendered as one) and each text's bounds in it."""

    record: DatasetRecord
    text: str
    bounds: list[tuple[int, int]]
    changed_lines: None = None  # an export judges whole texts

    @property
    def path(self) -> str:
        return str(self.record.data.get("path", ""))

    @property
    def group(self) -> str:
        return self.record.group

    @property
    def supervised(self) -> list[tuple[int, int]]:
        """The bounds of the supervised messages: only their tokens are masked."""
        return [bounds for bounds, ok in zip(self.bounds, self.record.supervised) if ok]


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
    rules = Rules(plan.rule, plan.detections, plan.value_threshold if plan.values is not None else None)
    stream: Iterable[DatasetRecord | Rejected] = items
    if check_contiguous:
        stream = contiguous(items, record_group, scattered_record)
    pending = (item if isinstance(item, Rejected) else _pending(item) for item in stream)
    for group in judge_groups(pending, scorer, rules, whole=True):
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


def _finish(group: JudgedGroup[_Pending], plan: ExportPlan, rule_dict: dict[str, Any], model: dict[str, Any]) -> GroupOutput:
    rejected = [item for item in group.items if isinstance(item, Rejected)]
    records = []
    members = group.members
    found = [_spans(member, plan) for member in members]
    if plan.rule is not None and plan.values is not None:  # no value left half-learnable in the group
        texts = [member.subject.text for member in members]
        found = mask_every_occurrence(texts, [member.value_units for member in members], found,
                                      [member.subject.supervised for member in members], min_chars=plan.values.min_repeat_chars)
    for member, spans in zip(members, found):
        item = member.subject
        try:
            records.append(output_record(item.record, item.bounds, spans, plan, rule_dict, model))
        except SmscanError as error:  # a record the downstream tokenizer cannot label
            rejected.append(Rejected(item.record.index, str(error), raw_json(item.record)))
    last = group.items[-1]
    if isinstance(last, Rejected):
        last_record: DatasetRecord | Rejected = last
    else:
        assert isinstance(last, Judged)  # an export passes only rejects through
        last_record = last.subject.record
    consumed = last_record.sequence + 1
    position = last_record.position
    tokens = sum(member.tokens_scored for member in group.members)
    return GroupOutput(records, rejected, consumed, tokens, position)


def _spans(member: Judged[_Pending], plan: ExportPlan) -> list[Span]:
    """The spans raw (or value-aware) masking and each detector mask in one record's scored text."""
    spans: list[Span] = []
    if plan.rule is not None:
        if plan.values is not None:
            spans.extend((a, b, SURPRISE) for a, b in member.value_spans)
        else:
            for scores, mask in zip(member.scores, member.surprise):
                spans.extend((a, b, SURPRISE) for a, b in char_spans(mask, scores.char_starts, scores.char_ends))
    supervised: Sequence[tuple[int, int]] = member.subject.supervised
    for detection in plan.detections:
        kind = detection.detector.kind
        for candidate in member.kept.get(kind, []):
            for start, end in supervised:
                a, b = max(candidate.char_start, start), min(candidate.char_end, end)
                if a < b:
                    spans.append((a, b, kind))
    return spans


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
