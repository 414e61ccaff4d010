"""How smscan runs git: gitpython imported on first use, every repository opened hardened, every
git failure turned into one ``SourceError`` with git's own first line.

gitpython is imported inside the functions: importing it runs ``git --version`` and fails when
git is not installed, which must not break scans that never touch git (datasets, ``--help``).
Paths git prints are decoded with :func:`os.fsdecode`, so a file name that is not UTF-8 still
names the same file on disk. Every repository is opened through :func:`open_repository`, which
gives each later call (gitpython's own helper processes included) the options and environment of
:mod:`smscan.sources.git_hardening`: nothing the scanned repository configures is run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from smscan.errors import SourceError
from smscan.sources.git_hardening import (
    command_options,
    config_listing_command,
    config_settings,
    driver_overrides,
    pinned_environment,
)

_Commands = TypeVar("_Commands", bound="GitCommands")
_NO_GIT = "cannot use git: the git executable was not found or does not run; install git"


def import_git() -> Any:
    """The ``git`` module of gitpython.

    Raises:
        SourceError: git is not installed (gitpython's import runs it).
    """
    try:
        import git
    except ImportError as exc:
        raise SourceError(_NO_GIT) from exc
    return git


@dataclass(frozen=True, slots=True)
class OpenRepository:
    """A gitpython ``Repo`` and the options that go before the subcommand of each raw call."""

    repo: Any
    options: list[str]
    hooks_options: list[str]  # the same, leaving core.hooksPath as configured

    def __enter__(self) -> Any:
        return self.repo

    def __exit__(self, *exc: object) -> None:
        self.repo.close()


def open_repository(git: Any, root: Path) -> OpenRepository:
    """A gitpython ``Repo`` whose every git call carries the hardening options and environment.

    Raises:
        git.InvalidGitRepositoryError, git.NoSuchPathError: root is not a repository.
        SourceError: its config cannot be read or names a driver that cannot be switched off.
    """
    repo = git.Repo(root)
    try:
        work_tree = None if repo.bare else Path(repo.working_tree_dir)
        repo.git.update_environment(
            **pinned_environment(git_dir=Path(repo.git_dir), common_dir=Path(repo.common_dir), work_tree=work_tree)
        )
        try:
            listing = repo.git.execute(
                config_listing_command(command_options()), stdout_as_string=False, with_extended_output=False
            )
        except git.GitCommandError as exc:
            if exc.status != 1:  # 1: no driver configured
                raise SourceError(
                    f"cannot read the config of {root}: git config failed ({first_line(exc.stderr)})"
                ) from exc
            listing = b""
        overrides = driver_overrides(listing)
        options = command_options(overrides=overrides)
        # gitpython puts these before the subcommand of every call it builds itself,
        # including its long-lived `cat-file --batch` readers.
        repo.git.set_persistent_git_options(no_pager=True, c=config_settings(overrides=overrides))
    except BaseException:
        repo.close()
        raise
    return OpenRepository(repo, options, command_options(overrides=overrides, keep_hooks_path=True))


def split_z(output: bytes) -> list[str]:
    """The NUL-separated items of git's ``-z`` output, as file-system paths."""
    return [os.fsdecode(item) for item in output.split(b"\0") if item]


def first_line(stderr: object) -> str:
    """Git's first message line from a gitpython error's ``stderr``."""
    # gitpython wraps stderr as "\n  stderr: '<text>'"; keep git's first message line.
    text = str(stderr).strip()
    text = text.removeprefix("stderr:").strip().strip("'")
    return text.splitlines()[0].strip() if text else "no message"


class GitCommands:
    """An open repository's raw git calls: the hardening options before every subcommand, git's
    failures as ``SourceError``. Use it as a context manager so gitpython's helper processes end.

    Args:
        root: the work tree's top level (or a bare repository's folder).

    Raises:
        SourceError: git is not installed or root is not a repository.
    """

    def __init__(self, root: Path) -> None:
        git = import_git()
        self._git = git
        self.root = root
        try:
            self._opened = open_repository(git, root)
        except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
            raise SourceError(f"{root} is not a git repository; run this inside one") from exc
        self._repo = self._opened.repo

    def __enter__(self: _Commands) -> _Commands:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """End the helper processes."""
        self._repo.close()

    def use_index_file(self, path: str) -> None:
        """Read the index at ``path`` (a commit's ``GIT_INDEX_FILE``), not this process's, in every
        later call: a warm worker scans for a hook whose environment is not its own."""
        self._repo.git.update_environment(GIT_INDEX_FILE=path)

    def _command(self, *args: str, hooks_path: bool = False) -> list[str]:
        options = self._opened.hooks_options if hooks_path else self._opened.options
        return ["git", *options, *args]

    def _run(
        self, *args: str, what: str, fix: str = "", istream: int | None = None, hooks_path: bool = False
    ) -> bytes:
        try:
            output = self._repo.git.execute(
                self._command(*args, hooks_path=hooks_path), istream, stdout_as_string=False, with_extended_output=False
            )
        except self._git.GitCommandError as exc:
            hint = f"; {fix}" if fix else ""
            raise SourceError(f"{what}: git {args[0]} failed ({first_line(exc.stderr)}){hint}") from exc
        assert isinstance(output, bytes)
        return output

    def _succeeds(self, *args: str) -> bool:
        try:
            self._repo.git.execute(self._command(*args), with_extended_output=False)
        except self._git.GitCommandError:
            return False
        return True
