"""The raw Surprise Masking rule (one type for scans, exports, explain and calibration), and how
a group of token scores becomes masks.

Per text (paper section 2, appendix C, D.1-D.3, D.5):
1. tokens outside supervised text (chat messages of other roles, template text) get no score, so
   windows holding them are invalid: "we score supervised positions with finite reference log
   probabilities";
2. fixed windows of ``window`` tokens scored by mean NLL; global (``score >= threshold``) or local
   (rank among ``neighbours`` windows each side ``< rank_max``) selection;
3. consensus: a token is masked when at least ``consensus`` selected windows hold it;
4. restricted to supervised tokens; then, per group, duplicate propagation of fully masked
   ``window``-grams of reference token ids until nothing changes, restricted again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace
from typing import Any

import numpy as np

from smscan.config.settings import MAX_WINDOW_TOKENS, Ranking
from smscan.engine.mask import token_mask
from smscan.engine.propagate import propagate_duplicates
from smscan.engine.rules import select_global, select_local
from smscan.engine.windows import Windows, fixed_windows
from smscan.kinds import SURPRISE
from smscan.records import TokenScores

__all__ = ["MaskRule", "Ranking", "TextMask", "mask_group", "mask_text", "propagate_group", "supervised_tokens"]


@dataclass(frozen=True, slots=True)
class MaskRule:
    """Raw Surprise Masking parameters; validated on construction.

    Attributes:
        window: window length in reference tokens (n).
        threshold: tau in nats per token, for ``global`` ranking.
        ranking: ``global`` (one threshold) or ``local`` (rank among neighbouring windows, D.2).
        rank_max: for ``local``: select windows whose 0-100 rank is below this.
        neighbours: for ``local``: windows compared on each side.
        consensus: selected windows a token needs to be masked (k, D.3).
        propagate: duplicate propagation within a group (D.5).

    Example:
        >>> MaskRule(window=4, threshold=6.0, consensus=4).as_dict()["consensus"]
        4
    """

    window: int = 4
    threshold: float = 6.0
    ranking: Ranking = "global"
    rank_max: float = 10.0
    neighbours: int = 32
    consensus: int = 1
    propagate: bool = True

    def __post_init__(self) -> None:
        if not 1 <= self.window <= MAX_WINDOW_TOKENS:
            raise ValueError(f"window must be 1..{MAX_WINDOW_TOKENS} tokens, got {self.window}")
        if not 1 <= self.consensus <= self.window:
            raise ValueError(f"consensus must be 1..window ({self.window}), got {self.consensus}")
        if self.ranking not in ("global", "local"):
            raise ValueError(f"ranking must be global or local, got {self.ranking!r}")
        if not np.isfinite(self.threshold):
            raise ValueError(f"threshold must be a finite number, got {self.threshold}")
        if not 0 < self.rank_max <= 100:
            raise ValueError(f"rank_max must be in (0, 100], got {self.rank_max}")
        if self.neighbours < 1:
            raise ValueError(f"neighbours must be at least 1, got {self.neighbours}")

    def as_dict(self) -> dict[str, Any]:
        """The rule as recorded in every exported record (``smscan.rule``) and thresholds file."""
        out: dict[str, Any] = {"kind": SURPRISE, "ranking": self.ranking, "window": self.window}
        if self.ranking == "global":
            out["threshold"] = float(self.threshold)
        else:
            out.update(rank_max=self.rank_max, neighbours=self.neighbours)
        out.update(consensus=self.consensus, propagate=self.propagate)
        return out

    def report_dict(self) -> dict[str, Any]:
        """The rule as a scan report states it (report format version 2 names the ranking ``rule``)."""
        out: dict[str, Any] = {"kind": SURPRISE, "rule": self.ranking, "window": self.window, "threshold": self.threshold}
        if self.ranking == "local":
            out.update(rank_max=self.rank_max, neighbours=self.neighbours)
        out.update(consensus=self.consensus, propagate=self.propagate)
        return out

    @property
    def cutoff(self) -> float:
        """What selects a window: the threshold (global, nats) or ``rank_max`` (local, 0-100).

        A thresholds file's ``surprise`` entry saves this value as its ``threshold``.
        """
        return self.threshold if self.ranking == "global" else self.rank_max

    def at_cutoff(self, value: float) -> MaskRule:
        """The same rule selecting at another cutoff (see :attr:`cutoff`)."""
        if self.ranking == "global":
            return replace(self, threshold=float(value))
        return replace(self, rank_max=float(value))


@dataclass(frozen=True, slots=True)
class TextMask:
    """One text under the rule: its scored windows, the selected ones, and the token mask."""

    windows: Windows
    selected: np.ndarray
    mask: np.ndarray


def supervised_tokens(scores: TokenScores, intervals: Sequence[tuple[int, int]] | None) -> np.ndarray:
    """Tokens lying wholly inside one supervised ``[start, end)`` interval (all when None)."""
    count = len(scores)
    if intervals is None:
        return np.ones(count, dtype=np.bool_)
    inside = np.zeros(count, dtype=np.bool_)
    for start, end in intervals:
        inside |= (scores.char_starts >= start) & (scores.char_ends <= end) & (scores.char_ends > scores.char_starts)
    return inside


def mask_text(scores: TokenScores, allowed: np.ndarray, rule: MaskRule) -> TextMask:
    """Steps 1-4 for one text, before propagation: windows, selection, consensus, restriction.

    Example:
        >>> s = TokenScores(np.arange(3), np.arange(3), np.arange(3) + 1, np.array([np.nan, 9., 9.]))
        >>> mask_text(s, np.ones(3, bool), MaskRule(window=2, threshold=5.0)).mask
        array([False,  True,  True])
    """
    nll = np.where(allowed, scores.nll, np.nan)
    windows = fixed_windows(nll, size=rule.window)
    if rule.ranking == "global":
        selected = select_global(windows, threshold=rule.threshold)
    else:
        selected = select_local(windows, neighbours=rule.neighbours, rank_max=rule.rank_max)
    mask = token_mask(windows, selected, num_tokens=len(scores), consensus=rule.consensus)
    return TextMask(windows, selected, mask & allowed)


def propagate_group(
    scores: Sequence[TokenScores], masks: Sequence[np.ndarray], allowed: Sequence[np.ndarray], rule: MaskRule
) -> list[np.ndarray]:
    """Duplicate propagation within one group when the rule asks for it, restricted again."""
    if not rule.propagate or not masks:
        return list(masks)
    spread = propagate_duplicates([item.token_ids for item in scores], list(masks), size=rule.window)
    return [mask & ok for mask, ok in zip(spread, allowed)]


def mask_group(
    scores: Sequence[TokenScores],
    supervised: Sequence[np.ndarray],
    rule: MaskRule,
) -> list[np.ndarray]:
    """Token masks of one group's texts under ``rule`` (see the module docstring).

    Args:
        scores: reference token scores of each text of the group.
        supervised: bool per token of each text: whether it may be scored and masked.
        rule: the masking rule.

    Returns:
        One bool mask per text, aligned with its tokens.

    Example:
        >>> s = TokenScores(np.arange(3), np.arange(3), np.arange(3) + 1, np.array([np.nan, 9., 9.]))
        >>> mask_group([s], [np.ones(3, bool)], MaskRule(window=2, threshold=5.0))[0]
        array([False,  True,  True])
    """
    masks = [mask_text(item, allowed, rule).mask for item, allowed in zip(scores, supervised)]
    return propagate_group(scores, masks, supervised, rule)
