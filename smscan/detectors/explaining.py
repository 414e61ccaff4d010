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
    bonus = score - float(details["surprise"])
    sign = "+" if bonus >= 0 else "-"
    place = f"a value in a {details.get('place', '?')}, {details.get('length', '?')} characters"
    if "cell" in details:
        place += f", notebook cell {details['cell']} at {details.get('cell_start', '?')}-{details.get('cell_end', '?')}"
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
    """Credential slots the placeholder, test-data or shape rules drop before scoring, or the cheap
    gate settles, when surprising (placeholders and test data always: they are what a user asks about).

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
    from smscan.detectors.placeholders import is_reference, is_stand_in
    from smscan.detectors.slots import find_slots
    from smscan.detectors.test_context import is_made_up, is_test_path

    out = []
    for slot in find_slots(text):
        evidence = judge_slot(text, slot, rule, path=path)
        if evidence is not None:
            if gate is None or evidence > 0 or not gate.settles(text, slot, path=path):
                continue
            surprise = _best_window(scores, windows, slot.start, slot.end)
            if not surprise >= tau - near:
                continue
            pushes = ", ".join(f"{name} {push:+.2f}" for name, push in gate.pushes(text, slot, path=path))
            reason = (f"settled before the model by the cheap judgement: log-odds "
                      f"{gate.log_odds(text, slot, path=path):.2f} <= {gate.cut_off:.2f} ({pushes})")
            seen = f"best window surprise {surprise:.2f}" if math.isfinite(surprise) else "no scored window"
            out.append(Dropped(slot.start, slot.end, surprise, (reason, seen)))
            continue
        surprise = _best_window(scores, windows, slot.start, slot.end)
        stand_in = is_stand_in(text[slot.start : slot.end])
        test_data = not stand_in and is_test_path(path) and is_made_up(text[slot.start : slot.end])
        if not stand_in and not test_data and not (surprise >= tau - near):
            continue
        if test_data:
            reason = ("typed by hand in a test file (keyboard rows, repeats, words or a 'test'/'fake' marker): "
                      "test data, never reported as a credential there")
        elif stand_in:
            value = text[slot.start : slot.end]
            why = "a reference to a secret kept elsewhere" if is_reference(value) else "a placeholder or documented example"
            reason = f"{why}: never reported as a credential (placeholder rule)"
        else:
            reason = "not shaped like a credential in this place (an identifier, a URL or path, or too short or plain)"
        seen = f"best window surprise {surprise:.2f}" if math.isfinite(surprise) else "no scored window"
        out.append(Dropped(slot.start, slot.end, surprise, (reason, seen)))
    return out


def _best_window(scores: TokenScores, windows: Windows, start: int, end: int) -> float:
    tokens = np.flatnonzero((scores.char_starts < end) & (scores.char_ends > start))
    if not tokens.size:
        return math.nan
    overlapping = (windows.starts <= tokens[-1]) & (windows.ends > tokens[0]) & np.isfinite(windows.scores)
    return float(windows.scores[overlapping].max()) if overlapping.any() else math.nan
