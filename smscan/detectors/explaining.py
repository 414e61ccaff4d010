"""What each detector says about its own spans in ``smscan explain``: evidence and dropped slots.

The detectors' ``reasons`` and ``dropped`` methods delegate here, so ``smscan/decide/explain.py`` asks
every detector the same questions and never branches on a kind or reaches into a detector.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from smscan.engine.windows import Windows
from smscan.records import TokenScores


@dataclass(frozen=True, slots=True)
class Dropped:
    """A span a detector drops before scoring, and why (shown when near the threshold)."""

    start: int
    end: int
    surprise: float
    reasons: tuple[str, ...]


def credential_reasons(score: float, details: Mapping[str, Any]) -> list[str]:
    """A credential's score as its best window's surprise plus the place evidence."""
    if "surprise" not in details:
        return []
    place = f"a value in a {details.get('place', '?')}, {details.get('length', '?')} characters"
    if "cell" in details:
        place += f", notebook cell {details['cell']} at {details.get('cell_start', '?')}-{details.get('cell_end', '?')}"
    if "near_repeat_of" in details:
        return [f"a near-repeat of the credential at character {details['near_repeat_of']} of this file: it takes "
                f"that one's score {score:.2f} (its own surprise {details['surprise']:.2f} fell once the model had "
                f"read the first; {place})"]
    if "predicted" in details:
        return [f"surprising in places only: {details['predicted']:.0%} of it lies in tokens the model predicts, "
                f"so its surprise {details['surprise']:.2f} does not count; place evidence {score:+.2f} ({place})"]
    bonus = score - float(details["surprise"])
    sign = "+" if bonus >= 0 else "-"
    return [f"best window surprise {details['surprise']:.2f} {sign} place evidence {abs(bonus):.2f} ({place})"]


def dead_code_reasons(score: float, details: Mapping[str, Any]) -> list[str]:
    """A dead line's mean NLL and the syntax evidence (Python or JavaScript) that adds the bonus."""
    reasons = [f"line mean NLL {details.get('line_nll', float('nan')):.2f}"]
    if details.get("evidence"):
        reasons.append(f"syntax evidence: {details['evidence']} (adds the rule's evidence bonus)")
    else:
        reasons.append("no evidence that the line is dead (no evidence bonus)")
    return reasons


def credential_dropped(
    text: str, rule: Any, scores: TokenScores, windows: Windows, *, tau: float, near: float, path: str = "",
    gate: Any = None,
) -> list[Dropped]:
    """Credential slots the placeholder, test-data or shape rules drop before scoring, the cheap
    gate settles, or the model partly predicts (a name, not a drawn value), when surprising
    (placeholders and test data always: they are what a user asks about).

    Args:
        text: the document.
        rule: the detector's ``CredentialRule``.
        scores: the document's token scores.
        windows: raw surprise windows over ``scores`` (the explain view's).
        tau: the raw surprise threshold; a shape-dropped slot is shown from ``tau - near``.
        near: how far below ``tau`` still counts as near.
        path: the document's path (a test file's hand-typed values are test data).
        gate: the detector's ``CheapGate`` (None when its rule turns it off).
    """
    from smscan.detectors.credential_evidence import judge_slot
    from smscan.detectors.slots import find_slots

    out = []
    for slot in find_slots(text):
        evidence = judge_slot(text, slot, rule, path=path)
        if evidence is not None:
            # Kept by the rules: dropped only without positive evidence, where the cheap gate
            # settles the slot or the model predicts part of its value.
            if evidence > 0:
                continue
            surprise = _best_window(scores, windows, slot.start, slot.end)
            if not surprise >= tau - near:
                continue
            kept = _kept_slot_reason(text, slot, path, evidence, scores, rule, gate)
            if kept is None:
                continue
            reason = kept
        else:
            surprise = _best_window(scores, windows, slot.start, slot.end)
            found = _rule_reason(text[slot.start : slot.end], path, near_threshold=surprise >= tau - near)
            if found is None:
                continue
            reason = found
        seen = f"best window surprise {surprise:.2f}" if math.isfinite(surprise) else "no scored window"
        out.append(Dropped(slot.start, slot.end, surprise, (reason, seen)))
    return out


def _kept_slot_reason(
    text: str, slot: Any, path: str, evidence: float, scores: TokenScores, rule: Any, gate: Any
) -> str | None:
    """Why a slot the rules keep without positive evidence is settled or scored without its
    surprise, or None when its surprise counts."""
    from smscan.detectors.value_surprise import PREDICTABLE_NATS_PER_CHAR, predicted_at_least

    if gate is not None:
        log_odds, pushes = gate.weigh(text, slot, path, evidence)
        if log_odds <= gate.cut_off:
            pushed = ", ".join(f"{name} {push:+.2f}" for name, push in pushes)
            return f"settled before the model by the cheap judgement: log-odds {log_odds:.2f} <= {gate.cut_off:.2f} ({pushed})"
    limit = rule.max_predictable_share
    starts, ends = np.asarray(scores.char_starts, np.int64), np.asarray(scores.char_ends, np.int64)
    share = predicted_at_least(limit, scores.nll, starts, ends, slot.start, slot.end)
    if share is None:
        return None
    return (f"surprising in places only: {share:.0%} of it lies in tokens the model predicts "
            f"(under {PREDICTABLE_NATS_PER_CHAR:g} nats a character; limit {limit:.0%}), a name rather than a drawn value")


def _rule_reason(value: str, path: str, *, near_threshold: bool) -> str | None:
    """Why the model-free rules dropped ``value``, or None when it is not worth showing: a
    placeholder or test data always is, a shape the rules refused only near the threshold."""
    from smscan.detectors.placeholders import is_reference, is_stand_in
    from smscan.detectors.test_context import is_made_up, is_test_path

    stand_in = is_stand_in(value)
    test_data = not stand_in and is_test_path(path) and is_made_up(value)
    if test_data:
        return ("typed by hand in a test file (keyboard rows, repeats, words or a 'test'/'fake' marker): "
                "test data, never reported as a credential there")
    if stand_in:
        why = "a reference to a secret kept elsewhere" if is_reference(value) else "a placeholder or documented example"
        return f"{why}: never reported as a credential (placeholder rule)"
    if not near_threshold:
        return None
    return "not shaped like a credential in this place (an identifier, a URL or path, or too short or plain)"


def _best_window(scores: TokenScores, windows: Windows, start: int, end: int) -> float:
    tokens = np.flatnonzero((scores.char_starts < end) & (scores.char_ends > start))
    if not tokens.size:
        return math.nan
    overlapping = (windows.starts <= tokens[-1]) & (windows.ends > tokens[0]) & np.isfinite(windows.scores)
    return float(windows.scores[overlapping].max()) if overlapping.any() else math.nan
