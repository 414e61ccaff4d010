"""Every read of git objects the sources make: the work tree's top level, commits, trees, the index,
blobs and diffs, through :class:`GitRepository`.

How git is run (gitpython imported on first use, hardened options and environment, one
``SourceError`` per failure) is :mod:`smscan.sources.git_commands`; listing a work tree's files is
:mod:`smscan.sources.git_work_tree`. Paths git prints are decoded with :func:`os.fsdecode`, so a
file name that is not UTF-8 still names the same file on disk.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from smscan.errors import SourceError
from smscan.sources.git_commands import GitCommands, import_git, split_z

GITLINK_MODE = "160000"
"""The index mode of a submodule entry (a commit id, not a file)."""

SYMLINK_MODE = "120000"
"""The mode of a symbolic link (the blob holds the link target)."""

# An ancestor spelling: a start revision followed by ~N and ^N steps (HEAD~5, main^2~1).
_ANCESTRY = re.compile(r"(?P<start>.+?)(?P<steps>(?:[~^][0-9]*)+)")


def find_work_tree(path: Path) -> Path | None:
    """The top level of the git work tree that contains path, or None outside any work tree.

    Args:
        path: an existing directory.

    Returns:
        The work tree's top level, resolved; None when path is in no repository or the
        repository has no work tree (bare).

    Raises:
        SourceError: git is not installed.

    Example:
        >>> find_work_tree(Path("/")) is None  # doctest: +SKIP
        True
    """
    git = import_git()
    try:
        with git.Repo(path, search_parent_directories=True) as repo:
            top = repo.working_tree_dir
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    return None if top is None else Path(top).resolve()


@dataclass(frozen=True, slots=True)
class TreeEntry:
    """A path in a tree or in the index: its mode (``100644``, ``120000``, ``160000``...) and object."""

    path: str
    mode: str
    object_id: str


@dataclass(frozen=True, slots=True)
class CommitInfo:
    """A commit of a range and its parents (none for a root commit)."""

    commit_id: str
    parents: tuple[str, ...]


class GitRepository(GitCommands):
    """An open repository for reading commits, trees, the index, blobs and diffs.

    One object keeps gitpython's ``git cat-file --batch`` processes alive across many blob reads.
    Every method raises :class:`SourceError` (with git's message and a fix) instead of a gitpython
    error. Use it as a context manager so the helper processes are ended.

    Args:
        root: the work tree's top level (or a bare repository's folder).

    Raises:
        SourceError: git is not installed or root is not a repository.

    Example:
        >>> with GitRepository(Path(".")) as repo:  # doctest: +SKIP
        ...     repo.resolve_commit("HEAD")
        '0b22da5...'
    """

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self._empty_tree: str | None = None

    # -- revisions -----------------------------------------------------------------------------

    def is_shallow(self) -> bool:
        """Whether the repository is a shallow clone (history cut below some commits)."""
        out = self._run("rev-parse", "--is-shallow-repository", what=f"cannot read {self.root}")
        return out.strip() == b"true"

    def has_commits(self) -> bool:
        """Whether HEAD points at a commit (False in a repository with no commits yet)."""
        return self._succeeds("rev-parse", "--verify", "--quiet", "HEAD^{commit}")

    def staged_base(self) -> str:
        """What the index is compared with: the commit HEAD names, or the empty tree in a
        repository with no commits yet (one ``rev-parse``, not a check and then a lookup)."""
        return self._commit_id("HEAD") or self.empty_tree()

    def resolve_commit(self, rev: str) -> str:
        """The full id of the commit that ``rev`` names.

        Raises:
            SourceError: rev names no commit here; the message says what to fetch when the
                repository is shallow or has no commits yet.
        """
        if rev.startswith("-"):
            raise SourceError(f"revision {rev!r}: a revision cannot start with '-'")
        commit = self._commit_id(rev)
        if commit is None:
            raise SourceError(self._missing_revision_message(rev))
        return commit

    def _commit_id(self, rev: str) -> str | None:
        """The full id of the commit ``rev`` names, or None when it names none."""
        try:
            out = self._repo.git.execute(
                self._command("rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"),
                with_extended_output=False,
            )
        except self._git.GitCommandError:
            return None
        return str(out).strip()

    def _missing_revision_message(self, rev: str) -> str:
        message = f"revision {rev!r} is not a commit in {self.root}"
        if not self.has_commits():
            return f"{message}: the repository has no commits yet"
        if self.is_shallow():
            return (
                f"{message}: this is a shallow clone and the commit is not in it; fetch it, e.g. "
                f"`git fetch --no-tags --depth=1 origin {rev.removeprefix('origin/')}` for a branch "
                "or `git fetch --unshallow`, or check out with full history (actions/checkout: "
                "fetch-depth: 0)"
            )
        too_far = self._beyond_history(rev)
        if too_far:
            return f"{message}: {too_far}"
        remotes = self.remotes()
        if not remotes:
            return f"{message}: check the name (the repository has no remote to fetch it from)"
        remote = "origin" if "origin" in remotes else remotes[0]
        return f"{message}: check the name, or fetch it (`git fetch {remote} {rev.removeprefix(remote + '/')}`)"

    def _beyond_history(self, rev: str) -> str:
        """Why an ancestor spelling such as ``HEAD~5`` names nothing: its start's history is shorter."""
        match = _ANCESTRY.fullmatch(rev)
        if match is None or not self._succeeds("rev-parse", "--verify", "--quiet", "--end-of-options", f"{match['start']}^{{commit}}"):
            return ""
        count = self._run("rev-list", "--count", "--end-of-options", match["start"], "--", what=f"cannot count the commits of {match['start']}")
        return f"the history of {match['start']} has {int(count)} commit(s), so {rev} goes back too far"

    def remotes(self) -> list[str]:
        """The names of the repository's remotes (none in a repository never cloned from anywhere)."""
        out = self._run("remote", what=f"cannot list the remotes of {self.root}")
        return out.decode("utf-8", errors="replace").split()

    def merge_base(self, base: str, head: str, *, spelled: str) -> str:
        """The best common ancestor of two commits (as ``git diff base...head`` uses).

        Raises:
            SourceError: there is none; in a shallow clone the message says to fetch history.
        """
        try:
            out = self._repo.git.execute(
                self._command("merge-base", base, head), with_extended_output=False
            )
        except self._git.GitCommandError as exc:
            if self.is_shallow():
                raise SourceError(
                    f"{spelled}: no common ancestor in this shallow clone; fetch more history "
                    "(`git fetch --deepen=100` or `git fetch --unshallow`; actions/checkout: "
                    "fetch-depth: 0)"
                ) from exc
            raise SourceError(f"{spelled}: the two commits have no common ancestor") from exc
        return str(out).strip()

    def commits_between(self, base: str, head: str) -> list[CommitInfo]:
        """Commits reachable from head but not from base, oldest first, with their parents."""
        out = self._run(
            "rev-list", "--reverse", "--topo-order", "--parents", f"{base}..{head}", "--",
            what=f"cannot list commits {base[:12]}..{head[:12]}",
        )
        commits = []
        for line in out.decode("ascii").splitlines():
            ids = line.split()
            if ids:
                commits.append(CommitInfo(ids[0], tuple(ids[1:])))
        return commits

    def empty_tree(self) -> str:
        """The id of the empty tree in this repository's hash (the "before" of a root commit)."""
        if self._empty_tree is None:
            out = self._run(
                "hash-object", "-t", "tree", "--no-filters", "--stdin", what="cannot hash the empty tree",
                istream=subprocess.DEVNULL,
            )
            self._empty_tree = out.decode("ascii").strip()
        return self._empty_tree

    def hooks_dir(self) -> Path:
        """Where git runs hooks from (honours ``core.hooksPath`` and linked work trees)."""
        out = self._run(
            "rev-parse", "--git-path", "hooks", what=f"cannot find the hooks of {self.root}", hooks_path=True
        )
        path = Path(os.fsdecode(out.strip()))
        return path if path.is_absolute() else self.root / path

    # -- listings ------------------------------------------------------------------------------

    def list_tree(self, commit: str) -> list[TreeEntry]:
        """Every file of a commit's tree (recursively, submodules as gitlinks), sorted by path."""
        out = self._run("ls-tree", "-r", "-z", "--full-tree", commit, what=f"cannot list {commit[:12]}")
        entries = []
        for record in split_z(out):
            meta, _, name = record.partition("\t")
            mode, _type, object_id = meta.split(" ")
            entries.append(TreeEntry(name, mode, object_id))
        return sorted(entries, key=lambda entry: entry.path)

    def list_index(self) -> list[TreeEntry]:
        """Every path of the index at stage 0 (conflicted paths are left out)."""
        out = self._run("ls-files", "-z", "--stage", what=f"cannot read the index of {self.root}")
        entries = []
        for record in split_z(out):
            meta, _, name = record.partition("\t")
            mode, object_id, stage = meta.split(" ")
            if stage == "0":
                entries.append(TreeEntry(name, mode, object_id))
        return sorted(entries, key=lambda entry: entry.path)

    # -- blobs ---------------------------------------------------------------------------------

    def blob_size(self, object_id: str) -> int:
        """The size in bytes of a blob, without reading it."""
        try:
            return int(self._repo.odb.info(bytes.fromhex(object_id)).size)
        except (ValueError, self._git.BadObject, self._git.BadName) as exc:
            raise SourceError(f"object {object_id[:12]} is missing from {self.root}") from exc

    def read_blob(self, object_id: str) -> bytes:
        """The bytes of a blob."""
        try:
            return bytes(self._repo.odb.stream(bytes.fromhex(object_id)).read())
        except (ValueError, self._git.BadObject, self._git.BadName) as exc:
            raise SourceError(f"object {object_id[:12]} is missing from {self.root}") from exc

    # -- diffs ---------------------------------------------------------------------------------

    def diff_raw(self, old: str, new: str | None) -> bytes:
        """``git diff --raw -z`` (renames followed) from tree-ish ``old`` to ``new``, or to the
        index when ``new`` is None."""
        return self._run(
            *self._diff_args(old, new, "-z", "--no-abbrev", "--no-ext-diff", "--no-textconv"),
            what=self._diff_what(old, new),
        )

    def diff_patch(self, old: str, new: str | None) -> bytes:
        """The zero-context patch of the same diff, with full object ids on ``index`` lines."""
        return self._run(
            *self._diff_args(
                old, new, "-p", "-U0", "--full-index", "--no-color", "--no-ext-diff", "--no-textconv"
            ),
            what=self._diff_what(old, new),
        )

    @staticmethod
    def _diff_args(old: str, new: str | None, *options: str) -> list[str]:
        if new is None:
            return ["diff-index", "--cached", "-r", "-M", *options, old, "--"]
        return ["diff-tree", "-r", "-M", *options, old, new, "--"]

    @staticmethod
    def _diff_what(old: str, new: str | None) -> str:
        return f"cannot diff {old[:12]} with {'the index' if new is None else new[:12]}"
