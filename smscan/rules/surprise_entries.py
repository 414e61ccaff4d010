"""The saved ``surprise`` entry a command uses: the first thresholds file that holds one (the
packaged entry only when an operating point is named), the entry of the masking asked for, and
the operating point's thresholds (``smscan.rules.resolve.resolve_surprise`` applies the precedence)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from smscan.rules.maskings import entry_for_masking, masking_of
from smscan.rules.thresholds_file import PACKAGED, find_entry, threshold_files
from smscan.errors import ThresholdsError
from smscan.kinds import SURPRISE

if TYPE_CHECKING:
    from smscan.config.settings import Settings
    from smscan.rules.flags import RuleFlags


def saved_surprise_entry(
    settings: Settings, *, root: Path | None, fingerprint: str, flags: RuleFlags
) -> tuple[dict[str, Any], float | None, str]:
    """The saved ``surprise`` rule, its threshold (or the operating point's) and its file."""
    files = threshold_files(root, flag=flags.thresholds, configured=settings.thresholds)
    for where, data in files:
        entry = data["kinds"].get(SURPRISE)
        if entry is None:
            continue
        if where == PACKAGED and flags.operating_point is None:
            break  # the packaged entry is a table of operating points, used when one is named
        if flags.masking is not None:
            data = {"kinds": {SURPRISE: _entry_for_masking(where, entry, flags.masking, flags.threshold is not None)}}
        found = find_entry([(where, data)], SURPRISE, fingerprint=fingerprint, model=settings.model)
        tau = found.operating_point(flags.operating_point) if flags.operating_point else found.threshold
        rule = dict(found.rule)
        if flags.operating_point:  # a value-aware entry saves each point's value threshold too
            point = found.data["operating_points"][flags.operating_point]
            rule.pop("value_threshold", None)
            if "value_threshold" in point:
                rule["value_threshold"] = point["value_threshold"]
        return rule, tau, found.source
    if flags.operating_point is not None:
        raise ThresholdsError(
            f"--operating-point {flags.operating_point}: no calibrated surprise entry; calibrate one with "
            "`smscan calibrate --kind surprise --labels FILE -o .smscan/thresholds.json`"
        )
    return {}, None, "settings"


def _entry_for_masking(where: str, entry: dict[str, Any], masking: str, threshold_given: bool) -> Any:
    """The entry calibrated for ``masking``. A paper entry alone serves value-aware masking too
    (its threshold as the code threshold: a superset of the paper's mask); a value-aware entry
    alone cannot serve the paper's rule (its threshold is the much stricter code threshold)
    unless ``--threshold`` replaces it (the window, consensus and propagation still apply).

    Raises:
        ThresholdsError: ``masking`` is ``paper``, the file holds a value-aware entry only and no
            ``--threshold`` was given.
    """
    found = entry_for_masking(entry, masking)
    if found is not None:
        return found
    if masking == "values" or threshold_given:
        return entry
    raise ThresholdsError(
        f"{where}: the surprise entry was calibrated for --masking {masking_of(entry)}, not --masking {masking}; "
        f"calibrate one with `smscan calibrate --kind surprise --masking {masking} --labels FILE -o {where}` "
        f"or export with --masking {masking_of(entry)}"
    )
