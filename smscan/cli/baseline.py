"""`smscan baseline [PATH] -o FILE`: accept the current findings, so later scans report only new ones."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from smscan.cli.groups import command
from smscan.cli.options import ModelOptions, ScanOptions
from smscan.cli.prepare import baseline_path
from smscan.cli.scanning import (
    ScanJob,
    check_inputs,
    collect,
    command_settings,
    write_atomically,
)
from smscan.cli.services import current_services
from smscan.errors import SmscanError

__all__ = ["baseline_command", "baseline_path"]


@command
def baseline_command(
    path: Annotated[Path, typer.Argument(metavar="PATH", help="Folder to scan (a git work tree or any folder).")] = Path("."),
    output: Annotated[
        Optional[Path],
        typer.Option("--output", "-o", metavar="FILE", help="Baseline file to write (default: the config's 'baseline', else .smscan-baseline.json at the root)."),
    ] = None,
    *,
    model: ModelOptions,
    scan: ScanOptions,
) -> int:
    """Scan PATH as `smscan repo` does and record every finding in a baseline file.

    Scans given the baseline (--baseline FILE, or 'baseline' in the config) then report only new
    findings. The file holds no line numbers or timestamps; rewriting it keeps its salt.
    """
    from smscan.decide.baseline import Baseline, dump_baseline, load_baseline
    from smscan.sources.selection import DEFAULT_BASELINE, Selection
    from smscan.sources.worktree import find_root, iter_worktree

    services = current_services()
    root, _ = find_root(path)
    settings = command_settings(root, scan.config, model.overrides() | scan.overrides(), services)
    target = output or baseline_path(None, settings, root) or root / DEFAULT_BASELINE
    selection = Selection.for_root(root, settings, outputs=[target])
    previous = load_baseline(target) if target.is_file() else Baseline.new()
    inputs = check_inputs(settings, root, thresholds=scan.thresholds, baseline=None)
    items = [
        refined
        for item in iter_worktree(path, max_file_bytes=settings.max_file_bytes, path_filter=selection.path_filter)
        if (refined := selection.refine(item)) is not None
    ]
    # Exactly what `smscan repo` reports without a baseline (smscan.decide.decisions).
    result, _, _, _ = collect(ScanJob(items, settings, root, inputs), services)
    accepted = previous.with_findings(result.findings, result.values)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise SmscanError(f"{target.parent}: cannot create the folder: {error.strerror}") from error
    write_atomically(target, dump_baseline(accepted))
    services.err_console().print(
        f"wrote {len(accepted.entries)} baseline entries for {len(result.findings)} findings to {target}",
        markup=False,
    )
    return 0
