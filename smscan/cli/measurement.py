"""What `smscan calibrate` and `smscan eval` share: their settings, the kind check, the
configured model behind the score cache, and scoring labelled texts with a progress bar."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from smscan.cli.options import ModelOptions
from smscan.cli.services import Services

if TYPE_CHECKING:
    from smscan.model.scorer import Scorer


def check_detector_kind(kind: str) -> None:
    """Refuse a kind that has no detector (``surprise`` is calibrated, not evaluated, here)."""
    from smscan.detectors import DETECTORS
    from smscan.errors import SmscanError

    if kind not in DETECTORS:
        raise SmscanError(f"--kind must be one of {', '.join(DETECTORS)}, got {kind!r}")


def load_cached_scorer(settings: Any, *, score_cache: Path | None, services: Services) -> Any:
    """The configured reference model (model, device, dtype, threads, as a scan would load it)
    behind the score cache: calibration and evaluation never rescore a text."""
    from smscan.scoring.cache import ScoreCache, default_cache_dir
    from smscan.scoring.cached_scorer import CachedScorer

    with services.err_console().status("loading the reference model", spinner="dots"):
        # The model itself: the cache in front of it is this command's (--score-cache).
        scorer = services.scorer(replace(settings, score_cache=False))
    return CachedScorer(scorer, ScoreCache(score_cache or default_cache_dir()))


def command_settings(config: Path | None, model: ModelOptions, services: Services) -> Any:
    """Settings of calibrate and eval: the config found from the working directory, then flags
    (model, device, dtype and threads as a scan would load them)."""
    from smscan.cli.scanning import command_settings as settings_at

    return settings_at(working_root(), config, model.overrides(), services)


def working_root() -> Path:
    """Where calibrate and eval look for the config and the repository's thresholds file: the git
    top level of the current folder (as a scan of ``.`` finds it), else the folder itself."""
    from smscan.sources.worktree import find_root

    return find_root(Path.cwd())[0]


def score_with_progress(scorer: Scorer, texts: list[str]) -> list[Any]:
    """Score texts through the cache, with a progress bar on a terminal."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from smscan.calibration.calibrate import score_documents

    console = Console(stderr=True)
    with Progress(
        TextColumn("scoring"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=console, transient=True, disable=not console.is_terminal,
    ) as progress:
        task = progress.add_task("scoring", total=len(texts))
        return score_documents(scorer, texts, on_progress=lambda done, _: progress.update(task, completed=done))


def score_planned_with_progress(scorer: Scorer, kind: str, documents: Sequence[Any], rule: dict[str, Any] | None = None) -> list[Any]:
    """Score what a scan of ``kind`` scores (its detector's plan), so thresholds are chosen and
    judged on the scores a scan reads; the plan ignores the labelled texts' names."""
    from smscan.detectors import make_detector
    from smscan.plan.pieces import assemble_scores, plan_pieces
    from smscan.records import Document

    detector = make_detector(kind, rule)
    plans = [plan_pieces(Document(d.name, d.text), [detector], by_path=False) for d in documents]
    flat = score_with_progress(scorer, [piece.text for pieces in plans for piece in pieces])
    return assemble_scores(plans, flat)
