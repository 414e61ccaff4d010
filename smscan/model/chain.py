"""The one place where a command's scorer is assembled from Settings.

Every command that scores (scan modes, explain, export, eval, calibrate) asks ``build_scorer``
for its scorer, so the layers in front of the reference model are wired once:

    score cache (when on)  ->  the reference model in this process

Each layer has the ``Scorer`` protocol (``fingerprint``, ``settings``, ``score_texts``), so the
pipeline never knows which layers it talks to.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from smscan.config import Settings


def build_scorer(
    settings: Settings,
    *,
    environ: Mapping[str, str] = os.environ,
    dtype: str | None = None,
    batch_size: int | None = None,
) -> Any:
    """The scorer for ``settings``: the model (pulled on first use), behind the enabled layers.

    Args:
        settings: model, device, dtype, runtime and threads come from here.
        environ: ``SMSCAN_SCORE_CACHE=DIR`` keeps token scores in DIR.
        dtype: overrides ``settings.dtype`` (export's ``--deterministic`` forces fp32).
        batch_size: chunks per forward pass; None lets the loader pick per device.
    """
    # Looked up at call time, so tests can stand a fake model in for smscan.model.load.load_scorer.
    from smscan.model import load

    scorer: Any = load.load_scorer(
        settings.model, device=settings.device, dtype=dtype or settings.dtype, pull_if_missing=True,
        threads=settings.threads, batch_size=batch_size, runtime=settings.runtime,
    )
    if environ.get("SMSCAN_SCORE_CACHE"):
        from smscan.cache import CachedScorer, ScoreCache

        scorer = CachedScorer(scorer, ScoreCache(Path(environ["SMSCAN_SCORE_CACHE"])))
    return scorer
