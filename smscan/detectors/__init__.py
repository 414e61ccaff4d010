"""Detectors turn token scores and cheap evidence into scored candidates of one finding kind.

``DETECTORS`` is the one registry: kind -> detector class. A kind id is stored by users (config,
thresholds files, baselines), so it is chosen once and never derived from a module path. Raw
``surprise`` spans are not a detector: they are plain Global Surprise Masking, run by the pipeline.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from smscan.detectors.credential import CredentialDetector
from smscan.detectors.dead_code import DeadCodeDetector
from smscan.detectors.judgement.detector import RULE as LEARNED_RULE
from smscan.detectors.judgement.detector import LearnedCredentialDetector
from smscan.kinds import CREDENTIAL, DEAD_CODE, SURPRISE
from smscan.records import Detector

DETECTORS: dict[str, type[CredentialDetector] | type[DeadCodeDetector]] = {
    CREDENTIAL: CredentialDetector,
    DEAD_CODE: DeadCodeDetector,
}
KINDS = (SURPRISE, *DETECTORS)
DEFAULT_KINDS = (CREDENTIAL, DEAD_CODE)


def make_detector(kind: str, rule: Mapping[str, Any] | None = None) -> Detector:
    """The detector of ``kind`` with a saved rule's parameters (its defaults when None).

    A ``credential`` rule named ``credential-learned`` selects the learned judgement
    (:mod:`smscan.detectors.judgement`).

    Raises:
        KeyError: ``kind`` has no detector (``surprise`` has none: the judging stage runs it).
    """
    rule = rule or {}
    if kind == CREDENTIAL and rule.get("rule") == LEARNED_RULE:
        return LearnedCredentialDetector.from_rule(rule)
    return DETECTORS[kind].from_rule(rule)


__all__ = [
    "CREDENTIAL",
    "DEAD_CODE",
    "DEFAULT_KINDS",
    "DETECTORS",
    "KINDS",
    "SURPRISE",
    "make_detector",
]
