"""Reading pinned files of a public GitHub repository from a local bare mirror.

A mirror folder holds one bare git directory per repository, ``<owner>+<name>/repo`` (the layout the
team's fetch tool writes); ``--mirrors DIR`` names it. Every read names the pinned commit, so a
newer mirror gives the same bytes.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path


class MirrorError(Exception):
    """A repository or a pinned commit is missing from the mirror folder."""


@dataclass(frozen=True, slots=True)
class Pin:
    repo: str  # owner/name on GitHub
    commit: str  # 40 hex digits

    def describe(self) -> str:
        return f"github.com/{self.repo}@{self.commit[:12]}"


class Mirror:
    def __init__(self, root: Path, pin: Pin) -> None:
        self.pin = pin
        self.git_dir = root / pin.repo.replace("/", "+") / "repo"
        if not self.git_dir.is_dir():
            raise MirrorError(f"no mirror of {pin.repo} under {root} (expected {self.git_dir}); fetch github:{pin.repo}")
        ok = subprocess.run(["git", f"--git-dir={self.git_dir}", "cat-file", "-e", f"{pin.commit}^{{commit}}"],
                            capture_output=True)
        if ok.returncode != 0:
            raise MirrorError(f"the mirror of {pin.repo} lacks the pinned commit {pin.commit}; fetch it again")

    def list_files(self, folder: str) -> list[str]:
        out = subprocess.run(["git", f"--git-dir={self.git_dir}", "ls-tree", "-r", "--name-only", self.pin.commit, "--", folder],
                             capture_output=True, text=True, check=True).stdout
        return sorted(x for x in out.splitlines() if x)

    def read(self, path: str) -> str:
        return subprocess.run(["git", f"--git-dir={self.git_dir}", "show", f"{self.pin.commit}:{path}"],
                              capture_output=True, check=True).stdout.decode("utf-8", errors="replace")
