"""What every git call of smscan carries so that a scanned repository cannot make git run a command.

A repository's own config (``.git/config``, ``config.worktree``, files they include) and its
attributes (``.gitattributes``, ``.git/info/attributes``) can name commands that git runs while
reading: ``core.fsmonitor`` on every index read, hooks, clean/smudge/process filters, textconv and
external diff drivers, pagers, ssh and credential helpers (a partial clone fetches missing objects
on a read). Configuration given on the command line outranks every config file, so each call
passes :func:`command_options`, and the variables of :func:`pinned_environment` outrank what the
calling process inherited. Nothing here trusts the repository to be well behaved.

Filter and diff drivers have names the repository chooses, so they cannot be listed in advance:
:func:`driver_overrides` blanks every driver command found in the effective config (an empty
command is never run; git reports it as failed, which smscan's read-only calls never reach
because they pass ``--no-ext-diff --no-textconv`` and apply no filter).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from smscan.errors import SourceError

SAFE_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),  # a command run on every index read
    ("core.hooksPath", os.devnull),  # no hook (post-index-change, reference-transaction, ...)
    ("core.pager", "cat"),
    ("core.sshCommand", "false"),  # ssh and credentials: only a transport would use them ...
    ("core.askPass", "false"),
    ("credential.helper", ""),  # an empty value clears the list of helpers
    ("protocol.allow", "never"),  # ... and no transport is allowed (GIT_ALLOW_PROTOCOL below also
    # beats a repository's protocol.<name>.allow, which outranks this), not even a lazy fetch
    ("diff.external", ""),
    ("submodule.recurse", "false"),
    ("log.showSignature", "false"),  # would run gpg.program
)
"""Single-valued settings passed as ``-c key=value`` on every call (command line beats config files)."""

HOOKS_PATH_KEY = "core.hooksPath"

PINNED_ENVIRONMENT: dict[str, str] = {
    # Commands and config a parent process could pass down (a git hook inherits git's -c
    # settings through GIT_CONFIG_PARAMETERS): cleared so only smscan's own settings apply.
    "GIT_CONFIG_PARAMETERS": "",
    "GIT_CONFIG_COUNT": "0",
    "GIT_EXTERNAL_DIFF": "",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_SSH": "false",
    "GIT_SSH_COMMAND": "false",
    "GIT_ASKPASS": "false",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ALLOW_PROTOCOL": "",  # an empty allow list: no transport, whatever protocol.<name>.allow says
    "GIT_PROTOCOL_FROM_USER": "0",
    "GIT_NO_LAZY_FETCH": "1",  # git >= 2.44: a partial clone never fetches while smscan reads
    "GIT_OPTIONAL_LOCKS": "0",  # reads never rewrite the index (so never fire index hooks)
    # Objects come from the repository smscan opened, not from a folder the environment names.
    "GIT_ALTERNATE_OBJECT_DIRECTORIES": "",
    "GIT_NAMESPACE": "",
}
"""Environment variables set on every call; GIT_DIR and friends are pinned per repository."""

_DRIVER_KEY = re.compile(r"^(filter|diff)\.(.+)\.(clean|smudge|process|textconv|command|required)$", re.DOTALL)
DRIVER_CONFIG_PATTERN = r"^(filter|diff)\..*\.(clean|smudge|process|textconv|command|required)$"
"""The ``git config --get-regexp`` pattern :func:`driver_overrides` reads the output of."""


def command_options(*, overrides: Iterable[tuple[str, str]] = (), keep_hooks_path: bool = False) -> list[str]:
    """Global git options (before the subcommand) that neutralise repository-controlled commands.

    Args:
        overrides: further ``(key, value)`` settings, such as :func:`driver_overrides`.
        keep_hooks_path: leave ``core.hooksPath`` as configured, for the one call that asks
            where hooks live (``rev-parse --git-path hooks``, which runs none).

    Returns:
        ``["--no-pager", "-c", "core.fsmonitor=false", ...]``.

    Example:
        >>> command_options()[:3]
        ['--no-pager', '-c', 'core.fsmonitor=false']
    """
    options = ["--no-pager"]
    for setting in config_settings(overrides=overrides, keep_hooks_path=keep_hooks_path):
        options += ["-c", setting]
    return options


def config_settings(*, overrides: Iterable[tuple[str, str]] = (), keep_hooks_path: bool = False) -> list[str]:
    """The ``key=value`` strings of :func:`command_options`, each to follow a ``-c``."""
    return [
        f"{key}={value}"
        for key, value in (*SAFE_CONFIG, *overrides)
        if not (keep_hooks_path and key == HOOKS_PATH_KEY)
    ]


def pinned_environment(*, git_dir: Path, common_dir: Path, work_tree: Path | None) -> dict[str, str]:
    """Environment variables for every git call on one repository.

    The location variables name the repository smscan opened, so one inherited from elsewhere
    (``GIT_DIR`` of another repository's hook, ``GIT_OBJECT_DIRECTORY``) cannot redirect reads.
    ``GIT_INDEX_FILE`` is left alone: inside ``git commit -a`` it names the index being committed.

    Args:
        git_dir: the repository's git directory (a linked work tree's own one).
        common_dir: the directory shared by all its work trees.
        work_tree: the work tree's top level; None for a bare repository.

    Returns:
        Names and values to set over the inherited environment.
    """
    environment = dict(PINNED_ENVIRONMENT)
    environment["GIT_DIR"] = os.fspath(git_dir)
    environment["GIT_COMMON_DIR"] = os.fspath(common_dir)
    environment["GIT_OBJECT_DIRECTORY"] = os.fspath(common_dir / "objects")
    if work_tree is not None:
        environment["GIT_WORK_TREE"] = os.fspath(work_tree)
    return environment


def driver_overrides(config_listing: bytes) -> list[tuple[str, str]]:
    """Settings that blank every filter and diff driver command the repository configures.

    Args:
        config_listing: the output of ``git config -z --get-regexp DRIVER_CONFIG_PATTERN``
            (records ``key\\nvalue\\0``).

    Returns:
        ``(key, "")`` for each command key and ``("filter.NAME.required", "false")`` per filter,
        so a required filter that no longer runs does not fail a read either.

    Raises:
        SourceError: a driver name git's ``-c`` cannot spell (it holds ``=``), so it could not
            be neutralised.

    Example:
        >>> driver_overrides(b"filter.lfs.clean\\ngit-lfs clean\\0")
        [('filter.lfs.clean', ''), ('filter.lfs.required', 'false')]
    """
    overrides: dict[str, str] = {}
    for record in config_listing.split(b"\0"):
        key = os.fsdecode(record.partition(b"\n")[0])
        match = _DRIVER_KEY.match(key)
        if match is None:
            continue
        section, name, variable = match.groups()
        if "=" in name or "\n" in name:
            raise SourceError(
                f"the repository configures a {section} driver named {name!r}, which smscan cannot "
                "switch off safely; rename it or remove it from the repository's config"
            )
        if section == "filter":
            overrides[f"filter.{name}.required"] = "false"
        if variable != "required":
            overrides[key] = ""
    return sorted(overrides.items())


def config_listing_command(options: Sequence[str]) -> list[str]:
    """The git command whose output :func:`driver_overrides` reads (it runs no driver)."""
    return ["git", *options, "config", "-z", "--get-regexp", DRIVER_CONFIG_PATTERN]
