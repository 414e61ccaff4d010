"""Detection on one buffered group, the same for scans, exports and explain.

A detector judges each document's text and scores (``Detector.candidates``); within a group a
detector that propagates raises a value's score to that of the same value elsewhere
(``propagate_values``); a candidate is kept when it reaches the calibrated threshold. Scans turn
the kept candidates into findings, exports into masked spans, explain into verdicts.
"""

from __future__ import annotations

from collections.abc import Sequence

from smscan.engine.propagate import propagate_values
from smscan.records import Candidate, Detection, Detector


def applies(detector: Detector, path: str) -> bool:
    """Whether ``detector`` judges a document at ``path``; a record without a path is judged."""
    return not path or detector.applies_to(path)


def kept_in_group(
    detection: Detection, texts: Sequence[str], candidates: Sequence[list[Candidate]]
) -> list[list[Candidate]]:
    """Each document's candidates that reach the threshold, after value propagation in the group.

    Args:
        detection: the detector and its threshold.
        texts: the group's document texts, in order.
        candidates: each document's candidates from ``candidates_of``.

    Returns:
        Per document, the candidates to report or mask.
    """
    found = list(candidates)
    if detection.detector.propagate:
        found = propagate_values(list(texts), found)
    return [[c for c in here if c.score >= detection.threshold] for here in found]
