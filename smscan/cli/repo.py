"""`smscan repo [PATH]`: scan the files of a work tree or folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from smscan.cli.options import (
    BaselineOption, ConfigOption, DeviceOption, DtypeOption, FormatOption, InstructionsOption, ModelOption,
    KindsOption, NoCacheOption, NoRedactOption, OutputOption, QuietOption, ScoringRuleOption, ThresholdOption,
    ThresholdsFileOption, cache_override, parse_instructions, parse_kinds,
)
from smscan.cli.scanning import ReportFormat, run_scan
from smscan.config import load_settings
from smscan.records import Document, Skip
from smscan.sources.selection import Selection


def repo_command(
    path: Annotated[Path, typer.Argument(help="Folder to scan (a git work tree or any folder).")] = Path("."),
    rev: Annotated[
        Optional[str], typer.Option("--rev", help="Scan the files of this commit, read from git objects, not the disk.")
    ] = None,
    model: ModelOption = None,
    device: DeviceOption = None,
    dtype: DtypeOption = None,
    threshold: ThresholdOption = None,
    kinds: KindsOption = None,
    thresholds: ThresholdsFileOption = None,
    report_format: FormatOption = ReportFormat.text,
    output: OutputOption = None,
    quiet: QuietOption = False,
    no_redact: NoRedactOption = False,
    config: ConfigOption = None,
    baseline: BaselineOption = None,
    no_cache: NoCacheOption = False,
    scoring_rule: ScoringRuleOption = None,
    instructions: InstructionsOption = None,
) -> int:
    """Scan the text files under PATH: in a git work tree the tracked and untracked-but-not-ignored
    files, in a plain folder every file not ignored by a .gitignore; with --rev, the files of a
    commit as git stores them."""
    from smscan.cli.baseline import baseline_path
    from smscan.sources.worktree import find_root, iter_worktree

    root, is_git = find_root(path)
    settings = load_settings(
        root,
        explicit=config,
        overrides={
            "model": model, "device": device, "dtype": dtype, "threshold": threshold,
            "kinds": parse_kinds(kinds), "score_cache": cache_override(no_cache),
            "scoring_rule": scoring_rule, "instructions": parse_instructions(instructions),
        },
    )
    selection = Selection.for_root(root, settings, outputs=[output])
    if rev is not None:
        items = _revision_items(path, root, rev, is_git=is_git, selection=selection)
    else:
        worktree = iter_worktree(path, max_file_bytes=settings.max_file_bytes, path_filter=selection.path_filter)
        items = [refined for item in worktree if (refined := selection.refine(item)) is not None]
    return run_scan(
        items, settings, report_format=report_format, output=output, quiet=quiet, no_redact=no_redact,
        baseline=baseline_path(baseline, settings, root), root=root, thresholds=thresholds,
    )


def _revision_items(
    path: Path, root: Path, rev: str, *, is_git: bool, selection: Selection
) -> list[Document | Skip]:
    from smscan.errors import SourceError
    from smscan.sources.git import GitRepository
    from smscan.sources.revision import iter_revision

    if not is_git:
        raise SourceError(f"--rev {rev}: {path} is not in a git repository")
    scan_dir = path.resolve()
    under = "" if scan_dir == root else scan_dir.relative_to(root).as_posix()
    with GitRepository(root) as repo:
        commit = repo.resolve_commit(rev)
        return list(iter_revision(repo, commit, selection=selection, group=root.as_posix(), under=under))
