"""The shape of a kind's labels, the propagation groups of labelled texts, and the cross-validation
folds they are dealt to whole."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from smscan.calibration.calibrate import deal_folds
from smscan.sources.labels import LabelledText


def group_folds(documents: Sequence[LabelledText], folds: int, seed: int) -> Iterator[tuple[list[int], list[int]]]:
    """The (held-out, kept) document indices of each fold, whole groups dealt to one fold; a fold
    left with nothing held or nothing kept is skipped."""
    fold_of = deal_folds([group_key(d) for d in documents], folds, seed)
    for fold in range(folds):
        held = [i for i, d in enumerate(documents) if fold_of[group_key(d)] == fold]
        kept = [i for i, d in enumerate(documents) if fold_of[group_key(d)] != fold]
        if held and kept:
            yield held, kept


def group_key(document: LabelledText) -> str:
    """The propagation group of a labelled text: its ``group``, which :func:`read_labels` takes
    from the row alone (``group``, else the first component of ``path``, else the row itself),
    never from where the labels file lies; a text built without one is a group of its own."""
    return document.group or document.name


def label_shape(kind: str) -> str:
    """The label rows ``kind`` is measured on: ``"lines"`` for a detector that counts whole lines
    (its ``unit``), else ``"spans"`` (raw ``surprise`` masks character spans)."""
    from smscan.detectors import make_detector
    from smscan.kinds import SURPRISE

    return "spans" if kind == SURPRISE else ("lines" if make_detector(kind).unit == "line" else "spans")
