"""What commands take from the outside world, in one object the entry point injects.

``main(argv, services=...)`` hands a :class:`Services` to every command through the click
context, so a test replaces the model, the environment or the output streams by passing its
own, as httpx's tests pass a ``MockTransport``, instead of patching module internals.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
import dataclasses
from dataclasses import dataclass, field
from typing import Any, TextIO

from rich.console import Console

from smscan.config.settings import Settings

ModelLoader = Callable[..., Any]
"""``smscan.model.load.load_scorer``'s shape: ``(spec, *, device, dtype, ...) -> Scorer``."""


def _load_model(spec: str, **options: Any) -> Any:
    # Looked up at call time: the real loader imports torch only when a model is needed.
    from smscan.model import load

    return load.load_scorer(spec, **options)


@dataclass(frozen=True)
class Services:
    """The model loader, the environment and the output streams every command uses.

    Attributes:
        environ: read for ``SMSCAN_MODEL``, the cache folders and ``CI`` (redaction).
        load_model: loads the reference model; the score cache and the warm worker stay in
            front of it (``smscan.scoring.chain.build_scorer``).
        stdout: where reports go (None: the process's stdout at the time of writing).
        stderr: where progress and notes go (None: the process's stderr).
        worker_off: score in this process whatever ``worker`` says (the thin client doubted the
            worker and said so).
        hook_starts_worker: ``staged`` and ``hook`` default to ``worker = "auto"`` (the console
            entry sets it: docs/BENCHMARKS.md, "Hook latency", measured that it pays).

    Example:
        >>> main(["repo", "."], services=Services(load_model=lambda *a, **k: FakeScorer()))  # doctest: +SKIP
    """

    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    load_model: ModelLoader = _load_model
    stdout: TextIO | None = None
    stderr: TextIO | None = None
    worker_off: bool = False
    hook_starts_worker: bool = False

    def console(self, **options: Any) -> Console:
        """A console on stdout for reports (its terminal test and colour follow the environment)."""
        return Console(file=self.stdout, highlight=False, _environ=dict(self.environ), **options)

    def err_console(self, **options: Any) -> Console:
        """A console on stderr for progress and notes."""
        if self.stderr is not None:
            return Console(file=self.stderr, highlight=False, _environ=dict(self.environ), **options)
        return Console(stderr=True, highlight=False, _environ=dict(self.environ), **options)

    def scorer(self, settings: Settings, *, dtype: str | None = None, batch_size: int | None = None) -> Any:
        """The command's scorer: score cache, warm worker, then ``load_model`` (model/chain.py)."""
        from smscan.scoring.chain import build_scorer

        if self.worker_off:
            settings = dataclasses.replace(settings, worker="off")
        load = _naming_the_model_source(self.load_model, settings)
        return build_scorer(settings, environ=self.environ, dtype=dtype, batch_size=batch_size, load=load)

    def model_scorer(self, settings: Settings) -> Any:
        """The reference model in this process, no layer in front (what ``smscan serve`` holds)."""
        from smscan.scoring.chain import build_model_scorer

        return build_model_scorer(settings, environ=self.environ, load=_naming_the_model_source(self.load_model, settings))

    def is_ci(self) -> bool:
        """Whether the environment says it is a CI run (output is shared: values stay hidden)."""
        return bool(self.environ.get("CI"))


def _naming_the_model_source(load: ModelLoader, settings: Settings) -> ModelLoader:
    """``load``, whose errors also say where the model name came from (flag, config key or
    environment variable): the load may fail long after the settings were read."""
    origin = settings.origin("model")
    if origin is None:
        return load

    def named(spec: str, **options: Any) -> Any:
        from smscan.errors import ModelError

        try:
            return load(spec, **options)
        except ModelError as error:
            raise ModelError(f"{origin}: {error}") from error

    return named


def current_services() -> Services:
    """The Services ``main`` injected for this invocation (the defaults outside ``main``)."""
    from typer.main import get_current_context  # type: ignore[attr-defined]  # typer vendors click and does not re-export this

    context = get_current_context(silent=True)
    while context is not None:
        if isinstance(context.obj, Services):
            return context.obj
        context = context.parent
    return Services()
