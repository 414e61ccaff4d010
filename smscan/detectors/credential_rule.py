"""The parameters of the credential score, saved with the threshold they were calibrated for."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


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
    min_length_token: int = 20

    def as_dict(self) -> dict[str, Any]:
        return {"rule": "credential-slots", **asdict(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CredentialRule:
        fields = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        return cls(**fields)
