"""Choosing a raw Surprise Masking threshold with the whole masking procedure in the loop.

A threshold chosen on windows alone misjudges what a rule masks: consensus removes tokens, and
duplicate propagation adds every repeat of a masked value (repeats are predictable to the model,
so their own windows score low). As the paper recommends, each candidate threshold here is
judged by the final token mask: windows, selection (global or local), consensus, restriction, and duplicate
propagation within each group (:func:`~smscan.exports.rule.mask_group`).

Units are reference tokens: a token is a target when it overlaps a labelled span by a code point.
Recall (target coverage) is the share of target tokens masked, FPR (collateral) the share of
other tokens masked. A lower threshold selects a superset of windows, hence (consensus and
propagation being monotone) a superset of tokens, so recall and FPR both fall as the threshold
rises: the highest threshold reaching a recall, and the lowest keeping FPR within a bound, are
found by bisection over the distinct window scores. Under local ranking the cutoff is
``rank_max`` and runs the other way (a lower one selects fewer windows); the bisection walks the
distinct ranks from the loosest to the strictest (:func:`selection_cutoffs`), and the entry's
``threshold`` is the chosen ``rank_max``.

The held-out estimate (``cross_validation``) chooses the threshold on k-1 folds and counts the
last, as for the detectors; a group (a package, a user) stays in one fold, since propagation
runs within it.

The result is a thresholds-file entry for kind ``surprise`` (``docs/thresholds-format.md``) that
``smscan export --thresholds FILE [--operating-point SM90]`` reads.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from smscan.calibration.calibrate import deal_folds, too_few_folds_message
from smscan.calibration.labels import LabelledText
from smscan.calibration.metrics import Confusion
from smscan.calibration.thresholds import OPERATING_POINTS
from smscan.errors import SmscanError
from smscan.engine.rules import local_ranks
from smscan.engine.windows import fixed_windows
from smscan.exports.labels import overlaps
from smscan.exports.rule import MaskRule, mask_group
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
                f"{'strictest' if local else 'highest'}, which selects only the top-{'ranked' if local else 'scoring'} windows, masks {least:.6f} of "
                f"non-target tokens (a window of {self.rule.window} tokens also covers tokens around a target"
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


def cross_validate_surprise(
    documents: Sequence[LabelledText],
    scores: Sequence[TokenScores],
    *,
    rule: MaskRule,
    criterion: str,
    folds: int = 5,
    seed: int = 0,
) -> dict[str, Any]:
    """Held-out target coverage and collateral: the threshold chosen on k-1 folds, counted on the last.

    Groups are dealt to folds whole, shuffled with ``seed``; an empty fold (fewer groups than
    folds), or one whose training part has no target or meets no threshold, is left out.

    Returns:
        ``folds`` (the folds actually evaluated, at least 2), ``criterion``, pooled
        ``tpr``/``fpr``/``precision``/``f1`` and the threshold chosen in each evaluated fold.

    Raises:
        SmscanError: fewer than 2 folds could be evaluated (a single group, say).
    """
    totals = Confusion(0, 0, 0, 0)
    chosen: list[float] = []
    for held, kept in group_folds(documents, folds, seed):
        try:
            train = SurpriseCalibration([documents[i] for i in kept], [scores[i] for i in kept], rule)
            threshold = train.threshold_for(criterion)
        except SmscanError:
            continue
        chosen.append(train.saved_threshold(threshold))
        test = SurpriseCalibration([documents[i] for i in held], [scores[i] for i in held], rule, require_targets=False)
        counts = test.confusion(threshold)
        totals = Confusion(totals.tp + counts.tp, totals.fp + counts.fp, totals.fn + counts.fn, totals.tn + counts.tn)
    if len(chosen) < 2:
        raise SmscanError(f"{too_few_folds_message(len(chosen), folds, len({group_key(d) for d in documents}))}; --folds 0 saves no estimate")
    summary = {key: value for key, value in totals.as_dict().items() if key in ("tpr", "fpr", "precision", "f1")}
    return {"folds": len(chosen), "criterion": criterion, **summary, "thresholds": chosen}


def calibrate_surprise(
    documents: Sequence[LabelledText],
    scores: Sequence[TokenScores],
    *,
    rule: MaskRule,
    criterion: str = "recall:0.9",
    folds: int = 5,
) -> dict[str, Any]:
    """A thresholds-file entry for ``surprise`` chosen with consensus and propagation in the loop.

    Args:
        documents: labelled texts with target spans.
        scores: their reference token scores, aligned.
        rule: window, consensus and propagation to calibrate (global ranking).
        criterion: ``recall:R``, ``fpr:F``, an operating point name (``SM90``) or ``best-f1``.
        folds: folds of the held-out estimate (0 or 1: none).

    Returns:
        ``rule``, ``unit`` (``token``), ``threshold``, ``criterion``, ``operating_points`` (each
        with tpr = target coverage and fpr = collateral rate), ``validation``,
        ``cross_validation`` (``folds``: those evaluated, at least 2), ``examples``,
        ``positive_units``.

    Raises:
        SmscanError: a bad criterion, no targets, an unreachable recall or collateral rate, or
            ``folds`` >= 2 but fewer than 2 folds could be evaluated (all rows in one group, say).

    Example::

        scores = scorer.score_texts([d.text for d in documents])
        entry = calibrate_surprise(documents, scores, rule=MaskRule(window=4), criterion="SM90")
        write_entry(Path("thresholds.json"), "surprise", {"fingerprint": scorer.fingerprint, **entry})
    """
    calibration = SurpriseCalibration(documents, scores, rule)
    criterion = f"recall:{OPERATING_POINTS[criterion]}" if criterion in OPERATING_POINTS else criterion
    chosen = calibration.threshold_for(criterion)  # a bad criterion fails before the long part
    points: dict[str, dict[str, Any]] = {}
    for name, recall in OPERATING_POINTS.items():
        try:
            threshold = calibration.threshold_for_recall(recall)
        except SmscanError:
            continue
        saved = calibration.saved_threshold(threshold)
        points[name] = {"threshold": saved, **calibration.confusion(threshold).as_dict()}
    best = calibration.best_f1_threshold()
    points["best-f1"] = {"threshold": calibration.saved_threshold(best), **calibration.confusion(best).as_dict()}
    counts = calibration.confusion(chosen)
    cutoff_keys = {"threshold", "rank_max"}  # the cutoff is the entry's threshold
    rule_dict = {key: value for key, value in rule.as_dict().items() if key not in cutoff_keys}
    entry: dict[str, Any] = {
        "rule": rule_dict,
        "unit": "token",
        "threshold": calibration.saved_threshold(chosen),
        "criterion": criterion,
        "operating_points": points,
        "validation": {"token": counts.as_dict()},
    }
    if folds >= 2:
        entry["cross_validation"] = cross_validate_surprise(
            documents, scores, rule=rule, criterion=criterion, folds=folds
        )
    entry["examples"] = len(documents)
    entry["positive_units"] = int(sum(int(t.sum()) for t in calibration.targets))
    return entry
