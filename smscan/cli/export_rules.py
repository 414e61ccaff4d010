"""The masking rule and detections of `smscan export`: its flags as ``RuleFlags``, resolved by
the library as every command resolves them (``smscan.exports.defaults.export_rules``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from smscan.cli.export_options import MaskOptions


def export_rules(
    settings: Any, root: Path, fingerprint: str, mask: MaskOptions, masking: str = "paper"
) -> tuple[Any, tuple[Any, ...], float | None, str | None]:
    """The masking rule, detections, value threshold (None: raw rule alone) and a note for the
    summary (``smscan.exports.defaults.export_rules``)."""
    from smscan.exports.defaults import export_rules as resolve_export_rules
    from smscan.rules.flags import RuleFlags

    flags = RuleFlags(
        thresholds=mask.thresholds, operating_point=mask.operating_point, window=mask.window,
        threshold=mask.threshold, consensus=mask.consensus, propagate=mask.propagate,
        ranking=mask.ranking, rank_max=mask.rank_max, neighbours=mask.neighbours, masking=masking,
    )
    return resolve_export_rules(settings, root=root, fingerprint=fingerprint, flags=flags, masking=masking)
