"""`smscan repo [PATH]`: scan the files of a work tree or folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from smscan.cli.groups import command
from smscan.cli.options import BaselineOption, ModelOptions, ReportOptions, ScanOptions
from smscan.cli.prepare import prepare_scan
from smscan.cli.scanning import ScanJob, run_scan
from smscan.cli.services import current_services
from smscan.records import Document, Skip
from smscan.sources.selection import Selection


@command
def repo_command(
    path: Annotated[Path, typer.Argument(metavar="PATH", help="Folder to scan (a git work tree or any folder).")] = Path("."),
    rev: Annotated[
        Optional[str], typer.Option("--rev", metavar="REV", help="Scan the files of this commit, read from git objects, not the disk.")
    ] = None,
    *,
    model: ModelOptions,
    scan: ScanOptions,
    report: ReportOptions,
    baseline: BaselineOption = None,
) -> int:
    """Scan the text files under PATH: in a git work tree the tracked and untracked-but-not-ignored
    files, in a plain folder every file not ignored by a .gitignore; with --rev, the files of a
    commit as git stores them."""
    from smscan.sources.worktree import find_root, iter_worktree

    services = current_services()
    root, is_git = find_root(path)
    settings, selection, inputs = prepare_scan(
        root, model, scan, baseline=baseline, outputs=[report.output], services=services
    )
    if rev is not None:
        items = _revision_items(path, root, rev, is_git=is_git, selection=selection)
    else:
        worktree = iter_worktree(path, max_file_bytes=settings.max_file_bytes, path_filter=selection.path_filter)
        items = [refined for item in worktree if (refined := selection.refine(item)) is not None]
    return run_scan(ScanJob(items, settings, root, inputs), report, services)


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
