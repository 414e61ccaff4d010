"""Units of a labelled set: every character's and line's best candidate score, and its label.

A detector scores candidate spans; here every unit (a character, or a line) takes the best score
of a candidate covering it (``-inf`` when none does), so "reported at threshold tau" is exactly
"unit score >= tau" and one sort yields every operating point (:func:`metrics.sweep`). A line is
a target when it holds a target character (credentials) or is a labelled line (dead code).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from smscan.sources.labels import LabelledText
from smscan.records import Candidate, Detector
from smscan.engine.propagate import propagate_values
from smscan.records import TokenScores


@dataclass(slots=True)
class UnitScores:
    """Scores and labels of every unit of a labelled set, for one detector."""

    char_scores: np.ndarray
    char_labels: np.ndarray
    line_scores: np.ndarray
    line_labels: np.ndarray
    # Per document: slices of the char and line arrays, for cross-validation by document.
    char_bounds: list[tuple[int, int]] = field(default_factory=list)
    line_bounds: list[tuple[int, int]] = field(default_factory=list)
    # Hard negatives: (category, best score over the span).
    negatives: list[tuple[str, float]] = field(default_factory=list)

    def unit(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        if name == "char":
            return self.char_scores, self.char_labels
        return self.line_scores, self.line_labels


def score_units(
    detector: Detector,
    documents: Sequence[LabelledText],
    scores: Sequence[TokenScores],
    *,
    propagate: bool = True,
) -> UnitScores:
    """Each character's and line's best candidate score, next to its label.

    Args:
        detector: the detector whose candidates are scored.
        documents: labelled documents.
        scores: token scores of each document's text, aligned with ``documents``.
        propagate: apply value propagation within each document group, as scans do.

    Returns:
        Flat arrays over all documents (characters, then lines), and hard-negative scores.
    """
    found = [detector.candidates(d.text, s, path=d.name) for d, s in zip(documents, scores)]
    if propagate:
        found = _propagate_by_group(documents, found)
    char_scores, char_labels, line_scores, line_labels = [], [], [], []
    char_bounds, line_bounds, negatives = [], [], []
    chars = lines = 0
    for document, candidates in zip(documents, found):
        per_char = candidate_char_scores(len(document.text), candidates)
        labels = np.zeros(len(document.text), dtype=np.bool_)
        for start, end in document.spans:
            labels[start:end] = True
        line_of = _line_index(document.text)
        count = int(line_of[-1]) + 1 if line_of.size else 1
        per_line = np.full(count, -np.inf)
        np.maximum.at(per_line, line_of, per_char)
        line_truth = np.zeros(count, dtype=np.bool_)
        np.logical_or.at(line_truth, line_of, labels)
        for line in document.lines:
            if line - 1 < count:
                line_truth[line - 1] = True
                lo, hi = _line_extent(document.text, line)
                labels[lo:hi] = True
        for start, end, category in document.negatives:
            best = float(per_char[start:end].max()) if end > start else -np.inf
            negatives.append((category, best))
        char_scores.append(per_char)
        char_labels.append(labels)
        line_scores.append(per_line)
        line_labels.append(line_truth)
        char_bounds.append((chars, chars + len(per_char)))
        line_bounds.append((lines, lines + count))
        chars += len(per_char)
        lines += count
    return UnitScores(
        char_scores=_concat(char_scores, np.float64),
        char_labels=_concat(char_labels, np.bool_),
        line_scores=_concat(line_scores, np.float64),
        line_labels=_concat(line_labels, np.bool_),
        char_bounds=char_bounds,
        line_bounds=line_bounds,
        negatives=negatives,
    )


def candidate_char_scores(length: int, candidates: Sequence[Candidate]) -> np.ndarray:
    """Per character of a text: the best score of a candidate covering it, else ``-inf``."""
    per_char = np.full(length, -np.inf)
    for candidate in candidates:
        segment = per_char[candidate.char_start : candidate.char_end]
        np.maximum(segment, candidate.score, out=segment)
    return per_char


def _propagate_by_group(
    documents: Sequence[LabelledText], found: list[list[Candidate]]
) -> list[list[Candidate]]:
    by_group: dict[str, list[int]] = {}
    for index, document in enumerate(documents):
        by_group.setdefault(document.group or document.name, []).append(index)
    out = list(found)
    for indexes in by_group.values():
        raised = propagate_values([documents[i].text for i in indexes], [found[i] for i in indexes])
        for index, candidates in zip(indexes, raised):
            out[index] = candidates
    return out


def _line_index(text: str) -> np.ndarray:
    """0-based line number of every character (a newline belongs to the line it ends)."""
    newlines = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32) == 10
    before = np.concatenate(([0], np.cumsum(newlines)[:-1])) if newlines.size else newlines.astype(np.int64)
    return before.astype(np.int64)


def _line_extent(text: str, line: int) -> tuple[int, int]:
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    end = text.find("\n", start)
    end = len(text) if end == -1 else end
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _concat(parts: list[np.ndarray], dtype: Any) -> np.ndarray:
    return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)
