"""The masking rule and detections of `smscan export`, resolved as every command resolves them
(smscan.rules)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from smscan.cli.export_options import MaskOptions


def export_rules(
    settings: Any, root: Path, fingerprint: str, mask: MaskOptions, masking: str = "paper"
) -> tuple[Any, tuple[Any, ...], float | None, str | None]:
    """The masking rule, detections, value threshold (None: raw rule alone) and a note for the
    summary, resolved as every command resolves them (smscan.rules); ``--masking values`` adds
    credential findings to the default kinds (exports/defaults.py)."""
    from smscan.errors import SmscanError
    from smscan.exports.defaults import default_export_detections
    from smscan.kinds import SURPRISE
    from smscan.rules import RuleFlags, resolve_detections, resolve_surprise

    kinds = settings.kinds or (SURPRISE,)
    rule, value_threshold = None, None
    if SURPRISE in kinds:
        flags = RuleFlags(
            thresholds=mask.thresholds, operating_point=mask.operating_point, window=mask.window,
            threshold=mask.threshold, consensus=mask.consensus, propagate=mask.propagate,
            ranking=mask.ranking, rank_max=mask.rank_max, neighbours=mask.neighbours, masking=masking,
        )
        resolved = resolve_surprise(settings, root=root, fingerprint=fingerprint, flags=flags)
        try:
            rule = resolved.mask_rule()
        except ValueError as error:
            raise SmscanError(f"export rule: {error}") from error
        if masking == "values":
            from smscan.exports.values import DEFAULT_VALUE_THRESHOLD

            value_threshold = DEFAULT_VALUE_THRESHOLD if resolved.value_threshold is None else resolved.value_threshold
    if masking == "values" and not settings.kinds:
        detections, note = default_export_detections(settings, root=root, fingerprint=fingerprint, thresholds=mask.thresholds)
        return rule, detections, value_threshold, note
    detections = resolve_detections(settings, kinds, root=root, fingerprint=fingerprint, thresholds=mask.thresholds)
    return rule, detections, value_threshold, None
