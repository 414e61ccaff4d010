"""Finding kind ids: chosen once here, since users store them (config, thresholds files, baselines).

``surprise`` is raw Global Surprise Masking, run by the pipeline itself; every other kind is a
detector registered in ``smscan.detectors.DETECTORS``.
"""

from __future__ import annotations

from typing import Literal

SURPRISE = "surprise"
CREDENTIAL = "credential"
DEAD_CODE = "dead-code"

Kind = Literal["surprise", "credential", "dead-code"]
"""The kinds a config file or ``--kinds`` may name (checked against the constants by a test)."""
