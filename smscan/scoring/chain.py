"""The one place where a command's scorer is assembled from Settings.

Every command that scores (scan modes, explain, baseline, export) asks ``build_scorer`` for its
scorer, so the layers in front of the reference model are wired once:

    score cache (on unless ``score_cache = false`` / ``--no-cache``)
      ->  LazyScorer: nothing below it starts before the first text the cache lacks
        ->  a warm worker (``worker`` setting, when one runs for these settings)
          ->  else the reference model in this process, under the scoring rule
              (``model/prompted.py`` for ``prompted`` and ``contrast``)

Each layer has the ``Scorer`` protocol (``fingerprint``, ``settings``, ``score_texts``), so the
pipeline never knows which layers it talks to.
"""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from smscan.config.settings import Settings
from smscan.errors import ModelError

if TYPE_CHECKING:
    from smscan.model.scorer import Scorer

# Part of every remembered identity's request: bump it when what a load request resolves to
# changes in a way the request string does not show.
LOAD_REQUEST_FORMAT = 1


def build_scorer(
    settings: Settings,
    *,
    environ: Mapping[str, str] = os.environ,
    dtype: str | None = None,
    batch_size: int | None = None,
    load: Callable[..., Any] | None = None,
) -> Any:
    """The scorer for ``settings``: the model (pulled on first use), behind the enabled layers.

    With ``settings.worker`` ``use`` or ``auto`` and a worker running for the same model and
    settings (``smscan serve``), texts are scored there and this process never imports torch;
    if that worker fails mid-command, the model is loaded here. ``auto`` starts a detached
    worker when none runs, for the next command, and scores this one here.

    Args:
        settings: model, device, dtype, runtime, threads, worker and the score cache (``score_cache``,
            ``score_cache_mb``) come from here.
        environ: ``SMSCAN_SCORE_CACHE=DIR`` puts the score cache in DIR; ``SMSCAN_CACHE`` moves
            smscan's cache root (models, and scores unless told otherwise).
        dtype: overrides ``settings.dtype`` (export's ``--deterministic`` forces fp32).
        batch_size: chunks per forward pass; None lets the loader pick per device.
        load: loads the model (``smscan.model.load.load_scorer``'s shape); the CLI injects its
            own, so tests stand a fake model behind the real cache and worker layers.

    Returns:
        Without the cache, the loaded model's scorer; with it, a ``CachedScorer`` over a
        ``LazyScorer`` (the model loads on the first miss).

    Raises:
        ModelError: the model cannot be found or loaded (with the cache: on first use).
    """
    options: dict[str, Any] = {
        **_load_options(settings, dtype=dtype, batch_size=batch_size),
        "scoring_rule": settings.scoring_rule, "instructions": list(settings.instructions),
    }

    def in_process() -> Any:
        return build_model_scorer(settings, environ=environ, dtype=dtype, batch_size=batch_size, load=load)

    def load_model() -> Any:
        return _worker_or(in_process, settings, dtype=dtype, environ=environ)

    cache = open_score_cache(settings, environ=environ)
    if cache is None:
        return load_model()
    from smscan.scoring.cached_scorer import CachedScorer
    from smscan.scoring.lazy import LazyScorer

    request, tokenizer_file, weights = None, None, None
    source = _resolve_without_network(settings.model, environ)
    if source is not None:
        request = json.dumps(
            {
                "format": LOAD_REQUEST_FORMAT, "fingerprint": source.fingerprint.short,
                "folder": str(source.folder), "options": options, "host": platform.node(),
                "smscan": _version(),
            },
            sort_keys=True,
        )
        tokenizer_file = source.folder / "tokenizer.json"
        weights = source.fingerprint.short
    lazy = LazyScorer(load_model, request=request, tokenizer_file=tokenizer_file, memo=cache, weights_fingerprint=weights)
    return CachedScorer(lazy, cache)


def open_score_cache(settings: Settings, *, environ: Mapping[str, str] = os.environ) -> Any:
    """The score cache ``settings`` ask for (``smscan.scoring.cache.ScoreCache``), or None when it is off."""
    if not settings.score_cache:
        return None
    from smscan.scoring.cache import ScoreCache, default_cache_dir

    return ScoreCache(default_cache_dir(environ), max_bytes=settings.score_cache_mb << 20)


def _resolve_without_network(spec: str, environ: Mapping[str, str]) -> Any:
    # The default model and local folders resolve from disk (a manifest, cached file hashes);
    # a hub id would ask the network, so it gets no remembered identity (its first use loads).
    from smscan.model.source import is_default_model, resolve_model

    if not (is_default_model(spec) or Path(spec).expanduser().is_dir()):
        return None
    try:
        return resolve_model(spec, environ=environ)
    except ModelError:  # not pulled yet, damaged: loading says so (and pulls the default)
        return None


def _version() -> str:
    from smscan import __version__

    return str(__version__)


def _worker_or(in_process: Any, settings: Settings, *, dtype: str | None, environ: Mapping[str, str]) -> Any:
    """A running worker's scorer (falling back to ``in_process`` if it fails), else ``in_process()``."""
    if settings.worker != "off":
        from smscan.scoring.worker_client import connect_worker

        scorer = connect_worker(settings, fallback=in_process, dtype=dtype, environ=environ)
        if scorer is not None:
            return scorer
        if settings.worker == "auto" and dtype is None:
            from smscan.scoring.worker_spawn import start_worker_unless_starting

            start_worker_unless_starting(settings, environ=environ)
    return in_process()


def build_model_scorer(
    settings: Settings,
    *,
    environ: Mapping[str, str] = os.environ,
    dtype: str | None = None,
    batch_size: int | None = None,
    load: Callable[..., Any] | None = None,
) -> Any:
    """The reference model in this process, with no layers in front (what a worker serves)."""
    if load is None:
        # Looked up at call time, so tests can stand a fake model in for smscan.model.load.load_scorer.
        from smscan.model import load as loader

        load = loader.load_scorer
    scorer = load(settings.model, pull_if_missing=True, **_load_options(settings, dtype=dtype, batch_size=batch_size))
    return with_scoring_rule(scorer, settings)


def _load_options(settings: Settings, *, dtype: str | None, batch_size: int | None) -> dict[str, Any]:
    # What a model load is asked for: the loader's arguments, and part of the remembered
    # identity's request (an option added here changes both, so they cannot drift apart).
    return {
        "device": settings.device, "dtype": dtype or settings.dtype, "threads": settings.threads,
        "batch_size": batch_size, "runtime": settings.runtime,
    }


def with_scoring_rule(scorer: Scorer, settings: Settings) -> Any:
    """``scorer`` scoring under ``settings.scoring_rule`` (itself for ``unprompted``)."""
    if settings.scoring_rule == "unprompted":
        return scorer
    from smscan.config.instructions import resolve_instructions
    from smscan.model.prompted import PromptedScorer

    return PromptedScorer(scorer, settings.scoring_rule, resolve_instructions(settings.scoring_rule, settings.instructions))


def score_passes(
    scorer: Scorer, settings: Settings, texts: list[str], *, in_process: Callable[[], Any] | None = None
) -> list[list[Any]]:
    """Each text's NLL under each of the rule's instructions (``PromptedScorer.score_passes``).

    The chain's scorer answers when the model runs in this process; a warm worker serves only
    the combined score, so then the model is loaded here (by ``in_process``, default
    ``build_model_scorer(settings)``).
    """
    passes = getattr(scorer, "score_passes", None)
    if passes is None:
        model = in_process() if in_process is not None else build_model_scorer(settings)
        passes = model.score_passes
    result: list[list[Any]] = passes(texts)
    return result
