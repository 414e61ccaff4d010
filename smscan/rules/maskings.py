"""One ``surprise`` entry per masking: the paper's raw rule and value-aware masking side by side.

The two maskings choose different thresholds for the same recall: the raw rule's one threshold
masks windows of code and values alike, while value-aware masking has a value threshold and a
much stricter code threshold (``smscan/calibration/value_points.py``). A thresholds file keeps one
``surprise`` entry, the last calibrated, and the other masking's entry nested under its name
(``"values"`` or ``"paper"``), so that ``--operating-point SM95`` means recall 0.95 under either
``--masking`` (the packaged defaults hold both). An entry without ``rule.masking`` is the paper's.

    {"fingerprint": ..., "rule": {...}, "threshold": 3.97, "operating_points": {...},
     "values": {"fingerprint": ..., "rule": {"masking": "values", ...}, "threshold": 12.0, ...}}
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from smscan.kinds import SURPRISE

DEFAULT_VALUE_THRESHOLD = 2.63
"""The value randomness of an uncalibrated export: what calibrating the default model at recall
0.95 chooses on the values development set (2.631: its SM95 point 3.019 lowered by the worst
fold's overshoot; ``bench/export_values_eval.py``, docs/BENCHMARKS.md). Calibrate on data like yours."""

MASKINGS = ("values", "paper")


def masking_of(entry: Mapping[str, Any]) -> str:
    """The masking an entry was calibrated for.

    Example:
        >>> masking_of({"rule": {"window": 4}}), masking_of({"rule": {"masking": "values"}})
        ('paper', 'values')
    """
    rule = entry.get("rule")
    return str(rule.get("masking", "paper")) if isinstance(rule, Mapping) else "paper"


def entry_for_masking(entry: Mapping[str, Any], masking: str) -> Mapping[str, Any] | None:
    """The entry itself or its nested one calibrated for ``masking``; None when it has neither.

    Example:
        >>> entry = {"rule": {}, "threshold": 4.0, "values": {"rule": {"masking": "values"}, "threshold": 12.0}}
        >>> entry_for_masking(entry, "values")["threshold"], entry_for_masking(entry, "paper")["threshold"]
        (12.0, 4.0)
    """
    if masking_of(entry) == masking:
        return entry
    nested = entry.get(masking)
    if isinstance(nested, Mapping) and masking_of(nested) == masking and {"fingerprint", "rule", "threshold"} <= set(nested):
        return nested
    return None


def with_other_masking(path: Path, entry: Mapping[str, Any]) -> dict[str, Any]:
    """``entry`` (about to be written to ``path``) with the file's entry of the other masking kept.

    Raises:
        ThresholdsError: the existing file is malformed.
    """
    from smscan.rules.thresholds_file import read_thresholds_file

    out = {key: value for key, value in entry.items() if key not in MASKINGS}
    old = read_thresholds_file(path)["kinds"].get(SURPRISE)
    if not isinstance(old, Mapping):
        return out
    other = "paper" if masking_of(entry) == "values" else "values"
    kept = entry_for_masking(old, other)
    if kept is not None:
        out[other] = {key: value for key, value in kept.items() if key not in MASKINGS}
    return out
