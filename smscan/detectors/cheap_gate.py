"""Cheap first: a slot the rules keep skips the reference model when the cheap judgement settles it.

The rules' model-free stage (:mod:`smscan.detectors.credential_evidence`) keeps every slot that
*could* hold a credential in its place, so on ordinary code and docs it keeps dotted names,
paths, call expressions and format strings that the model then clears one forward pass at a
time. The learned judgement's cheap model (:mod:`smscan.detectors.judgement`, trained on many
sources nobody here wrote) reads the same slot's shape, name, words around it and file type
without the model; at or below the rule's ``cheap_gate`` log-odds the slot is settled: no piece
is planned for it and it gives no candidate. Only slots with no secret name, secret place or
vendor format behind them are gated: a value its place calls secret always reaches the model.
The gate is only a way out: a slot the cheap model likes still needs the rules' score (surprise
plus evidence) to be reported, so it can cost recall but never adds a finding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from smscan.detectors.credential_rule import CredentialRule
from smscan.detectors.judgement.features import FEATURE_INDEX, judged_cheap_features
from smscan.detectors.judgement.model import Judgement, packaged_judgement
from smscan.detectors.slot_kinds import Slot


@dataclass(frozen=True)
class CheapGate:
    """The cheap model of a judgement, the rule its features are computed with, and the log-odds
    at or below which a slot is settled."""

    judgement: Judgement
    rule: CredentialRule
    cut_off: float

    @classmethod
    def packaged(cls, rule: CredentialRule, cut_off: float) -> CheapGate:
        return cls(packaged_judgement(), rule, cut_off)

    def log_odds(self, text: str, slot: Slot, path: str, evidence: float | None) -> float:
        """The cheap model's log-odds that ``slot`` of ``text`` holds a credential (``evidence``:
        the rules' verdict on it, one of the features)."""
        return self.judgement.cheap.log_odds(self._features(text, slot, path, evidence))

    def settles(self, text: str, slot: Slot, path: str, evidence: float | None) -> bool:
        """True when the slot is no credential without asking the reference model."""
        return self.log_odds(text, slot, path, evidence) <= self.cut_off

    def weigh(
        self, text: str, slot: Slot, path: str, evidence: float | None, top: int = 3
    ) -> tuple[float, list[tuple[str, float]]]:
        """The slot's log-odds and the ``top`` features that pushed it most (for ``smscan explain``)."""
        x = self._features(text, slot, path, evidence)
        return self.judgement.cheap.log_odds(x), self.judgement.cheap.pushes(x, top)

    def _features(self, text: str, slot: Slot, path: str, evidence: float | None) -> np.ndarray:
        features = judged_cheap_features(text, slot, self.rule, evidence, path=path)
        return self.judgement.cheap.select(features, FEATURE_INDEX)
