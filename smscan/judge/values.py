"""Value-aware Surprise Masking: a surprising value is masked whole, with its repeats.

Raw Surprise Masking masks window-shaped pieces: a window at or above the threshold masks its
``window`` tokens, so a 32-character token is masked where its windows are surprising enough and
left supervised at its ends, and a repeat is masked only where the same token ``window``-gram
was wholly masked. Here the unit is the value (:mod:`smscan.judge.value_units`):

1. a value is *triggered* when its own tokens are surprising for what it is made of: its
   *randomness*, the total NLL of the tokens overlapping it divided by ``sqrt(characters) *
   ln(alphabet)`` (the alphabet: 10 for digits, 26 per letter case, 8 for other characters it
   holds), reaches ``value_threshold``. The total is the information the model needs to write
   the value; dividing by ``ln(alphabet)`` puts a random 12-digit id (about 2.3 nats a digit,
   the most a digit can cost) on the scale of a random mixed-case token; dividing by the square
   root of the length keeps long ordinary values (paths, URLs) from winning by length alone.
   Windows reaching into a value from its neighbours do not count, so the words next to a
   surprising value stay supervised. A triggered value is masked whole;
2. code structure (keywords, punctuation, ordinary identifiers and plain words: what no value
   covers) is masked by the raw rule (the paper's windows, consensus and duplicate propagation)
   at its own threshold, which calibration may set higher than the paper's (stricter);
3. every exact repeat of a masked value (``min_repeat_chars`` or longer) in the group's texts,
   standing alone (not inside a longer word), is masked too; so is every repeat of a masked
   email's local part (``jdoe7`` of ``jdoe7@corp.io``: the same person's handle) and of a
   numbered name's name part (``dmitri.novak`` of ``dmitri.novak53@corp.io``), unless that part
   is an ordinary word (``support`` of ``support@corp.io``), see :func:`repeatable_parts`.

Results are character spans of the scored text, restricted to the supervised intervals. Step 2
is the paper's rule unchanged, so at the same raw threshold the result contains the paper's mask.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from smscan.engine.spans import char_spans
from smscan.judge.value_units import value_units
from smscan.engine.masking import MaskRule, mask_group
from smscan.records import TokenScores
from smscan.rules.maskings import DEFAULT_VALUE_THRESHOLD

CharSpan = tuple[int, int]



@dataclass(frozen=True, slots=True)
class ValueRule:
    """Value-aware masking: values by their randomness, code structure by a raw rule.

    Attributes:
        rule: the raw rule for code structure (window, threshold in nats, consensus, propagation).
        value_threshold: randomness at or above which a value is masked whole (step 1).
        min_repeat_chars: shortest masked value whose repeats in the group are masked too.

    Example:
        >>> ValueRule(MaskRule(threshold=8.0), value_threshold=2.5).as_dict()["value_threshold"]
        2.5
    """

    rule: MaskRule
    value_threshold: float = DEFAULT_VALUE_THRESHOLD
    min_repeat_chars: int = 4

    def __post_init__(self) -> None:
        if not np.isfinite(self.value_threshold):
            raise ValueError(f"value_threshold must be a finite number, got {self.value_threshold}")
        if self.min_repeat_chars < 1:
            raise ValueError(f"min_repeat_chars must be at least 1, got {self.min_repeat_chars}")

    def as_dict(self) -> dict[str, Any]:
        """What an exported record and a thresholds file record of the rule."""
        return {"masking": "values", "value_threshold": float(self.value_threshold), "min_repeat_chars": self.min_repeat_chars}

    def at(self, value_threshold: float) -> ValueRule:
        """The same rule at another value threshold (calibration)."""
        return replace(self, value_threshold=float(value_threshold))


def randomness(value: str, nll: np.ndarray) -> float:
    """Step 1's score of a value from the NLLs (nats) of the tokens overlapping it.

    Example:
        >>> round(randomness("918287184750", np.full(12, math.log(10))), 3)  # a uniformly random id
        3.464
    """
    alphabet = 0
    alphabet += 10 if any(c.isdigit() for c in value) else 0
    alphabet += 26 if any(c.islower() for c in value) else 0
    alphabet += 26 if any(c.isupper() for c in value) else 0
    alphabet += 8 if any(not c.isalnum() for c in value) else 0
    return float(nll.sum()) / (math.sqrt(len(value)) * math.log(max(alphabet, 2)))


@dataclass(slots=True)
class TextValues:
    """One text's value spans and each value's randomness (computed once per text)."""

    text: str
    units: list[CharSpan]
    scores: np.ndarray
    """Per value: :func:`randomness` over its supervised scored tokens (-inf without any)."""

    @classmethod
    def of(cls, text: str, scores: TokenScores, allowed: np.ndarray) -> TextValues:
        units = value_units(text)
        starts, ends = scores.char_starts, scores.char_ends
        nll = np.where(allowed, scores.nll, np.nan)
        surprise = np.full(len(units), -np.inf)
        for number, (a, b) in enumerate(units):
            own = nll[(starts < b) & (ends > a)]
            own = own[np.isfinite(own)]
            if own.size:
                surprise[number] = randomness(text[a:b], own)
        return cls(text, units, surprise)

    def triggered(self, threshold: float) -> list[int]:
        """Values whose randomness reaches ``threshold``."""
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
    code_masks: Sequence[np.ndarray] | None = None,
) -> list[list[CharSpan]]:
    """Masked character spans of one group's texts under ``rule`` (module docstring).

    Args:
        scores: reference token scores of each text.
        allowed: bool per token: whether it may be scored and masked (supervised).
        supervised: each text's supervised character intervals.
        rule: the value-aware rule.
        values: each text's :class:`TextValues`.
        repeats: the group's :class:`RepeatIndex`.
        code_masks: step 2's token masks when already known (calibration varies only the value
            threshold); None computes them.

    Returns:
        Per text, sorted disjoint character spans to mask.
    """
    if code_masks is None:
        code_masks = mask_group(scores, allowed, rule.rule)
    spans: list[list[CharSpan]] = [
        list(char_spans(mask, s.char_starts, s.char_ends)) for mask, s in zip(code_masks, scores)
    ]
    masked_values: set[str] = set()
    for index, here in enumerate(values):
        for number in here.triggered(rule.value_threshold):
            start, end = here.units[number]
            spans[index].append((start, end))
            masked_values.update(
                part for part in repeatable_parts(here.text[start:end]) if len(part) >= rule.min_repeat_chars
            )
    for value in sorted(masked_values):
        for index, found in enumerate(repeats.occurrences(value)):
            spans[index].extend(found)
    return [_clip(_merge(found), intervals) for found, intervals in zip(spans, supervised)]


# A person-like handle with a number after it (`dmitri.novak53`, `tomas_kow`+`123`): its name part
# (`dmitri.novak`) is the same person's handle where it stands alone.
_NUMBERED_NAME = re.compile(r"([A-Za-z]+(?:[._][A-Za-z]+)+)\d+")
# A part with neither a digit nor a separator between letters is an ordinary word (`support` of
# `support@corp.io`): its repeats are other text, not the value.
_ORDINARY_WORD = re.compile(r"[A-Za-z]+")


def repeatable_parts(value: str) -> tuple[str, ...]:
    """What a masked value masks where it reappears: the value itself and, for an email, its local
    part; for either, a dotted or underscored name with a number after it also masks its name part.
    A part that is an ordinary word (letters only) is left out: it repeats as other text.

    Example:
        >>> repeatable_parts("dmitri.novak53@corp.io")
        ('dmitri.novak53@corp.io', 'dmitri.novak53', 'dmitri.novak')
        >>> repeatable_parts("support@corp.io")
        ('support@corp.io',)
    """
    local, at, domain = value.partition("@")
    found = [value]
    if at and local and "." in domain:
        found.append(local)
    named = _NUMBERED_NAME.fullmatch(found[-1])
    if named:
        found.append(named.group(1))
    return tuple(part for number, part in enumerate(found) if number == 0 or not _ORDINARY_WORD.fullmatch(part))


def mask_every_occurrence(
    texts: Sequence[str],
    units: Sequence[Sequence[CharSpan]],
    found: Sequence[Sequence[tuple[int, int, str]]],
    supervised: Sequence[Sequence[CharSpan]],
    *,
    min_chars: int = 4,
) -> list[list[tuple[int, int, str]]]:
    """No value left half-learnable: a value masked at least half anywhere in the group, by any
    rule (a triggered value, code windows, a detector's finding), is masked whole there and at every
    occurrence standing alone in the group's texts, with its :func:`repeatable_parts`.

    Args:
        texts: the group's scored texts.
        units: each text's value units (:func:`~smscan.exports.value_units.value_units`).
        found: each text's masked ``(start, end, kind)`` spans, any order, overlaps allowed.
        supervised: each text's supervised character intervals (nothing outside them is masked).
        min_chars: shortest value (or part) whose occurrences are masked.

    Returns:
        Per text, ``found`` plus the spans this adds (each with the kind that masked most of the
        value where it was found masked).

    Example:
        >>> texts = ["key = 'Zq81xPw'", "see Zq81xPw here"]
        >>> mask_every_occurrence(texts, [[(7, 14)], []], [[(9, 14, "surprise")], []], [[(0, 15)], [(0, 16)]])[1]
        [(4, 11, 'surprise')]
    """
    chosen: dict[str, str] = {}
    out = [list(spans) for spans in found]
    for index, (text, here) in enumerate(zip(texts, units)):
        for start, end in here:
            kinds: dict[str, int] = {}
            covered = np.zeros(end - start, dtype=np.bool_)
            for a, b, kind in found[index]:
                low, high = max(a, start), min(b, end)
                if low < high:
                    covered[low - start:high - start] = True
                    kinds[kind] = kinds.get(kind, 0) + high - low
            if end - start >= min_chars and covered.mean() >= 0.5:
                kind = max(sorted(kinds), key=lambda k: kinds[k])
                out[index].append((start, end, kind))
                for part in repeatable_parts(text[start:end]):
                    if len(part) >= min_chars:
                        chosen.setdefault(part, kind)
    repeats = RepeatIndex(texts)
    for value in sorted(chosen):
        for index, spans in enumerate(repeats.occurrences(value)):
            for start, end in _clip(list(spans), supervised[index]):
                out[index].append((start, end, chosen[value]))
    return out


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
