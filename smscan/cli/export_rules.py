"""The masking rule and detections of `smscan export`: its flags as ``RuleFlags``, resolved by
the library as every command resolves them (``smscan.rules.resolve.resolve_rules``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from smscan.cli.export_options import MaskOptions

if TYPE_CHECKING:
    from smscan.rules.resolve import Rules


def export_rules(settings: Any, root: Path, fingerprint: str, mask: MaskOptions, masking: str = "paper") -> Rules:
    """The export's rules: the masking rule, detections, value threshold (None: raw rule alone)
    and a note for the summary."""
    from smscan.rules.flags import RuleFlags
    from smscan.rules.resolve import resolve_rules

    flags = RuleFlags(
        thresholds=mask.thresholds, operating_point=mask.operating_point, window=mask.window,
        threshold=mask.threshold, consensus=mask.consensus, propagate=mask.propagate,
        ranking=mask.ranking, rank_max=mask.rank_max, neighbours=mask.neighbours, masking=masking,
    )
    return resolve_rules(settings, flags, root=root, fingerprint=fingerprint, purpose="export")
