"""A raw Surprise Masking threshold judged with the whole masking procedure in the loop.

A threshold chosen on windows alone misjudges what a rule masks: consensus removes tokens, and
duplicate propagation adds every repeat of a masked value (repeats are predictable to the model,
so their own windows score low). As the paper recommends, each candidate threshold here is
judged by the final token mask: windows, global selection, consensus, restriction, and duplicate
propagation within each group (:func:`~smscan.masking.mask_group`).

Units are reference tokens: a token is a target when it overlaps a labelled span by a code point.
Recall (target coverage) is the share of target tokens masked, FPR (collateral) the share of
other tokens masked. A lower threshold selects a superset of windows, hence (consensus and
propagation being monotone) a superset of tokens, so recall and FPR both fall as the threshold
rises: the highest threshold reaching a recall, and the lowest keeping FPR within a bound, are
found by bisection over the distinct window scores.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import replace

import numpy as np

from smscan.calibration.labels import LabelledText
from smscan.calibration.metrics import Confusion
from smscan.engine.windows import fixed_windows
from smscan.errors import SmscanError
from smscan.exports.label_groups import group_key
from smscan.exports.labels import overlaps
from smscan.masking import MaskRule, mask_group
from smscan.records import TokenScores

_F1_GRID = 64
_EPSILON = 1e-12


class SurpriseCalibration:
    """Labelled documents with their token scores, grouped, ready to evaluate any threshold.

    Args:
        documents: labelled texts (spans; dead-code lines are not supported here).
        scores: their reference token scores, aligned.
        rule: the rule whose threshold is chosen (its window, consensus, propagation).
        require_targets: refuse labels without a target token (off for a held-out fold).

    Raises:
        SmscanError: the rule uses local ranking, or the labels hold no target token.
    """

    def __init__(
        self,
        documents: Sequence[LabelledText],
        scores: Sequence[TokenScores],
        rule: MaskRule,
        *,
        require_targets: bool = True,
    ) -> None:
        if rule.ranking != "global":
            raise SmscanError("calibrating surprise chooses a global threshold; use --ranking global")
        self.rule = rule
        self.scores = list(scores)
        self.targets = [
            overlaps(np.stack([s.char_starts, s.char_ends], axis=1), list(d.spans)) for d, s in zip(documents, scores)
        ]
        order: dict[str, list[int]] = {}
        for index, document in enumerate(documents):
            order.setdefault(group_key(document), []).append(index)
        self.groups = list(order.values())
        if require_targets and not any(t.any() for t in self.targets):
            raise SmscanError("the labels hold no target token: nothing to calibrate on")
        values = [fixed_windows(s.nll, size=rule.window).scores for s in self.scores]
        flat = np.concatenate(values) if values else np.empty(0)
        self.candidates = np.unique(flat[np.isfinite(flat)])  # ascending

    def masks(self, threshold: float) -> Iterator[tuple[int, np.ndarray]]:
        """(document number, token mask) of the whole masking procedure at ``threshold``, group by group."""
        rule = replace(self.rule, threshold=float(threshold))
        for members in self.groups:
            scores = [self.scores[i] for i in members]
            yield from zip(members, mask_group(scores, [np.ones(len(s), dtype=bool) for s in scores], rule))

    def confusion(self, threshold: float) -> Confusion:
        """Token counts of the whole masking procedure at ``threshold``."""
        tp = fp = fn = tn = 0
        for i, mask in self.masks(threshold):
            target = self.targets[i]
            tp += int((mask & target).sum())
            fp += int((mask & ~target).sum())
            fn += int((~mask & target).sum())
            tn += int((~mask & ~target).sum())
        return Confusion(tp, fp, fn, tn)

    def threshold_for_recall(self, recall: float) -> float:
        """The highest candidate threshold whose recall reaches ``recall``.

        Raises:
            SmscanError: even the lowest threshold does not reach it.
        """
        lo, hi = 0, len(self.candidates) - 1  # recall is non-increasing along candidates
        if hi < 0 or self.confusion(self.candidates[0]).tpr < recall - _EPSILON:
            raise SmscanError(f"no threshold reaches recall {recall} with this rule on these labels")
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.confusion(self.candidates[mid]).tpr >= recall - _EPSILON:
                lo = mid
            else:
                hi = mid - 1
        return float(self.candidates[lo])

    def threshold_for_fpr(self, fpr: float) -> float:
        """The lowest candidate threshold whose collateral rate (FPR) is at most ``fpr``.

        Raises:
            SmscanError: even the highest threshold masks more. That is common, not only with no
                candidate at all: the highest still selects the top window, whose tokens around
                the target are collateral, so ``fpr:0`` fails on ordinary labels.
        """
        lo, hi = 0, len(self.candidates) - 1  # FPR is non-increasing along candidates
        if hi < 0:
            raise SmscanError("no window was scored on the labels: no threshold to choose")
        least = self.confusion(self.candidates[hi]).fpr
        if least > fpr + _EPSILON:
            raise SmscanError(
                f"no threshold keeps the collateral rate at or below {fpr}: even the highest, which "
                f"selects only the top-scoring windows, masks {least:.6f} of non-target tokens "
                f"(a window of {self.rule.window} tokens also covers tokens around a target); "
                "allow a larger --max-fpr or choose by --target-recall"
            )
        while lo < hi:
            mid = (lo + hi) // 2
            if self.confusion(self.candidates[mid]).fpr <= fpr + _EPSILON:
                hi = mid
            else:
                lo = mid + 1
        return float(self.candidates[lo])

    def threshold_for(self, criterion: str) -> float:
        """The threshold a criterion (``best-f1``, ``recall:R``, ``fpr:F``) picks.

        Raises:
            SmscanError: an unknown criterion, or one no threshold meets.
        """
        name, _, value = criterion.partition(":")
        if criterion == "best-f1":
            return self.best_f1_threshold()
        if name == "recall" and value:
            return self.threshold_for_recall(float(value))
        if name == "fpr" and value:
            return self.threshold_for_fpr(float(value))
        raise SmscanError(f"unknown criterion {criterion!r}: use recall:R, fpr:F, SM50..SM95 or best-f1")

    def saved_threshold(self, threshold: float) -> float:
        """``threshold`` as saved: the shortest decimal selecting exactly the same windows here.

        Any value above the next lower candidate and at most ``threshold`` selects the same
        windows, hence gives the counts reported for ``threshold``. Rounding down to 1e-6 alone
        could pass below that candidate and add its windows, breaking an ``fpr:F`` bound.
        """
        below = self.candidates[self.candidates < threshold]
        lower = float(below[-1]) if below.size else -math.inf
        for digits in range(6, 16):
            scale = 10.0**digits
            steps = math.floor(threshold * scale)
            while steps / scale > threshold:  # the product may have rounded up
                steps -= 1
            if steps / scale > lower:
                return steps / scale
        return float(threshold)

    def best_f1_threshold(self) -> float:
        """The threshold of best F1 among candidate quantiles (ties: the higher threshold)."""
        grid = np.unique(np.quantile(self.candidates, np.linspace(0, 1, _F1_GRID)))
        f1 = [self.confusion(t).f1 for t in grid]
        best = np.flatnonzero(np.asarray(f1) == max(f1))
        return float(grid[best[-1]])
