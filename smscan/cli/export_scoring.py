"""The scorer of `smscan export`: the same ``load_scorer`` recipe on both engines (the local
engine's scorer in this process; on Ray, the recipe the actors load and its fingerprint)."""

from __future__ import annotations

from typing import Any

from smscan.cli.export_options import EngineOptions
from smscan.cli.services import Services


def export_scorer(settings: Any, engine: EngineOptions, deterministic: bool, services: Services) -> tuple[Any, dict[str, Any], str]:
    """The scorer (on Ray, the recipe the actors load: the driver loads no model), its description
    and fingerprint."""
    recipe = scorer_recipe(settings, deterministic=deterministic)
    if engine.engine == "ray":  # actors load the model; the driver only needs its fingerprint
        from smscan.errors import SmscanError
        from smscan.model.load import scorer_fingerprint

        if settings.scoring_rule != "unprompted":  # Ray actors load a bare model: no silent fallback
            raise SmscanError(
                f"--engine ray scores unprompted only; export with --engine local for scoring_rule {settings.scoring_rule}"
            )

        fingerprint = scorer_fingerprint(
            recipe.model, device=recipe.device, dtype=recipe.dtype, runtime=recipe.runtime, pull_if_missing=True
        )
        return recipe, {"fingerprint": fingerprint, "settings": f"ray-{recipe.device}-{recipe.dtype}"}, fingerprint
    # The local engine's scorer is a command's scorer (score cache, lazy model), with the
    # recipe's dtype and batch size, so both engines score alike.
    with services.err_console().status("loading the reference model", spinner="dots"):
        scorer = services.scorer(settings, dtype=recipe.dtype, batch_size=recipe.batch_size)
    description = dict(scorer.describe()) if hasattr(scorer, "describe") else {"fingerprint": scorer.fingerprint}
    return scorer, description, scorer.fingerprint


def scorer_recipe(settings: Any, *, deterministic: bool) -> Any:
    """The ``load_scorer`` call of both engines; --deterministic means fp32, one chunk a pass."""
    from smscan.errors import SmscanError
    from smscan.exports.ray_engine import ScorerRecipe

    dtype = settings.dtype
    if deterministic:
        if dtype not in ("auto", "fp32"):
            raise SmscanError(f"--deterministic scores in fp32; it does not combine with --dtype {dtype}")
        dtype = "fp32"
    return ScorerRecipe(
        settings.model, device=settings.device, dtype=dtype, batch_size=1 if deterministic else None,
        threads=settings.threads, runtime=settings.runtime,
    )
