"""The parameters of the credential score, saved with the threshold they were calibrated for."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from smscan.errors import SmscanError


# The cheap gate's default cut-off: the loosest of -3.33 (the judgement's own sure_out), -2, -1
# and 0 that changed no finding of the held-out multi-format split (seed 63) or of the foreign
# sample (docs/BENCHMARKS.md, "Cheap first"); it sends requests 2.32.3's scan a quarter of the tokens.
CHEAP_GATE = -2.0
# A value without a secret name, place or vendor format is a name, not a credential, when this share of its
# characters lies in tokens the model predicts (:func:`smscan.detectors.value_surprise.predictable_share`):
# 5 of 331 credentials the rules found in the foreign sample reach it, each with a secret name,
# place or vendor format the check leaves alone; 14 of the blind noise rounds' ordinary-text
# alarms do (docs/BENCHMARKS.md, session 12).
MAX_PREDICTABLE_SHARE = 0.25


@dataclass(frozen=True, slots=True)
class CredentialRule:
    """Parameters of the credential score (saved with the threshold they were calibrated for)."""

    statistic: str = "rate"
    """``window``: the highest mean NLL (nats/token) of a ``window``-token window touching the
    value (the paper's rule); ``rate``: the value's total NLL per character (nats/char), the
    model's estimate of how random the value is."""
    window: int = 4
    secret_bonus: float = 1.0
    token_penalty: float = 1.0
    vendor_bonus: float = 0.5
    """Added for a value in a format a vendor publishes (``xoxb-``, ``glrt-``, JWTs, AWS ids)."""
    min_length_named: int = 6
    min_length_unnamed: int = 12
    min_length_unnamed_hex: int = 20
    min_length_unnamed_lower: int = 16
    """Unnamed values of letters in one case and digits shorter than this are ids (a Reddit thread's
    `ukaeu1ik4sw5`, a CloudFront distribution's `ECH69MOIW7613`): base 36 carries about 5.2 bits a
    character, so 16 of them hold what 20 hex digits do."""
    min_length_token: int = 20
    cheap_gate: float | None = CHEAP_GATE
    """A slot the rules keep whose cheap log-odds (the packaged judgement's cheap model) is at or
    below this skips the reference model and is no candidate (:mod:`smscan.detectors.cheap_gate`);
    None sends every slot the rules keep to the model."""

    max_predictable_share: float | None = MAX_PREDICTABLE_SHARE
    """A value with no positive evidence (no secret name or place, no vendor format) whose
    characters lie at least this much in tokens the model predicts is surprising in places only,
    a name rather than a drawn value, and is scored by its evidence alone (reported only as a copy
    of a credential found elsewhere in its group); None turns the check off. A value its place
    calls secret is never judged this way: a password people type is words."""

    def as_dict(self) -> dict[str, Any]:
        return {"rule": "credential-slots", **asdict(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CredentialRule:
        fields = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        gate = fields.get("cheap_gate")
        if gate is not None and (isinstance(gate, bool) or not isinstance(gate, (int, float)) or not math.isfinite(gate)):
            raise SmscanError(f"credential rule: cheap_gate must be a finite number or null, not {gate!r}")
        share = fields.get("max_predictable_share")
        if share is not None and (isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 < share <= 1):
            raise SmscanError(f"credential rule: max_predictable_share must be a number in (0, 1] or null, not {share!r}")
        return cls(**fields)
