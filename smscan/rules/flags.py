"""The rule values a command's own flags give: they beat the config, thresholds files and defaults."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class RuleFlags:
    """Rule values a command's own flags give (None: not given); they beat everything else."""

    thresholds: Path | None = None
    operating_point: str | None = None
    window: int | None = None
    threshold: float | None = None
    consensus: int | None = None
    propagate: bool | None = None
    ranking: str | None = None
    rank_max: float | None = None
    neighbours: int | None = None
    masking: str | None = None
    """The export's ``--masking``: read the ``surprise`` entry calibrated for it
    (``smscan/rules/maskings.py``); None reads the file's entry as it is."""
