"""Moved to :mod:`smscan.engine.masking` (one rule type for scans and exports); kept for imports."""

from smscan.engine.masking import MaskRule, Ranking, mask_group, supervised_tokens

__all__ = ["MaskRule", "Ranking", "mask_group", "supervised_tokens"]
