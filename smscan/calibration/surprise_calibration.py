"""A raw Surprise Masking threshold judged with the whole masking procedure in the loop.

A threshold chosen on windows alone misjudges what a rule masks: consensus removes tokens, and
duplicate propagation adds every repeat of a masked value (repeats are predictable to the model,
so their own windows score low). As the paper recommends, each candidate threshold here is
judged by the final token mask: windows, selection (global or local), consensus, restriction, and duplicate
propagation within each group (:func:`~smscan.engine.masking.mask_group`).

Units are reference tokens: a token is a target when it overlaps a labelled span by a code point.
Recall (target coverage) is the share of target tokens masked, FPR (collateral) the share of
other tokens masked. A lower threshold selects a superset of windows, hence (consensus and
propagation being monotone) a superset of tokens, so recall and FPR both fall as the threshold
rises: the highest threshold reaching a recall, and the lowest keeping FPR within a bound, are
found by bisection over the distinct window scores. Under local ranking the cutoff is
``rank_max`` and runs the other way (a lower one selects fewer windows); the bisection walks the
distinct ranks from the loosest to the strictest (:func:`selection_cutoffs`), and the entry's
``threshold`` is the chosen ``rank_max``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np

from smscan.sources.labels import LabelledText
from smscan.calibration.metrics import Confusion
from smscan.rules.thresholds_file import OPERATING_POINTS
from smscan.engine.rules import local_ranks
from smscan.engine.windows import fixed_windows
from smscan.errors import SmscanError
from smscan.calibration.label_groups import group_key
from smscan.exports.labels import overlaps
from smscan.engine.masking import MaskRule, mask_group
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
        SmscanError: the labels hold no target token.
    """

    def __init__(
        self,
        documents: Sequence[LabelledText],
        scores: Sequence[TokenScores],
        rule: MaskRule,
        *,
        require_targets: bool = True,
    ) -> None:
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
        self.candidates = selection_cutoffs(self.scores, rule)

    def masks(self, threshold: float) -> Iterator[tuple[int, np.ndarray]]:
        """(document number, token mask) of the whole masking procedure at ``threshold``, group by group."""
        rule = self.rule.at_cutoff(threshold)
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

    def operating_thresholds(self) -> Iterator[tuple[str, float]]:
        """(name, threshold) of each named operating point (``SM50``..``SM95``) some candidate
        reaches; the others are left out."""
        for name, recall in OPERATING_POINTS.items():
            try:
                threshold = self.threshold_for_recall(recall)
            except SmscanError:
                continue
            yield name, threshold

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
            local = self.rule.ranking == "local"
            raise SmscanError(
                f"no {'rank_max' if local else 'threshold'} keeps the collateral rate at or below {fpr}: even the "
                f"{'strictest' if local else 'highest'}, which selects only the top-{'ranked' if local else 'scoring'} windows, "
                f"masks {least:.6f} of non-target tokens (a window of {self.rule.window} tokens also covers tokens around a target"
                + ("; local ranking selects the most surprising windows of every neighbourhood, fewer with more --neighbours" if local else "")
                + "); allow a larger --max-fpr or choose by --target-recall"
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
        lower = float(below.max()) if below.size else -math.inf  # candidates run either way
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
        if self.rule.ranking == "local":
            grid = grid[::-1]  # stricter last, as for global thresholds
        f1 = [self.confusion(t).f1 for t in grid]
        best = np.flatnonzero(np.asarray(f1) == max(f1))
        return float(grid[best[-1]])


def selection_cutoffs(scores: Sequence[TokenScores], rule: MaskRule) -> np.ndarray:
    """The cutoffs that select distinct sets of windows, from the loosest to the strictest.

    Global ranking: every distinct window score (a window is selected at or above it), ascending.
    Local ranking: every distinct rank above 0, and 100 (a window is selected below it),
    descending; rank_max 0 would select nothing, and the first rank above 0 selects exactly the
    rank-0 windows.
    """
    windows = [fixed_windows(s.nll, size=rule.window) for s in scores]
    if rule.ranking == "global":
        values = [w.scores for w in windows]
    else:
        values = [local_ranks(w, neighbours=rule.neighbours) for w in windows] + [np.array([100.0])]
    flat = np.concatenate(values) if values else np.empty(0)
    found = np.unique(flat[np.isfinite(flat)])  # ascending
    return found if rule.ranking == "global" else found[found > 0][::-1]
