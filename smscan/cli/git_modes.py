"""Git-aware scanning commands: `staged`, `diff`, `files`, `hook` and `install-hook`.

Every scanning command builds its list of Documents and Skips from one source and hands it to
:func:`smscan.cli.scanning.run_scan`: one report format and one exit-code contract for all
(0 clean, 1 findings, 2 error). The diff modes score changed lines with bounded left context and
report only findings touching them (:mod:`smscan.plan.regions`).
"""

from __future__ import annotations

import dataclasses
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Optional

import typer

from smscan.cli.groups import command
from smscan.cli.options import (
    FLAG,
    BaselineOption,
    ModelOptions,
    ReportOptions,
    ScanOptions,
)
from smscan.cli.prepare import prepare_scan
from smscan.cli.scanning import ScanJob, run_scan
from smscan.cli.services import Services, current_services
from smscan.config.settings import Settings
from smscan.errors import SmscanError, SourceError
from smscan.records import Document, ScanResult, Skip

# What to do when the hook stopped a commit, printed under the report (stderr).
NEXT_STEPS = (
    "commit blocked by smscan. If a finding is fine: add `# smscan: ignore` on its line, or accept the\n"
    "current findings with `smscan baseline`. See why a line was flagged: `smscan explain FILE:LINE`.\n"
    "Last resort: `git commit --no-verify` skips every hook for one commit."
)


def _git_root(cwd: Path) -> Path:
    from smscan.sources.git import find_work_tree

    root = find_work_tree(cwd)
    if root is None:
        raise SourceError(f"{cwd} is not inside a git work tree; run this in a repository")
    return root


def _hook_settings(settings: Settings, services: Services) -> Settings:
    """A hook's settings: ``worker = "auto"`` unless the user chose (docs/BENCHMARKS.md, "Hook
    latency": the next commit's hook then costs a thin client and the worker's scan)."""
    if services.hook_starts_worker and "worker" not in settings.given:
        return dataclasses.replace(settings, worker="auto")
    return settings


def _blocking(code: int, services: Services) -> int:
    """A hook's exit code, with the next steps printed when findings stop the commit."""
    if code == 1:
        services.err_console().print(NEXT_STEPS, markup=False, soft_wrap=True)
    return code


@command
def staged_command(
    *,
    model: ModelOptions,
    scan: ScanOptions,
    report: ReportOptions,
    baseline: BaselineOption = None,
) -> int:
    """Scan what is about to be committed: the staged (index) version of each added or modified
    file, reporting only findings on added or changed lines."""
    from smscan.sources.diff import iter_staged
    from smscan.sources.git import GitRepository

    services = current_services()
    root = _git_root(Path.cwd())
    settings, selection, inputs = prepare_scan(
        root, model, scan, baseline=baseline, outputs=[report.output], services=services
    )
    with GitRepository(root) as repo:
        items = list(iter_staged(repo, selection=selection, group=root.as_posix()))
    job = ScanJob(items, _hook_settings(settings, services), root, inputs)
    return _blocking(run_scan(job, report, services), services)


@command
def diff_command(
    base: Annotated[str, typer.Argument(metavar="BASE[...HEAD]", help="Base commit, or BASE...HEAD (from their merge base, as in a pull request) or BASE..HEAD.")],
    head: Annotated[Optional[str], typer.Argument(metavar="HEAD", help="Head commit (default: HEAD).")] = None,
    each_commit: Annotated[bool, typer.Option("--each-commit", metavar=FLAG, help="Scan what each commit of the range added, so a value added and removed again inside the range is still found.")] = False,
    *,
    model: ModelOptions,
    scan: ScanOptions,
    report: ReportOptions,
    baseline: BaselineOption = None,
) -> int:
    """Scan what a commit range added (committed content only), reporting only findings on added
    or changed lines; renames are followed, deletions and binary files skipped."""
    from smscan.sources.diff import iter_each_commit, iter_range, resolve_range
    from smscan.sources.git import GitRepository

    services = current_services()
    root = _git_root(Path.cwd())
    settings, selection, inputs = prepare_scan(
        root, model, scan, baseline=baseline, outputs=[report.output], services=services
    )
    group = root.as_posix()
    annotate = None
    with GitRepository(root) as repo:
        span = resolve_range(repo, base, head)
        if each_commit:
            pairs = list(iter_each_commit(repo, span, selection=selection, group=group))
            items = [item for _, item in pairs]
            annotate = _commit_annotator(pairs)
        else:
            items = list(iter_range(repo, span, selection=selection, group=group))
    return run_scan(ScanJob(items, settings, root, inputs, annotate), report, services)


def _commit_annotator(pairs: list[tuple[str, Document | Skip]]) -> Callable[[ScanResult], None]:
    """Record in each finding's details the commit whose added lines it was found on."""

    def annotate(result: ScanResult) -> None:
        from smscan.plan.regions import touches_changed_lines

        by_path: dict[str, list[tuple[str, Document]]] = {}
        for commit, item in pairs:
            if isinstance(item, Document):
                by_path.setdefault(item.path, []).append((commit, item))
        annotated = []
        for finding in result.findings:
            value = result.values.get(finding.fingerprint)
            for commit, document in by_path.get(finding.path, []):
                if (
                    document.text[finding.char_start : finding.char_end] == value
                    and touches_changed_lines(document, finding.start.line, finding.end.line)
                ):
                    finding = dataclasses.replace(finding, details={**finding.details, "commit": commit})
                    break
            annotated.append(finding)
        result.findings = annotated

    return annotate


@command
def files_command(
    files: Annotated[list[Path], typer.Argument(metavar="FILES...", help="Files to scan, whole.")],
    *,
    model: ModelOptions,
    scan: ScanOptions,
    report: ReportOptions,
    baseline: BaselineOption = None,
) -> int:
    """Scan the given files, whole, from disk."""
    from smscan.sources.files import iter_files, relative_names
    from smscan.sources.worktree import find_root

    services = current_services()
    root, _ = find_root(Path.cwd())
    settings, selection, inputs = prepare_scan(
        root, model, scan, baseline=baseline, outputs=[report.output], services=services
    )
    items = list(iter_files(root, relative_names(root, files), selection=selection, group=root.as_posix()))
    return run_scan(ScanJob(items, settings, root, inputs), report, services)


@command
def hook_command(
    files: Annotated[Optional[list[Path]], typer.Argument(metavar="FILES...", help="Files pre-commit passes.")] = None,
    *,
    model: ModelOptions,
    scan: ScanOptions,
    report: ReportOptions,
    baseline: BaselineOption = None,
) -> int:
    """The pre-commit entry point. Per file: with staged changes, its staged version, reporting
    only changed lines; otherwise (--all-files, --files) the whole file. Honours
    PRE_COMMIT_FROM_REF/PRE_COMMIT_TO_REF when pre-commit runs on a range."""
    from smscan.sources.files import iter_hook, relative_names
    from smscan.sources.git import GitRepository

    services = current_services()
    root = _git_root(Path.cwd())
    settings, selection, inputs = prepare_scan(
        root, model, scan, baseline=baseline, outputs=[report.output], services=services
    )
    names = relative_names(root, files or [])
    with GitRepository(root) as repo:
        items = list(iter_hook(repo, names, selection=selection, group=root.as_posix()))
    job = ScanJob(items, _hook_settings(settings, services), root, inputs)
    return _blocking(run_scan(job, report, services), services)


HOOK_MARKER = "# smscan-hook: installed by `smscan install-hook`"
HOOK_SCRIPT = f"""#!/bin/sh
{HOOK_MARKER}
# A plain git pre-commit hook for projects without the pre-commit framework. It scans what is about
# to be committed (`smscan staged`: the staged version of each changed file, findings on added or
# changed lines only). Findings (exit 1) or an error (exit 2) stop the commit; review them, then fix
# the code, add an allow comment (`# smscan: ignore`) or a baseline. `git commit --no-verify` skips
# the hook for one commit.
#   Install: smscan install-hook   (or copy this file to .git/hooks/pre-commit and chmod +x it)
if ! command -v smscan >/dev/null 2>&1; then
    echo "smscan pre-commit hook: smscan is not on PATH; install it or remove this hook" >&2
    exit 2
fi
exec smscan staged
"""


def install_hook_command(
    path: Annotated[Path, typer.Argument(metavar="PATH", help="A folder in the repository.")] = Path("."),
    force: Annotated[bool, typer.Option("--force", metavar=FLAG, help="Replace a pre-commit hook smscan did not install.")] = False,
) -> int:
    """Install the plain git pre-commit hook (hooks/pre-commit) into the repository."""
    from smscan.sources.git import GitRepository

    root = _git_root(path.resolve())
    with GitRepository(root) as repo:
        hooks = repo.hooks_dir()
    if hooks.exists() and not hooks.is_dir():  # core.hooksPath=/dev/null switches hooks off
        raise SmscanError(
            f"{hooks}: git runs no hooks here (core.hooksPath names no folder); set core.hooksPath "
            "to a folder or unset it, then install again"
        )
    target = hooks / "pre-commit"
    if target.exists() or target.is_symlink():
        try:
            current = target.read_text(encoding="utf-8", errors="replace")
        except OSError:
            current = ""
        if HOOK_MARKER not in current and not force:
            raise SmscanError(
                f"{target}: a pre-commit hook smscan did not install is there; pass --force to "
                "replace it, or add `smscan staged` to it yourself"
            )
    try:
        hooks.mkdir(parents=True, exist_ok=True)
        if target.is_symlink():
            target.unlink()
        target.write_text(HOOK_SCRIPT, encoding="utf-8")
        target.chmod(target.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    except OSError as error:
        raise SmscanError(f"{target}: cannot write the hook: {error.strerror}") from error
    current_services().err_console().print(f"installed {target}", markup=False)
    return 0
