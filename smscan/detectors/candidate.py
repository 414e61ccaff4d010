"""What every detector returns, and the protocol a detector follows.

A detector turns one document's token scores into scored candidate spans; a finding is a candidate
whose score reaches the kind's threshold. Keeping the threshold out of the detector is what lets
calibration sweep every threshold over cached scores in one pass, and lets ``eval`` compute AUROC
over the same scores the scan thresholds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from smscan.records import TokenScores


@dataclass(frozen=True, slots=True)
class Candidate:
    """A span ``[char_start, char_end)`` with its score (nats, comparable to the threshold)."""

    char_start: int
    char_end: int
    score: float
    details: Mapping[str, Any] = field(default_factory=dict)


class Detector(Protocol):
    """Scores candidate spans of one kind; knows nothing of thresholds."""

    kind: str
    unit: str
    """What calibration counts: ``"char"`` (credential values) or ``"line"`` (dead lines)."""
    propagate: bool
    """Whether every copy of a value in a group shares its best score (:func:`propagate_values`)."""
    context_chars: int
    """How many characters of left context a span of ``regions`` is scored with."""
    sensitive: bool
    """Whether a span's text is a secret, redacted wherever it is shown (``smscan explain``)."""

    def applies_to(self, path: str) -> bool:
        """Whether files at ``path`` are scanned for this kind."""
        ...

    def regions(self, text: str, path: str) -> list[tuple[int, int]] | None:
        """The spans ``[start, end)`` of ``text`` whose candidates need scores, or None when
        candidates need the whole document scored.

        The scan scores each span with bounded left context and the rest of its line
        (:mod:`smscan.plan.pieces`); whatever lies outside every span may be left unscored, so
        ``candidates`` must judge only what these spans cover (tokens outside them are absent).
        """
        ...

    def candidates(self, text: str, scores: TokenScores, *, path: str = "") -> list[Candidate]:
        """Every scored candidate of ``text`` (at ``path``, "" when unknown); spans of one
        document do not overlap.

        ``scores`` may cover only pieces of ``text`` (those ``regions`` asked for, in document
        offsets, a NaN at each piece's first token): a candidate without scored tokens is dropped.
        """
        ...

    def rule(self) -> dict[str, Any]:
        """The scoring rule's parameters, as saved with a threshold."""
        ...

    def reasons(self, score: float, details: Mapping[str, Any]) -> list[str]:
        """Why a candidate scored what it did, in words (``smscan explain``)."""
        ...

    def dropped(
        self, text: str, scores: TokenScores, windows: Any, *, tau: float, near: float, path: str = ""
    ) -> list[Any]:
        """Spans dropped before scoring that ``smscan explain`` shows (``detectors/explaining.Dropped``)."""
        ...


def propagate_values(
    texts: Sequence[str], candidates: Sequence[list[Candidate]]
) -> list[list[Candidate]]:
    """Give every occurrence of one value, across a group, the best score any occurrence has.

    Duplicate propagation at the level of values (paper D.5): a secret pasted into three files is
    predictable in the second and third once the model has seen it (within a file), or has the
    same shape everywhere; either way all copies are reported together or not at all.

    Args:
        texts: the documents of one group.
        candidates: the candidates of each document, aligned with ``texts``.

    Returns:
        New candidate lists with raised scores; ``details["propagated"]`` marks raised ones.
    """
    best: dict[str, float] = {}
    for text, found in zip(texts, candidates):
        for candidate in found:
            value = text[candidate.char_start : candidate.char_end]
            if candidate.score > best.get(value, -np.inf):
                best[value] = candidate.score
    raised: list[list[Candidate]] = []
    for text, found in zip(texts, candidates):
        out = []
        for candidate in found:
            top = best[text[candidate.char_start : candidate.char_end]]
            if top > candidate.score:
                candidate = Candidate(
                    candidate.char_start,
                    candidate.char_end,
                    top,
                    {**candidate.details, "propagated": True},
                )
            out.append(candidate)
        raised.append(out)
    return raised
