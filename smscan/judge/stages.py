"""The stages every chain shares: score in batches, then buffer one group at a time.

A scan (``smscan/judge/scan.py``), an export (``smscan/exports/masked.py``) and the Ray engine
(``smscan/exports/ray_engine.py``) run these same functions, so they batch the scorer's work and
cut groups the same way by construction::

    items ──▶ score_batches ──▶ buffer_groups ──▶ mask / detect ──▶ sink

Items that are not scored (a scan's Skips, an export's rejects) travel in the stream in input
order: they count toward no batch and join the group open when they were read (the first group
when read before any), so a group's counters (an export's ``consumed``) include them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from smscan.errors import SourceError
from smscan.model.scorer import Scorer
from smscan.records import TokenScores

# Items handed to the scorer at once: enough to fill its batches, few enough to keep memory flat.
BATCH_ITEMS = 16
BATCH_CHARS = 200_000

Item = TypeVar("Item")


class Planned(Protocol):
    """What a plan says of one item: the texts to score for it, ``to_score`` (none for a remembered one)."""

    @property
    def to_score(self) -> Sequence[str]: ...


PlanT = TypeVar("PlanT", bound=Planned)


@dataclass(slots=True)
class Scored(Generic[Item, PlanT]):
    """An item, its plan, and the scores of the plan's texts (in the plan's order).

    ``plan`` is None for an item that is not scored (a Skip, a reject).
    """

    item: Item
    plan: PlanT | None
    scores: list[TokenScores]


def score_batches(
    items: Iterable[Item],
    scorer: Scorer,
    *,
    size_of: Callable[[Item], int | None],
    plan: Callable[[list[Item]], list[PlanT]],
) -> Iterator[list[Scored[Item, PlanT]]]:
    """Score items a batch at a time (``BATCH_ITEMS`` items or ``BATCH_CHARS`` characters).

    Args:
        items: the stream, in input order.
        scorer: the reference model (any layer of the scorer chain).
        size_of: an item's characters, or None for an item that is not scored.
        plan: the plans of a batch's scored items (called once per batch, so a plan may look a
            whole batch up at once, as the judgement memo does).

    Yields:
        Each batch's items in input order, with their scores; one ``score_texts`` call per batch.
    """
    queue: list[Item] = []
    counted = chars = 0
    for item in items:
        queue.append(item)
        size = size_of(item)
        if size is None:
            continue
        counted += 1
        chars += size
        if counted >= BATCH_ITEMS or chars >= BATCH_CHARS:
            yield _score(queue, scorer, size_of, plan)
            queue, counted, chars = [], 0, 0
    if queue:
        yield _score(queue, scorer, size_of, plan)


def _score(
    queue: list[Item],
    scorer: Scorer,
    size_of: Callable[[Item], int | None],
    plan: Callable[[list[Item]], list[PlanT]],
) -> list[Scored[Item, PlanT]]:
    scorable = [item for item in queue if size_of(item) is not None]
    plans = plan(scorable) if scorable else []
    texts = [text for planned in plans for text in planned.to_score]
    scores = scorer.score_texts(texts) if scorable else []
    by_item = iter(plans)
    out: list[Scored[Item, PlanT]] = []
    index = 0
    for item in queue:
        if size_of(item) is None:
            out.append(Scored(item, None, []))
            continue
        planned = next(by_item)
        count = len(planned.to_score)
        out.append(Scored(item, planned, list(scores[index : index + count])))
        index += count
    return out


def buffer_groups(items: Iterable[Item], key_of: Callable[[Item], str | None]) -> Iterator[list[Item]]:
    """Cut a stream into whole groups, one buffered at a time (duplicate propagation needs one).

    Args:
        items: the stream, each group's members contiguous (``contiguous`` checks it).
        key_of: an item's group key, or None for an item that joins the open group.

    Yields:
        Each group's items in input order; a stream of only keyless items is one group.

    Example:
        >>> list(buffer_groups(["a1", "-", "a2", "b1"], lambda s: None if s == "-" else s[0]))
        [['a1', '-', 'a2'], ['b1']]
    """
    group: list[Item] = []
    open_key: str | None = None
    for item in items:
        key = key_of(item)
        if key is not None and key != open_key:
            if open_key is not None:
                yield group
                group = []
            open_key = key
        group.append(item)
    if group:
        yield group


def contiguous(
    items: Iterable[Item], key_of: Callable[[Item], str | None], scattered: Callable[[Item], SourceError]
) -> Iterator[Item]:
    """The stream as read, refused as soon as a group key reappears after another group.

    Checked where the input is read, before anything of the stream is scored, so an input that
    cannot be grouped fails before any of it is written.

    Raises:
        SourceError: ``scattered(item)`` for the first item whose group was closed before.
    """
    seen: set[str] = set()
    open_key: str | None = None
    for item in items:
        key = key_of(item)
        if key is not None and key != open_key:
            if key in seen:
                raise scattered(item)
            seen.add(key)
            open_key = key
        yield item

