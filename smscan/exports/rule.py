"""Moved to :mod:`smscan.masking` (one rule type for scans and exports); kept for imports."""

from smscan.masking import MaskRule, Ranking, mask_group, supervised_tokens

__all__ = ["MaskRule", "Ranking", "mask_group", "supervised_tokens"]
