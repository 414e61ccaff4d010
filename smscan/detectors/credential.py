"""Credential-like values: surprising values in places where credentials live.

The recipe (paper section 2 and D.1, made precise):

1. Find value slots (:mod:`smscan.detectors.slots`) in any text format: string literals, config
   and env values, URL passwords and secret-named query parameters, ``Authorization`` values,
   option values, labels in prose and tables, vendor-format tokens, private-key blocks, long
   tokens; a notebook cell by cell (:mod:`smscan.detectors.notebooks`).
2. Drop what cannot be a credential whatever the model thinks: references, placeholders and
   documented examples (:mod:`smscan.detectors.placeholders`); values shaped like identifiers
   of other things (:mod:`smscan.detectors.value_shapes`: UUIDs under a name that is not
   secret, versions, URLs, paths, digests, names of things, prose); values too short or too
   plain (one character class) for their place. Steps 2 and the evidence of step 3 are
   :mod:`smscan.detectors.credential_evidence`, the model-free half of the decision.
3. Score what is left by its surprise (nats per character, or the paper's best 4-token window)
   plus the evidence of its place, added up: a name that says secret
   (:mod:`smscan.detectors.secret_names`), a URL password, an ``Authorization`` value or a
   private-key block adds ``secret_bonus``; a vendor's published format
   (:mod:`smscan.detectors.vendor_prefixes`) adds ``vendor_bonus``; a bare token with neither
   pays ``token_penalty``. The score stays in nats, so one calibrated threshold per model
   decides, and the whole value is the span. The surprise statistics are
   :mod:`smscan.detectors.value_surprise`; the rule's parameters
   :mod:`smscan.detectors.credential_rule`.

A vendor format is evidence, not a way in: a token behind an unknown ``acme_live_`` is judged by
its name and surprise, as every value is, and a known prefix only adds a little to a value that
must still surprise the model.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from smscan.records import Candidate
from smscan.detectors.cheap_gate import CheapGate
from smscan.detectors.credential_evidence import (
    JudgedSlot,
    is_letter_key,
    judge_slot,
    judged_slots,
)
from smscan.detectors.credential_rule import CredentialRule
from smscan.detectors.near_repeats import raise_near_repeats
from smscan.detectors.secret_names import name_class
from smscan.detectors.value_shapes import is_encoded_text, is_prose
from smscan.detectors.value_surprise import max_window_score, nll_per_char, predicted_at_least
from smscan.engine.windows import Windows, fixed_windows
from smscan.kinds import CREDENTIAL
from smscan.records import TokenScores

KIND = CREDENTIAL
# A scan plans every document (which values need the model) before it judges their candidates,
# so the slot finder's cache of the last few texts is gone by then: the model-free judgement of
# this many documents is kept, by their text's digest, to serve both.
_JUDGED_DOCUMENTS = 4096
__all__ = [
    "CredentialDetector", "CredentialRule", "is_encoded_text", "is_letter_key", "is_prose", "judge_slot",
    "name_class",
]


class CredentialDetector:
    """Credential-like values; see the module docstring for the recipe."""

    kind = KIND
    unit = "char"
    propagate = True
    sensitive = True  # a value is a secret: redacted wherever it is shown
    # About 32 tokens: the name and syntax around a value, what its surprise depends on.
    context_chars = 128

    def __init__(self, rule: CredentialRule | None = None) -> None:
        self._rule = rule or CredentialRule()
        self._judged: dict[tuple[bytes, str], tuple[JudgedSlot, ...]] = {}
        cut_off = self._rule.cheap_gate
        self._gate = None if cut_off is None else CheapGate.packaged(self._rule, cut_off)

    @classmethod
    def from_rule(cls, rule: Mapping[str, Any]) -> CredentialDetector:
        """The detector with a saved rule's parameters; unknown keys are ignored (a rule
        ``credential-learned`` is the learned judgement's: ``smscan.detectors.make_detector``)."""
        return cls(CredentialRule.from_dict(dict(rule)))

    def rule(self) -> dict[str, Any]:
        return self._rule.as_dict()

    def reasons(self, score: float, details: Mapping[str, Any]) -> list[str]:
        """Why a candidate scored what it did, for ``smscan explain``."""
        from smscan.detectors.explaining import credential_reasons

        return credential_reasons(score, details)

    def dropped(
        self, text: str, scores: TokenScores, windows: Windows, *, tau: float, near: float, path: str = ""
    ) -> list[Any]:
        """Slots dropped before scoring, for ``smscan explain`` (``detectors/explaining.py``)."""
        from smscan.detectors.explaining import credential_dropped

        return credential_dropped(text, self._rule, scores, windows, tau=tau, near=near, path=path, gate=self._gate)

    def applies_to(self, path: str) -> bool:
        return True

    def regions(self, text: str, path: str) -> list[tuple[int, int]]:
        """The values that survive the model-free judgement: only they need the model (of a long
        private-key block, its first lines)."""
        return [(judged.start, judged.sample_end) for judged in self._judged_slots(text, path)]

    def candidates(self, text: str, scores: TokenScores, *, path: str = "") -> list[Candidate]:
        rule = self._rule
        windows = fixed_windows(scores.nll, size=rule.window)
        token_starts = np.asarray(scores.char_starts, np.int64)
        token_ends = np.asarray(scores.char_ends, np.int64)
        found: list[Candidate] = []
        named: list[int] = []  # indexes into found of values with a secret name, place or vendor format
        for judged in self._judged_slots(text, path):
            if rule.statistic == "rate":
                surprise = nll_per_char(scores.nll, token_starts, token_ends, judged.start, judged.sample_end)
            else:
                surprise = max_window_score(windows, token_starts, token_ends, judged.start, judged.sample_end)
            if not math.isfinite(surprise):
                continue
            details: dict[str, Any] = {"place": judged.where, "surprise": round(surprise, 4), "length": judged.length}
            score = surprise + judged.evidence
            share = None if judged.evidence > 0 else predicted_at_least(
                rule.max_predictable_share, scores.nll, token_starts, token_ends, judged.start, judged.sample_end
            )
            if share is not None:
                # No secret name, place or vendor format, and surprising in places only (a name
                # rather than a drawn value): its surprise does not count. It stays a
                # candidate so that a copy of a value found as a credential elsewhere in its
                # group is still reported with it (propagation).
                details["predicted"] = round(share, 4)
                score = judged.evidence
            if judged.evidence > 0:
                named.append(len(found))
            found.append(Candidate(judged.start, judged.end, score, {**details, **judged.extra}))
        for index, candidate in raise_near_repeats(text, [found[i] for i in named]).items():
            found[named[index]] = candidate
        return found

    def _judged_slots(self, text: str, path: str) -> tuple[JudgedSlot, ...]:
        """:func:`judged_slots` of ``text``, judged once for both :meth:`regions` and :meth:`candidates`."""
        key = (hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest(), path)
        found = self._judged.get(key)
        if found is None:
            gate = self._gate
            settled = None if gate is None else lambda piece, slot, evidence: gate.settles(piece, slot, path, evidence)
            found = tuple(judged_slots(text, self._rule, path=path, settled=settled))
            if len(self._judged) >= _JUDGED_DOCUMENTS:
                del self._judged[next(iter(self._judged))]
            self._judged[key] = found
        return found
