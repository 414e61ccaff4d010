"""`smscan baseline [PATH] -o FILE`: accept the current findings, so later scans report only new ones."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from smscan.cli.options import (
    ConfigOption, DeviceOption, DtypeOption, KindsOption, ModelOption, NoCacheOption, ThresholdOption,
    ThresholdsFileOption, cache_override, parse_kinds,
)
from smscan.config import Settings, load_settings
from smscan.errors import SmscanError


def baseline_path(flag: Path | None, settings: Settings, root: Path) -> Path | None:
    """The baseline a scan uses: ``--baseline`` (relative to the current folder), else the
    config's ``baseline`` (relative to the root), else none."""
    if flag is not None:
        return flag
    if settings.baseline:
        return root / settings.baseline
    return None


def baseline_command(
    path: Annotated[Path, typer.Argument(help="Folder to scan (a git work tree or any folder).")] = Path("."),
    output: Annotated[
        Optional[Path],
        typer.Option("--output", "-o", help="Baseline file to write (default: the config's 'baseline', else .smscan-baseline.json at the root)."),
    ] = None,
    model: ModelOption = None,
    device: DeviceOption = None,
    dtype: DtypeOption = None,
    threshold: ThresholdOption = None,
    kinds: KindsOption = None,
    thresholds: ThresholdsFileOption = None,
    config: ConfigOption = None,
    no_cache: NoCacheOption = False,
) -> int:
    """Scan PATH as `smscan repo` does and record every finding in a baseline file.

    Scans given the baseline (--baseline FILE, or 'baseline' in the config) then report only new
    findings. The file holds no line numbers or timestamps; rewriting it keeps its salt.
    """
    from rich.console import Console

    from smscan.baseline import Baseline, dump_baseline, load_baseline
    from smscan.cli.scanning import collect, write_atomically
    from smscan.sources.selection import DEFAULT_BASELINE, Selection
    from smscan.sources.worktree import find_root, iter_worktree

    root, _ = find_root(path)
    settings = load_settings(
        root,
        explicit=config,
        overrides={
            "model": model, "device": device, "dtype": dtype, "threshold": threshold,
            "kinds": parse_kinds(kinds), "score_cache": cache_override(no_cache),
        },
    )
    target = output or baseline_path(None, settings, root) or root / DEFAULT_BASELINE
    selection = Selection.for_root(root, settings, outputs=[target])
    items = [
        refined
        for item in iter_worktree(path, max_file_bytes=settings.max_file_bytes, path_filter=selection.path_filter)
        if (refined := selection.refine(item)) is not None
    ]
    previous = load_baseline(target) if target.is_file() else Baseline.new()
    # Exactly what `smscan repo` reports without a baseline (smscan.decisions).
    result, _, _, _ = collect(items, settings, root=root, thresholds=thresholds)
    accepted = previous.with_findings(result.findings, result.values)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise SmscanError(f"{target.parent}: cannot create the folder: {error.strerror}") from error
    write_atomically(target, dump_baseline(accepted))
    Console(stderr=True, highlight=False).print(
        f"wrote {len(accepted.entries)} baseline entries for {len(result.findings)} findings to {target}",
        markup=False,
    )
    return 0
