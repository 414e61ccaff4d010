"""The prologue every scanning command shares: settings, file selection, inputs checked early."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from smscan.cli.options import ModelOptions, ScanOptions
from smscan.cli.scanning import CheckedInputs, check_inputs, command_settings
from smscan.cli.services import Services
from smscan.config.settings import Settings
from smscan.sources.selection import Selection


def prepare_scan(
    root: Path, model: ModelOptions, scan: ScanOptions, *, baseline: Path | None, outputs: Sequence[Path | None],
    services: Services,
) -> tuple[Settings, Selection, CheckedInputs]:
    """Settings from the flags and config, the file selection (never the report's own
    ``outputs``), and the thresholds files and baseline read before any model loads."""
    settings = command_settings(root, scan.config, model.overrides() | scan.overrides(), services)
    selection = Selection.for_root(root, settings, outputs=list(outputs))
    origin = "--baseline" if baseline is not None else f"{settings.source} key 'baseline'"
    inputs = check_inputs(
        settings, root, thresholds=scan.thresholds, baseline=baseline_path(baseline, settings, root),
        baseline_origin=origin,
    )
    return settings, selection, inputs


def baseline_path(flag: Path | None, settings: Settings, root: Path) -> Path | None:
    """The baseline a scan uses: ``--baseline`` (relative to the current folder), else the
    config's ``baseline`` (relative to the root), else none."""
    if flag is not None:
        return flag
    if settings.baseline:
        return root / settings.baseline
    return None
