"""The credential detector with a learned judgement: every slot is a candidate, a model decides.

Candidates are the slots of :func:`smscan.detectors.slots.find_slots`, all of them (the rules'
drops are features, not gates). Cheap first: the cheap model of the packaged judgement
(:mod:`smscan.detectors.judgement.model`) settles a slot alone below its ``sure_out`` cut-off (no
candidate) and at or above ``sure_in`` (a candidate whose score is the cheap log-odds, reported
without the reference model). Only the slots in between are planned (``regions``), scored, and
judged by the full model, which adds the value's surprise. A candidate's score is log-odds,
compared with the threshold calibrated for rule ``credential-learned``.

Selected by a thresholds entry whose rule is ``credential-learned``
(:func:`smscan.detectors.make_detector`).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from smscan.records import Candidate
from smscan.detectors.credential import CredentialDetector
from smscan.detectors.credential_rule import CredentialRule
from smscan.detectors.judgement.features import (
    CHEAP_FEATURES,
    FEATURE_INDEX,
    FEATURES,
    cheap_features,
    scored_text,
    surprise_features,
)
from smscan.detectors.judgement.model import Judgement, packaged_judgement
from smscan.detectors.notebooks import is_notebook, notebook_cells
from smscan.detectors.slot_kinds import PUBLIC_BLOCK
from smscan.detectors.slots import find_slots
from smscan.engine.windows import Windows, fixed_windows
from smscan.errors import SmscanError
from smscan.records import TokenScores

RULE = "credential-learned"
_JUDGED_DOCUMENTS = 4096
_CHEAP = len(CHEAP_FEATURES)


@dataclass(frozen=True, slots=True)
class CheapVerdict:
    """A slot judged by the cheap model: its file span, place, features and cheap log-odds."""

    start: int
    end: int
    where: str
    features: np.ndarray
    log_odds: float
    extra: Mapping[str, Any]


class LearnedCredentialDetector(CredentialDetector):
    """Credential-like values judged by a learned model; see the module docstring."""

    def __init__(self, rule: CredentialRule | None = None, judgement: Judgement | None = None) -> None:
        super().__init__(rule)
        self.judgement = judgement or packaged_judgement()
        self._verdicts: dict[tuple[bytes, str], tuple[CheapVerdict, ...]] = {}

    @classmethod
    def from_rule(cls, rule: Mapping[str, Any]) -> LearnedCredentialDetector:
        judgement = packaged_judgement()
        wanted = rule.get("judgement")
        if wanted is not None and wanted != judgement.digest:
            raise SmscanError(
                f"the thresholds were calibrated for credential judgement {wanted}, this smscan ships "
                f"{judgement.digest}: calibrate again (smscan calibrate --kind credential)"
            )
        return cls(CredentialRule.from_dict(dict(rule)), judgement)

    def rule(self) -> dict[str, Any]:
        return {**self._rule.as_dict(), "rule": RULE, "judgement": self.judgement.digest}

    def reasons(self, score: float, details: Mapping[str, Any]) -> list[str]:
        return learned_reasons(score, details)

    def regions(self, text: str, path: str) -> list[tuple[int, int]]:
        """The slots the cheap model leaves undecided: only they need the reference model."""
        judgement = self.judgement
        return [
            (v.start, v.end) for v in self.verdicts(text, path)
            if judgement.sure_out < v.log_odds < judgement.sure_in
        ]

    def candidates(self, text: str, scores: TokenScores, *, path: str = "") -> list[Candidate]:
        judgement = self.judgement
        scored = None
        found = []
        for verdict in self.verdicts(text, path):
            place = {"place": verdict.where, "length": verdict.end - verdict.start, **verdict.extra}
            if verdict.log_odds <= judgement.sure_out:
                continue
            if verdict.log_odds >= judgement.sure_in:
                pushes = judgement.cheap.pushes(judgement.cheap.select(verdict.features, FEATURE_INDEX))
                found.append(Candidate(verdict.start, verdict.end, verdict.log_odds,
                                       {**place, "decided": "cheap", "pushes": pushes}))
                continue
            if scored is None:
                scored = _scored(scores, self._rule.window)
            vector = full_vector(scored, text, verdict)
            if vector is None:
                continue
            x = judgement.full.select(vector, FEATURE_INDEX)
            details = {**place, "decided": "model", "surprise": round(float(vector[FEATURE_INDEX["rate"]]), 4),
                       "cheap": round(verdict.log_odds, 3), "pushes": judgement.full.pushes(x)}
            found.append(Candidate(verdict.start, verdict.end, judgement.full.log_odds(x), details))
        return found

    def dropped(
        self, text: str, scores: TokenScores, windows: Windows, *, tau: float, near: float, path: str = ""
    ) -> list[Any]:
        """Slots the cheap model rules out, shown when their surprise is near ``tau`` (explain)."""
        from smscan.detectors.explaining import Dropped, _best_window

        out = []
        cheap = self.judgement.cheap
        for verdict in self.verdicts(text, path):
            if verdict.log_odds > self.judgement.sure_out:
                continue
            surprise = _best_window(scores, windows, verdict.start, verdict.end)
            if not surprise >= tau - near:
                continue
            pushes = ", ".join(f"{name} {term:+.2f}" for name, term in cheap.pushes(cheap.select(verdict.features, FEATURE_INDEX)))
            reason = f"ruled out before the model: cheap log-odds {verdict.log_odds:.2f} <= {self.judgement.sure_out:.2f} ({pushes})"
            seen = f"best window surprise {surprise:.2f}" if math.isfinite(surprise) else "no scored window"
            out.append(Dropped(verdict.start, verdict.end, surprise, (reason, seen)))
        return out

    def verdicts(self, text: str, path: str) -> tuple[CheapVerdict, ...]:
        """:func:`cheap_verdicts` of ``text``, judged once for both ``regions`` and ``candidates``."""
        key = (hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest(), path)
        found = self._verdicts.get(key)
        if found is None:
            found = tuple(cheap_verdicts(text, self._rule, self.judgement, path=path))
            if len(self._verdicts) >= _JUDGED_DOCUMENTS:
                del self._verdicts[next(iter(self._verdicts))]
            self._verdicts[key] = found
        return found


def cheap_verdicts(text: str, rule: CredentialRule, judgement: Judgement, *, path: str = "") -> list[CheapVerdict]:
    """Every slot of ``text`` (a notebook's cell by cell, spans in the file) with its cheap verdict."""
    out = []
    pieces = [(cell.text, cell) for cell in notebook_cells(text)] if is_notebook(text) else [(text, None)]
    for piece, cell in pieces:
        for slot in find_slots(piece):
            if slot.where == PUBLIC_BLOCK:
                continue
            features = cheap_features(piece, slot, rule, path=path)
            log_odds = judgement.cheap.log_odds(judgement.cheap.select(features, FEATURE_INDEX))
            if cell is None:
                out.append(CheapVerdict(slot.start, slot.end, slot.where, features, log_odds, {}))
            else:
                start, end = cell.file_span(slot.start, slot.end)
                extra = {"cell": cell.index, "cell_start": slot.start, "cell_end": slot.end}
                out.append(CheapVerdict(start, end, slot.where, features, log_odds, extra))
    return out


def _scored(scores: TokenScores, window: int) -> Any:
    starts = np.asarray(scores.char_starts, np.int64)
    ends = np.asarray(scores.char_ends, np.int64)
    return scored_text(np.asarray(scores.nll, np.float64), starts, ends, fixed_windows(scores.nll, size=window))


def full_vector(scored: Any, text: str, verdict: CheapVerdict) -> np.ndarray | None:
    """The whole feature vector (:data:`FEATURES` order) of a slot, or None without scored tokens."""
    surprise = surprise_features(scored, text, verdict.start, verdict.end, verdict.features)
    if surprise is None:
        return None
    vector = np.concatenate([verdict.features, surprise])
    assert vector.shape == (len(FEATURES),)
    return vector


def learned_reasons(score: float, details: Mapping[str, Any]) -> list[str]:
    """A learned verdict in words: who decided, and the features that pushed the value in or out."""
    if "pushes" not in details:
        return []
    place = f"a value in a {details.get('place', '?')}, {details.get('length', '?')} characters"
    if details.get("decided") == "cheap":
        head = f"decided before the model: cheap log-odds {score:.2f} ({place})"
    else:
        head = (f"learned log-odds {score:.2f}, surprise {details.get('surprise', float('nan')):.2f} nats/char, "
                f"cheap log-odds {details.get('cheap', float('nan')):.2f} ({place})")
    pushes = ", ".join(f"{name} {'in' if term > 0 else 'out'} {abs(term):.2f}" for name, term in details["pushes"])
    return [head, f"features that pushed it: {pushes}"]
