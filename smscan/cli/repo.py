"""`smscan repo [PATH]`: scan the files of a work tree or folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from smscan.cli.options import (
    ConfigOption, DeviceOption, DtypeOption, FormatOption, ModelOption, NoRedactOption,
    OutputOption, QuietOption, ThresholdOption,
)
from smscan.cli.scanning import ReportFormat, run_scan
from smscan.config import load_settings


def repo_command(
    path: Annotated[Path, typer.Argument(help="Folder to scan (a git work tree or any folder).")] = Path("."),
    model: ModelOption = None,
    device: DeviceOption = None,
    dtype: DtypeOption = None,
    threshold: ThresholdOption = None,
    report_format: FormatOption = ReportFormat.text,
    output: OutputOption = None,
    quiet: QuietOption = False,
    no_redact: NoRedactOption = False,
    config: ConfigOption = None,
) -> int:
    """Scan the text files under PATH: in a git work tree the tracked and untracked-but-not-ignored
    files, in a plain folder every file not ignored by a .gitignore."""
    from smscan.sources.select import PathFilter
    from smscan.sources.worktree import find_root, iter_worktree

    root, _ = find_root(path)
    settings = load_settings(
        root,
        explicit=config,
        overrides={"model": model, "device": device, "dtype": dtype, "threshold": threshold},
    )
    items = list(
        iter_worktree(
            path,
            max_file_bytes=settings.max_file_bytes,
            path_filter=PathFilter(include=settings.include, exclude=settings.exclude),
        )
    )
    return run_scan(
        items, settings, report_format=report_format, output=output, quiet=quiet, no_redact=no_redact
    )
