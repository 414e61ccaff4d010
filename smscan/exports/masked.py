"""The export's wiring: records -> reference scores -> masks per group -> output records.

Streaming: records are scored a few at a time; duplicate propagation needs a whole group, so the
records of one group are held until the next group starts, then the group is masked and handed on
(with the records rejected while it was open). Groups must arrive contiguously: a group key seen
again after another group is a :class:`~smscan.errors.SourceError` naming the key (``--two-pass``,
``exports/two_pass.py``, regroups such input).

What is masked: raw Surprise Masking (:class:`~smscan.exports.rule.MaskRule`), or detector
findings (``credential``, ``dead-code``) at their calibrated thresholds, or both.

Chats are scored as one text, each message rendered as ``"{role}:\\n{content}\\n\\n"``, so later
messages are scored in the context of earlier ones; only supervised messages' tokens are scored
for masking and masked, and spans are reported per message.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from smscan.detectors.candidate import propagate_values
from smscan.engine.spans import char_spans
from smscan.errors import SmscanError, SourceError
from smscan.exports.rule import MaskRule, mask_group, supervised_tokens
from smscan.model.scorer import Scorer
from smscan.records import DatasetRecord, Rejected, TokenScores
from smscan.rules import Detection

Mode = Literal["mask", "redact"]
SURPRISE_PLACEHOLDER = "<MASKED>"
# Texts handed to the scorer at once: enough to fill its batches, few enough to keep memory flat.
_BATCH_RECORDS = 16
_BATCH_CHARS = 200_000


@dataclass(frozen=True, slots=True)
class ExportPlan:
    """What an export masks and writes.

    Attributes:
        rule: raw Surprise Masking, or None for detector findings only.
        detections: detectors with their thresholds.
        mode: ``mask`` (spans for training) or ``redact`` (text with placeholders, for release).
        placeholders: kind -> placeholder in redact mode (defaults: ``<MASKED>`` for surprise,
            ``<CREDENTIAL>``, ``<DEAD_CODE>``).
        labeler: adds downstream ``input_ids``/``attention_mask``/``labels`` to a record
            (``exports/labels.py``); None adds none.
    """

    rule: MaskRule | None
    detections: tuple[Detection, ...] = ()
    mode: Mode = "mask"
    placeholders: dict[str, str] = field(default_factory=dict)
    labeler: Callable[[DatasetRecord, list[list[tuple[int, int]]]], dict[str, Any]] | None = None

    def rule_dict(self) -> dict[str, Any]:
        kinds = (["surprise"] if self.rule is not None else []) + [d.detector.kind for d in self.detections]
        out: dict[str, Any] = {"kinds": kinds}
        if self.rule is not None:
            out["surprise"] = self.rule.as_dict()
        for detection in self.detections:
            out[detection.detector.kind] = detection.as_dict()
        out["mode"] = self.mode
        return out

    def placeholder(self, kind: str) -> str:
        if kind in self.placeholders:
            return self.placeholders[kind]
        return SURPRISE_PLACEHOLDER if kind == "surprise" else f"<{kind.upper().replace('-', '_')}>"


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
    record: DatasetRecord
    text: str
    bounds: list[tuple[int, int]]  # each text's [start, end) in ``text``
    scores: TokenScores | None = None


def render_chat(roles: Sequence[str], contents: Sequence[str]) -> tuple[str, list[tuple[int, int]]]:
    """A chat as one text to score, and each message content's ``[start, end)`` in it.

    Example:
        >>> render_chat(["user", "assistant"], ["hi", "yo"])
        ('user:\\nhi\\n\\nassistant:\\nyo\\n\\n', [(6, 8), (21, 23)])
    """
    parts: list[str] = []
    bounds: list[tuple[int, int]] = []
    length = 0
    for role, content in zip(roles, contents):
        head = f"{role}:\n"
        start = length + len(head)
        bounds.append((start, start + len(content)))
        parts.append(f"{head}{content}\n\n")
        length += len(head) + len(content) + 2
    return "".join(parts), bounds


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
    seen: set[str] = set()
    current: list[_Pending] = []
    current_rejects: list[Rejected] = []
    finished: list[tuple[list[_Pending], list[Rejected], int, int]] = []
    unscored: list[_Pending] = []
    chars = 0
    consumed = 0
    position = 0
    key: str | None = None
    for item in items:
        position = item.position
        if isinstance(item, Rejected):
            current_rejects.append(item)
            consumed = item.sequence + 1
            continue
        if item.group != key:
            if key is not None:
                finished.append((current, current_rejects, consumed, position))
                current, current_rejects = [], []
            if check_contiguous and item.group in seen:
                raise scattered_group(item)
            seen.add(item.group)
            key = item.group
        pending = _pending(item)
        current.append(pending)
        unscored.append(pending)
        consumed = item.sequence + 1
        chars += len(pending.text)
        if len(unscored) >= _BATCH_RECORDS or chars >= _BATCH_CHARS:
            _score(scorer, unscored)
            unscored, chars = [], 0
            for group in finished:
                yield _finish(*group, plan, rule_dict, model)
            finished = []
    _score(scorer, unscored)
    finished.append((current, current_rejects, consumed, position))
    for group in finished:
        if group[0] or group[1]:
            yield _finish(*group, plan, rule_dict, model)


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


def _score(scorer: Scorer, pending: list[_Pending]) -> None:
    if not pending:
        return
    for item, scores in zip(pending, scorer.score_texts([p.text for p in pending])):
        item.scores = scores


def _finish(
    group: list[_Pending],
    rejected: list[Rejected],
    consumed: int,
    position: int,
    plan: ExportPlan,
    rule_dict: dict[str, Any],
    model: dict[str, Any],
) -> GroupOutput:
    scores = [item.scores for item in group]
    assert all(s is not None for s in scores)
    scored: list[TokenScores] = [s for s in scores if s is not None]
    supervised_intervals = [
        [b for b, ok in zip(item.bounds, item.record.supervised) if ok] for item in group
    ]
    # Kind -> per record -> spans in the scored text's coordinates.
    found: list[list[tuple[int, int, str]]] = [[] for _ in group]
    if plan.rule is not None:
        allowed = [supervised_tokens(s, iv) for s, iv in zip(scored, supervised_intervals)]
        masks = mask_group(scored, allowed, plan.rule)
        for spans, s, mask in zip(found, scored, masks):
            spans.extend((a, b, "surprise") for a, b in char_spans(mask, s.char_starts, s.char_ends))
    for detection in plan.detections:
        _detect(detection, group, scored, supervised_intervals, found)
    records = []
    for item, spans, intervals in zip(group, found, supervised_intervals):
        try:
            records.append(_output(item, spans, intervals, plan, rule_dict, model))
        except SmscanError as error:  # a record the downstream tokenizer cannot label
            rejected = [*rejected, Rejected(item.record.index, str(error), _raw(item.record))]
    tokens = sum(int(np.isfinite(s.nll).sum()) for s in scored)
    return GroupOutput(records, rejected, consumed, tokens, position)


def _raw(record: DatasetRecord) -> str:
    import json

    return json.dumps(record.data, ensure_ascii=False, default=str)


def _detect(
    detection: Detection,
    group: list[_Pending],
    scored: list[TokenScores],
    supervised_intervals: list[list[tuple[int, int]]],
    found: list[list[tuple[int, int, str]]],
) -> None:
    detector = detection.detector
    path_of = [str(item.record.data.get("path", "")) for item in group]
    candidates = [
        detector.candidates(item.text, s) if detector.applies_to(path) or not path else []
        for item, s, path in zip(group, scored, path_of)
    ]
    if detector.propagate:
        candidates = propagate_values([item.text for item in group], candidates)
    for spans, found_here, intervals in zip(found, candidates, supervised_intervals):
        for candidate in found_here:
            if candidate.score < detection.threshold:
                continue
            for start, end in intervals:
                a, b = max(candidate.char_start, start), min(candidate.char_end, end)
                if a < b:
                    spans.append((a, b, detector.kind))


def _output(
    item: _Pending,
    spans: list[tuple[int, int, str]],
    intervals: list[tuple[int, int]],
    plan: ExportPlan,
    rule_dict: dict[str, Any],
    model: dict[str, Any],
) -> dict[str, Any]:
    record = item.record
    per_text: list[list[tuple[int, int, str]]] = [[] for _ in record.texts]
    for start, end, kind in _merge(spans):
        for number, (lo, hi) in enumerate(item.bounds):
            a, b = max(start, lo), min(end, hi)
            if a < b and record.supervised[number]:
                per_text[number].append((a - lo, b - lo, kind))
    supervised_chars = sum(hi - lo for lo, hi in intervals)
    masked_chars = sum(b - a for spans_ in per_text for a, b, _ in spans_)
    fraction = round(masked_chars / supervised_chars, 6) if supervised_chars else 0.0
    masked_spans: list[list[int]] = []
    kinds: list[str] = []
    for number, spans_ in enumerate(per_text):
        for a, b, kind in spans_:
            masked_spans.append([number, a, b] if record.is_chat else [a, b])
            kinds.append(kind)
    out = dict(record.data)
    info: dict[str, Any] = {
        "masked_spans": masked_spans,
        "masked_fraction": fraction,
        **({"span_kinds": kinds} if plan.detections else {}),
        "rule": rule_dict,
        "model": model,
    }
    if plan.mode == "redact":
        redacted = [_redact(text, spans_, plan) for text, spans_ in zip(record.texts, per_text)]
        if record.is_chat:
            out[record.field] = [
                {**message, "content": text} for message, text in zip(record.data[record.field], redacted)
            ]
        else:
            out[record.field] = redacted[0]
    elif plan.labeler is not None:
        out.update(plan.labeler(record, [[(a, b) for a, b, _ in s] for s in per_text]))
    out["smscan"] = info
    return out


def _merge(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Sorted spans with overlapping or touching ones merged (the first kind wins)."""
    merged: list[tuple[int, int, str]] = []
    for start, end, kind in sorted(spans):
        if merged and start <= merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], end), last[2])
        else:
            merged.append((start, end, kind))
    return merged


def _redact(text: str, spans: list[tuple[int, int, str]], plan: ExportPlan) -> str:
    parts: list[str] = []
    previous = 0
    for start, end, kind in spans:
        parts.append(text[previous:start])
        parts.append(plan.placeholder(kind))
        previous = end
    parts.append(text[previous:])
    return "".join(parts)


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
    position: int = 0
    started: float = field(default_factory=time.perf_counter)

    def add(self, group: GroupOutput) -> None:
        self.records += len(group.records)
        self.run_records += len(group.records)
        self.position = group.position
        self.tokens += group.tokens
        self.masked_fraction_sum += sum(r["smscan"]["masked_fraction"] for r in group.records)
        for reject in group.rejected:
            self.rejected += 1
            reason = reject.reason.split(" (")[0]
            self.reasons[reason] = self.reasons.get(reason, 0) + 1
