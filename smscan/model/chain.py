"""The one place where a command's scorer is assembled from Settings.

Every command that scores (scan modes, explain, export, eval, calibrate) asks ``build_scorer``
for its scorer, so the layers in front of the reference model are wired once:

    score cache (when on)  ->  a warm worker (``worker`` setting, when one runs for these settings)
                           ->  the reference model in this process (loaded only when needed)

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

    With ``settings.worker`` ``use`` or ``auto`` and a worker running for the same model and
    settings (``smscan serve``), texts are scored there and this process never imports torch;
    if that worker fails mid-command, the model is loaded here. ``auto`` starts a detached
    worker when none runs, for the next command, and scores this one here.

    Args:
        settings: model, device, dtype, threads and worker come from here.
        environ: ``SMSCAN_SCORE_CACHE=DIR`` keeps token scores in DIR.
        dtype: overrides ``settings.dtype`` (export's ``--deterministic`` forces fp32).
        batch_size: chunks per forward pass; None lets the loader pick per device.
    """

    def in_process() -> Any:
        return build_model_scorer(settings, environ=environ, dtype=dtype, batch_size=batch_size)

    scorer: Any = None
    if settings.worker != "off":
        from smscan.worker.client import connect_worker

        scorer = connect_worker(settings, fallback=in_process, dtype=dtype, environ=environ)
        if scorer is None and settings.worker == "auto" and dtype is None:
            from smscan.worker.spawn import start_worker_unless_starting

            start_worker_unless_starting(settings, environ=environ)
    if scorer is None:
        scorer = in_process()
    if environ.get("SMSCAN_SCORE_CACHE"):
        from smscan.cache import CachedScorer, ScoreCache

        scorer = CachedScorer(scorer, ScoreCache(Path(environ["SMSCAN_SCORE_CACHE"])))
    return scorer


def build_model_scorer(
    settings: Settings,
    *,
    environ: Mapping[str, str] = os.environ,
    dtype: str | None = None,
    batch_size: int | None = None,
) -> Any:
    """The reference model in this process, with no layers in front (what a worker serves)."""
    # Looked up at call time, so tests can stand a fake model in for smscan.model.load.load_scorer.
    from smscan.model import load

    return load.load_scorer(
        settings.model, device=settings.device, dtype=dtype or settings.dtype, pull_if_missing=True,
        threads=settings.threads, batch_size=batch_size,
    )
