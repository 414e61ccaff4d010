"""Value-aware Surprise Masking: a surprising value is masked whole, with its repeats.

Raw Surprise Masking masks window-shaped pieces: a window at or above the threshold masks its
``window`` tokens, so a 32-character token is masked where its windows are surprising enough and
left supervised at its ends, and a repeat is masked only where the same token ``window``-gram
was wholly masked. Here the unit is the value (:mod:`smscan.exports.value_units`):

1. a value is *triggered* when its own tokens are surprising: the highest mean NLL of
   ``value_window`` consecutive tokens inside it (all of them when it is shorter) reaches the
   threshold. A window reaching into a value from its neighbours does not count, so the words
   next to a surprising value stay supervised. A triggered value is masked whole;
2. code structure (keywords, punctuation, ordinary identifiers and plain words: what no value
   covers) is held to a stricter rule: raw masking at ``threshold + code_margin`` (with the
   paper's duplicate propagation); ``code_margin = 0`` keeps every raw token, so the result then
   contains the paper's mask;
3. every exact repeat of a masked value (``min_repeat_chars`` or longer) in the group's texts,
   standing alone (not inside a longer word), is masked too.

Results are character spans of the scored text, restricted to the supervised intervals.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from smscan.engine.spans import char_spans
from smscan.exports.value_units import value_units
from smscan.masking import MaskRule, mask_group
from smscan.records import TokenScores

CharSpan = tuple[int, int]


@dataclass(frozen=True, slots=True)
class ValueRule:
    """Value-aware masking on top of a raw rule; validated on construction.

    Attributes:
        rule: the raw rule (window, threshold, consensus, propagation) whose windows trigger values.
        code_margin: nats added to the threshold for tokens of code structure (0: raw rule there).
        min_repeat_chars: shortest masked value whose repeats in the group are masked too.
        value_window: tokens of a value whose mean NLL triggers it (step 1).

    Example:
        >>> ValueRule(MaskRule(threshold=5.0), code_margin=1.5).as_dict()["code_margin"]
        1.5
    """

    rule: MaskRule
    code_margin: float = 0.0
    min_repeat_chars: int = 4
    value_window: int = 2

    def __post_init__(self) -> None:
        if not (np.isfinite(self.code_margin) and self.code_margin >= 0):
            raise ValueError(f"code_margin must be a finite number >= 0, got {self.code_margin}")
        if self.min_repeat_chars < 1:
            raise ValueError(f"min_repeat_chars must be at least 1, got {self.min_repeat_chars}")
        if self.value_window < 1:
            raise ValueError(f"value_window must be at least 1, got {self.value_window}")

    def as_dict(self) -> dict[str, Any]:
        """What an exported record and a thresholds file record of the rule."""
        return {
            "masking": "values", "code_margin": float(self.code_margin), "min_repeat_chars": self.min_repeat_chars,
            "value_window": self.value_window,
        }

    def at(self, threshold: float) -> ValueRule:
        """The same rule at another threshold (calibration)."""
        return replace(self, rule=replace(self.rule, threshold=float(threshold)))


@dataclass(slots=True)
class TextValues:
    """One text's value spans and each value's surprise (computed once per text)."""

    text: str
    units: list[CharSpan]
    scores: np.ndarray
    """Per value: the highest mean NLL of ``value_window`` consecutive supervised tokens
    overlapping it (-inf for a value without a scored token)."""

    @classmethod
    def of(cls, text: str, scores: TokenScores, allowed: np.ndarray, *, value_window: int = 2) -> TextValues:
        units = value_units(text)
        starts, ends = scores.char_starts, scores.char_ends
        nll = np.where(allowed, scores.nll, np.nan)
        surprise = np.full(len(units), -np.inf)
        for number, (a, b) in enumerate(units):
            own = nll[(starts < b) & (ends > a)]
            own = own[np.isfinite(own)]
            if own.size:
                size = min(value_window, own.size)
                sums = np.concatenate(([0.0], np.cumsum(own)))
                surprise[number] = float(((sums[size:] - sums[:-size]) / size).max())
        return cls(text, units, surprise)

    def triggered(self, threshold: float) -> list[int]:
        """Values whose surprise reaches ``threshold``."""
        return np.flatnonzero(self.scores >= threshold).tolist()


class RepeatIndex:
    """Where each value stands alone in a group's texts; remembered across calls (calibration
    asks for the same values at many thresholds)."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.texts = list(texts)
        self._found: dict[str, list[list[CharSpan]]] = {}

    def occurrences(self, value: str) -> list[list[CharSpan]]:
        if value not in self._found:
            pattern = re.compile(rf"(?<![\w@.\-]){re.escape(value)}(?![\w@\-]|\.\w)")
            self._found[value] = [[m.span() for m in pattern.finditer(text)] for text in self.texts]
        return self._found[value]


def value_spans(
    scores: Sequence[TokenScores],
    allowed: Sequence[np.ndarray],
    supervised: Sequence[Sequence[CharSpan]],
    rule: ValueRule,
    *,
    values: Sequence[TextValues],
    repeats: RepeatIndex,
) -> list[list[CharSpan]]:
    """Masked character spans of one group's texts under ``rule`` (module docstring).

    Args:
        scores: reference token scores of each text.
        allowed: bool per token: whether it may be scored and masked (supervised).
        supervised: each text's supervised character intervals.
        rule: the value-aware rule.
        values: each text's :class:`TextValues`.
        repeats: the group's :class:`RepeatIndex`.

    Returns:
        Per text, sorted disjoint character spans to mask.
    """
    code_rule = replace(rule.rule, threshold=rule.rule.threshold + rule.code_margin)
    code_masks = mask_group(scores, allowed, code_rule)
    spans: list[list[CharSpan]] = [
        list(char_spans(mask, s.char_starts, s.char_ends)) for mask, s in zip(code_masks, scores)
    ]
    masked_values: set[str] = set()
    for index, here in enumerate(values):
        for number in here.triggered(rule.rule.threshold):
            start, end = here.units[number]
            spans[index].append((start, end))
            if end - start >= rule.min_repeat_chars:
                masked_values.add(here.text[start:end])
    for value in sorted(masked_values):
        for index, found in enumerate(repeats.occurrences(value)):
            spans[index].extend(found)
    return [_clip(_merge(found), intervals) for found, intervals in zip(spans, supervised)]


def token_mask_of(spans: Sequence[CharSpan], scores: TokenScores) -> np.ndarray:
    """Tokens holding a masked character (how calibration counts a character mask in tokens)."""
    mask = np.zeros(len(scores), dtype=np.bool_)
    for start, end in spans:
        mask |= (scores.char_starts < end) & (scores.char_ends > start)
    return mask


def _merge(spans: list[CharSpan]) -> list[CharSpan]:
    merged: list[CharSpan] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        elif end > start:
            merged.append((start, end))
    return merged


def _clip(spans: list[CharSpan], intervals: Sequence[CharSpan]) -> list[CharSpan]:
    out = []
    for start, end in spans:
        for low, high in intervals:
            a, b = max(start, low), min(end, high)
            if a < b:
                out.append((a, b))
    return out
