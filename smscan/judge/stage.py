"""The one judging stage: plan, score, mask, find candidates and keep them, one group at a time.

A scan, an export, ``explain`` and the Ray engine's actors all run :func:`judge_groups`; they
differ only in their source (what the subjects are) and their sink (what a :class:`JudgedGroup`
becomes: findings, masked spans, a trace). Per document the stage:

1. plans the pieces the rules need scored (:mod:`smscan.plan.pieces`: credential values and Python
   dead-code evidence with bounded left context, or the whole text for raw ``surprise`` and
   exports), unless the judgement memo remembers the document's candidates;
2. scores a batch of pieces at a time through the scorer chain (:func:`~smscan.judge.stages.score_batches`);
3. masks each piece under the raw Surprise Masking rule (windows never span two pieces) and asks
   each detector for its candidates over the pieces' scores in document offsets;

then, once its group is complete (duplicate propagation needs the whole group), propagates raw
masks (or masks values whole with their repeats, value-aware masking) and keeps each detector's
candidates that reach the calibrated threshold after value propagation.

Items that are not judged (a scan's :class:`~smscan.records.Skip`, an export's
:class:`~smscan.records.Rejected`) travel in the stream and join the group open when they arrive.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

import numpy as np

from smscan.engine.masking import TextMask, mask_text, propagate_group, supervised_tokens
from smscan.judge.detect import applies, kept_in_group
from smscan.judge.stages import Scored, buffer_groups, score_batches
from smscan.judge.values import RepeatIndex, TextValues, ValueRule, value_spans
from smscan.model.scorer import Scorer
from smscan.plan.pieces import document_scores, plan_pieces
from smscan.plan.regions import Piece
from smscan.records import Candidate, Document, Rejected, Skip, TokenScores
from smscan.rules.resolve import Rules
from smscan.scoring.judgements import JudgementMemo, Remembered


class Subject(Protocol):
    """What the stage judges: a scan's :class:`~smscan.records.Document`, an export's record."""

    @property
    def text(self) -> str: ...

    @property
    def path(self) -> str: ...

    @property
    def group(self) -> str: ...

    @property
    def supervised(self) -> Sequence[tuple[int, int]] | None:
        """The character intervals masks may cover (an export's supervised messages); None: all."""
        ...


S = TypeVar("S", bound=Subject)
Passed = Skip | Rejected
"""Items the stage does not judge; they keep their place in the stream."""


@dataclass(slots=True)
class Judged(Generic[S]):
    """One subject as the stage leaves it: what every sink needs.

    Attributes:
        subject: the document or record.
        scores: each scored piece's token scores, in document offsets (empty when remembered).
        masks: the raw rule's view of each piece before propagation (empty without a raw rule).
        allowed: each piece's tokens masks may cover (the subject's supervised tokens; empty
            without a raw rule).
        surprise: each piece's token mask after group propagation (aligned with ``scores``).
        value_spans: under value-aware masking, the character spans masked (``surprise`` then holds
            the code masks it started from).
        value_units: under value-aware masking, the text's value spans it judged.
        candidates: every candidate per detector kind, before propagation and threshold.
        kept: per detector kind, the candidates that reach the threshold after value propagation.
        tokens_scored: tokens the model scored to judge it (remembered: as first judged).
    """

    subject: S
    scores: list[TokenScores]
    masks: list[TextMask]
    candidates: dict[str, list[Candidate]]
    tokens_scored: int
    allowed: list[np.ndarray] = field(default_factory=list)
    surprise: list[np.ndarray] = field(default_factory=list)
    value_spans: list[tuple[int, int]] = field(default_factory=list)
    value_units: list[tuple[int, int]] = field(default_factory=list)
    kept: dict[str, list[Candidate]] = field(default_factory=dict)


@dataclass(slots=True)
class JudgedGroup(Generic[S]):
    """One finished group: its judged subjects and the items passed through, in input order."""

    items: list[Judged[S] | Passed]

    @property
    def members(self) -> list[Judged[S]]:
        return [item for item in self.items if isinstance(item, Judged)]


BatchCallback = Callable[[list[Document], list[int]], None]
"""Called before each batch is scored: its subjects and how many texts each sends the scorer."""
ItemCallback = Callable[[Subject | Passed], None]


@dataclass(slots=True)
class _Plan:
    """A subject's pieces to score, or its remembered candidates (then nothing is scored)."""

    pieces: list[Piece]
    remembered: Remembered | None

    @property
    def to_score(self) -> list[str]:
        return [piece.text for piece in self.pieces]


def judge_groups(
    items: Iterable[S | Passed],
    scorer: Scorer,
    rules: Rules,
    *,
    whole: bool = False,
    memo: JudgementMemo | None = None,
    on_batch: BatchCallback | None = None,
    on_item: ItemCallback | None = None,
) -> Iterator[JudgedGroup[S]]:
    """Judge a stream of subjects group by group (module docstring).

    Args:
        items: subjects and passed-through items in input order, each group's subjects contiguous.
        scorer: the scorer chain.
        rules: the raw rule (None: no raw masking), the detections, and value-aware masking's
            value threshold (None: the raw rule's masks are propagated as they are).
        whole: score whole texts even where the rules need less (exports, ``explain``).
        memo: remembered candidates of unchanged whole documents; used only when pieces are
            planned (raw ``surprise`` and value-aware masking need the scores themselves).
        on_batch: called before each batch is scored (progress within a batch).
        on_item: called once per item after it is judged or passed (progress).

    Yields:
        Finished groups in input order.
    """
    detectors = [detection.detector for detection in rules.detections]
    whole = whole or rules.surprise is not None
    memo = None if whole else memo

    def plan(batch: list[S | Passed]) -> list[_Plan]:
        subjects = [item for item in batch if not isinstance(item, Skip | Rejected)]
        known = memo.recall(subjects) if memo is not None else [None] * len(subjects)  # type: ignore[arg-type]  # memo keys Documents
        plans = [
            _Plan(plan_pieces(subject, detectors, whole=whole) if remembered is None else [], remembered)  # type: ignore[arg-type]  # a Subject is read as a Document
            for subject, remembered in zip(subjects, known)
        ]
        if on_batch is not None:
            on_batch(subjects, [len(planned.pieces) for planned in plans])  # type: ignore[arg-type]  # scans, the only users of on_batch, judge Documents
        return plans

    batches = score_batches(items, scorer, size_of=_size, plan=plan)
    judged = _judge_batches(batches, rules, memo, on_item)
    for group in buffer_groups(judged, _group_of):
        yield _finish_group(group, rules)


def _size(item: Subject | Passed) -> int | None:
    return None if isinstance(item, Skip | Rejected) else len(item.text)


def _group_of(item: Judged[S] | Passed) -> str | None:
    return item.subject.group if isinstance(item, Judged) else None


def _judge_batches(
    batches: Iterable[list[Scored[S | Passed, _Plan]]], rules: Rules, memo: JudgementMemo | None, on_item: ItemCallback | None
) -> Iterator[Judged[S] | Passed]:
    for batch in batches:
        fresh = []
        for entry in batch:
            item = entry.item
            out: Judged[S] | Passed
            if isinstance(item, Skip | Rejected):
                out = item
            else:
                assert entry.plan is not None
                remembered = entry.plan.remembered
                if remembered is None:
                    out = _judge_subject(item, entry.plan.pieces, entry.scores, rules)
                    fresh.append((item, Remembered(out.candidates, out.tokens_scored)))
                else:
                    out = Judged(item, [], [], remembered.candidates, remembered.tokens_scored)
            if on_item is not None:
                on_item(item)
            yield out
        if memo is not None and fresh:
            memo.remember(fresh)  # type: ignore[arg-type]  # the memo is used with Documents only


def _shift(scores: TokenScores, offset: int) -> TokenScores:
    # Scores of a piece, in the coordinates of the whole text.
    if offset == 0:
        return scores
    return TokenScores(
        token_ids=scores.token_ids, char_starts=scores.char_starts + offset, char_ends=scores.char_ends + offset, nll=scores.nll,
    )


def _judge_subject(subject: S, pieces: Sequence[Piece], scores: Sequence[TokenScores], rules: Rules) -> Judged[S]:
    shifted = [_shift(piece_scores, piece.offset) for piece, piece_scores in zip(pieces, scores)]
    masks, allowed = [], []
    if rules.surprise is not None:
        for piece_scores in shifted:
            allowed.append(supervised_tokens(piece_scores, subject.supervised))
            masks.append(mask_text(piece_scores, allowed[-1], rules.surprise))
    candidates: dict[str, list[Candidate]] = {}
    applicable = [d.detector for d in rules.detections if applies(d.detector, subject.path)]
    if applicable:
        # Detectors see the whole text and the scores of its pieces in document offsets.
        sparse = document_scores(pieces, scores)
        for detector in applicable:
            candidates[detector.kind] = detector.candidates(subject.text, sparse, path=subject.path)
    tokens = sum(int(np.isfinite(s.nll).sum()) for s in scores)
    return Judged(subject, shifted, masks, candidates, tokens, allowed)


def _finish_group(group: list[Judged[S] | Passed], rules: Rules) -> JudgedGroup[S]:
    members = [item for item in group if isinstance(item, Judged)]
    rule = rules.surprise
    if rule is not None:
        pieces = [
            (member, scores, mask, ok)
            for member in members
            for scores, mask, ok in zip(member.scores, member.masks, member.allowed)
        ]
        propagated = propagate_group(
            [scores for _, scores, _, _ in pieces], [mask.mask for _, _, mask, _ in pieces], [ok for *_, ok in pieces], rule
        )
        for (member, *_), mask in zip(pieces, propagated):
            member.surprise.append(mask)
        if rules.value_threshold is not None:
            _mask_values(members, ValueRule(rule, value_threshold=rules.value_threshold))
    texts = [member.subject.text for member in members]
    for detection in rules.detections:
        kind = detection.detector.kind
        kept = kept_in_group(detection, texts, [member.candidates.get(kind, []) for member in members])
        for member, here in zip(members, kept):
            member.kept[kind] = here
    return JudgedGroup(group)


def _mask_values(members: Sequence[Judged[S]], values: ValueRule) -> None:
    """Value-aware masking of a group of whole texts: surprising values whole, with their repeats;
    the raw rule's propagated masks (``Judged.surprise``) are its code masks."""
    scored = [member.scores[0] for member in members]  # value-aware masking scores whole texts
    supervised = [list(member.subject.supervised or [(0, len(member.subject.text))]) for member in members]
    allowed = [member.allowed[0] for member in members]
    layouts = [TextValues.of(member.subject.text, scores, ok) for member, scores, ok in zip(members, scored, allowed)]
    repeats = RepeatIndex([member.subject.text for member in members])
    code_masks = [member.surprise[0] for member in members]
    masked = value_spans(scored, allowed, supervised, values, values=layouts, repeats=repeats, code_masks=code_masks)
    for member, spans, layout in zip(members, masked, layouts):
        member.value_spans.extend(spans)
        member.value_units.extend(layout.units)
