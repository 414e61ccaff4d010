"""The default file selection shared by every mode: ignores, and skips beyond the file's bytes.

On top of :mod:`smscan.sources.select` (include/exclude globs, and content skips: ``binary``,
``too-large``, ``undecodable``, ``lfs-pointer``, ``empty``, ...), every mode applies:

- **Ignores**: the ``include``/``exclude`` globs of the config, and the patterns of a
  ``.smscanignore`` file at the repository root (one gitignore pattern a line, ``#`` comments,
  ``!`` re-includes), appended after ``exclude``. An ignored path is dropped without a Skip, as
  an excluded one is: the user asked for it not to be scanned.
- ``smscan-output`` (a Skip): smscan's own files, whose hashes and values would otherwise be
  flagged: the baseline and thresholds files named in the config, ``.smscan-baseline.json``,
  the report this run writes (``-o``), and any JSON file whose first 4 KiB say it was written by
  smscan (a JSON or SARIF report, a baseline).
- ``vendored`` (a Skip): a path with a folder named ``node_modules``, ``bower_components``,
  ``jspm_packages``, ``vendor``, ``vendored``, ``third_party``, ``third-party``, ``thirdparty``
  or ``site-packages``: code copied from elsewhere, to be scanned where it is written.
  ``skip_vendored = false`` in the config scans it too (a repository that commits a copy holds
  whatever the copy leaks).
- ``minified`` (a Skip): a generated bundle: a name ending in ``.min.js``, ``.min.mjs``,
  ``.min.css``, ``-min.js`` or ``.bundle.js``; a source map of a script, a type declaration or
  a style sheet (``.js.map``, ``.mjs.map``, ``.d.ts.map``, ``.tsx.map``, ``.css.map``,
  ``.scss.map``, ...); or a ``.js``,
  ``.mjs``, ``.cjs`` or ``.css`` file of at least 1,000 characters whose lines average more than
  200 characters (hand-written code rarely does; a minifier's output always does).
- ``lockfile`` (a Skip): a package manager's lock file (``package-lock.json``, ``yarn.lock``,
  ``poetry.lock``, ``Cargo.lock``, ``go.sum``, ...; see ``LOCK_FILE_NAMES``): generated, long, and
  full of integrity hashes that look random to any model, so scoring them costs minutes and
  reports hashes. Lock files can still leak a token (a private registry URL with credentials, an
  expanded environment variable): ``skip_lock_files = false`` in the config scans them.
- ``deleted`` (a Skip, diff modes only): a file the change deletes; nothing was added.

The skip reasons of this module are ids users may store, like those of ``select.py``.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from smscan.config.settings import Settings
from smscan.records import Document, Skip
from smscan.fileio.regular import read_config_file
from smscan.sources.select import SKIP_REASONS, PathFilter, classify_bytes

SMSCAN_OUTPUT = "smscan-output"
VENDORED = "vendored"
MINIFIED = "minified"
LOCKFILE = "lockfile"
DELETED = "deleted"

ALL_SKIP_REASONS: frozenset[str] = SKIP_REASONS | {SMSCAN_OUTPUT, VENDORED, MINIFIED, LOCKFILE, DELETED}
"""Every reason any source may put in a Skip."""

IGNORE_FILE = ".smscanignore"
DEFAULT_BASELINE = ".smscan-baseline.json"

VENDORED_FOLDERS = frozenset(
    {
        "node_modules",
        "bower_components",
        "jspm_packages",
        "vendor",
        "vendored",
        "third_party",
        "third-party",
        "thirdparty",
        "site-packages",
    }
)
LOCK_FILE_NAMES = frozenset(
    {
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "bun.lock",
        "deno.lock",
        "poetry.lock",
        "pipfile.lock",
        "pdm.lock",
        "uv.lock",
        "cargo.lock",
        "go.sum",
        "gemfile.lock",
        "composer.lock",
        "podfile.lock",
        "pubspec.lock",
        "mix.lock",
        "flake.lock",
        "packages.lock.json",
        "gradle.lockfile",
        "package.resolved",
    }
)
MINIFIED_SUFFIXES = (".min.js", ".min.mjs", ".min.css", "-min.js", ".bundle.js")
# A source map names the file it maps (`index.d.ts.map`, `client.mjs.map`): its `mappings` are
# base64 run-length codes that read as random to any model, and TypeScript writes one beside
# every compiled file and declaration.
_SOURCE_MAP = re.compile(r"\.(?:[cm]?jsx?|(?:d\.)?[cm]?tsx?|css|scss|sass|less)\.map$")
_BUNDLE_SUFFIXES = (".js", ".mjs", ".cjs", ".css")
_MINIFIED_MIN_CHARS = 1000
_MINIFIED_MEAN_LINE = 200
_OUTPUT_SNIFF_CHARS = 4096
_SMSCAN_JSON = re.compile(
    r'"(?:tool|driver)"\s*:\s*(?:\{\s*"name"\s*:\s*)?"smscan"|"smscan_baseline"\s*:'
)


def is_vendored_path(path: str) -> bool:
    """Whether a root-relative POSIX path lies in a vendored folder (see module docstring)."""
    return any(part in VENDORED_FOLDERS for part in path.split("/")[:-1])


def is_lock_file(path: str) -> bool:
    """Whether a path names a package manager's lock file (by file name, any case)."""
    return path.rsplit("/", 1)[-1].lower() in LOCK_FILE_NAMES


def is_minified(path: str, text: str | None = None) -> bool:
    """Whether a file is a generated bundle, by name, or (given its text) by line length."""
    name = path.rsplit("/", 1)[-1].lower()
    if name.endswith(MINIFIED_SUFFIXES) or _SOURCE_MAP.search(name):
        return True
    if text is None or not name.endswith(_BUNDLE_SUFFIXES) or len(text) < _MINIFIED_MIN_CHARS:
        return False
    lines = text.count("\n") + 1
    return len(text) / lines > _MINIFIED_MEAN_LINE


def is_smscan_output(text: str) -> bool:
    """Whether a text is a JSON file smscan wrote (a report or a baseline)."""
    head = text[:_OUTPUT_SNIFF_CHARS].lstrip("\ufeff \t\r\n")
    return head.startswith("{") and _SMSCAN_JSON.search(head) is not None


def read_ignore_file(root: Path) -> tuple[str, ...]:
    """The patterns of ``root/.smscanignore`` (none when there is no such file)."""
    try:
        data = read_config_file(root / IGNORE_FILE)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return ()
    except OSError:
        return ()
    return tuple(data.decode("utf-8", errors="replace").splitlines())


@dataclass(frozen=True, slots=True)
class Selection:
    """Which files of a root are scanned, and the Skip for those that are not.

    Args:
        path_filter: include/exclude globs, ``.smscanignore`` patterns already appended.
        max_file_bytes: the largest file scanned.
        own_outputs: root-relative POSIX paths of smscan's own files.
        skip_lock_files: skip package lock files (the config's ``skip_lock_files``).
        skip_vendored: skip vendored folders (the config's ``skip_vendored``).

    Example:
        >>> s = Selection(PathFilter(), max_file_bytes=100)
        >>> s.classify("vendor/lib.py", b"x = 1\\n", group="g")
        Skip(path='vendor/lib.py', reason='vendored')
    """

    path_filter: PathFilter = field(default_factory=PathFilter)
    max_file_bytes: int = 1_000_000
    own_outputs: frozenset[str] = frozenset({DEFAULT_BASELINE})
    skip_lock_files: bool = True
    skip_vendored: bool = True

    @classmethod
    def for_root(
        cls, root: Path, settings: Settings, *, outputs: Iterable[Path | None] = ()
    ) -> Selection:
        """The selection for a scan of ``root`` with ``settings``.

        Args:
            root: the scan root (git top level or folder); ``.smscanignore`` is read there.
            settings: include/exclude, max_file_bytes, and the baseline/thresholds files.
            outputs: files this run writes (a report), as given on the command line.

        Returns:
            The Selection.
        """
        own = {DEFAULT_BASELINE}
        for name in (settings.baseline, settings.thresholds):
            if name:
                own.add(posixpath.normpath(Path(name).as_posix()))
        resolved_root = root.resolve()
        for output in outputs:
            if output is None:
                continue
            full = output.resolve()
            if full.is_relative_to(resolved_root):
                own.add(full.relative_to(resolved_root).as_posix())
        path_filter = PathFilter(
            include=settings.include, exclude=(*settings.exclude, *read_ignore_file(root))
        )
        return cls(
            path_filter, settings.max_file_bytes, frozenset(own), settings.skip_lock_files, settings.skip_vendored
        )

    def is_selected(self, path: str) -> bool:
        """Whether the path is scanned at all (not excluded, not in ``.smscanignore``)."""
        return self.path_filter.is_selected(path)

    def skip_by_path(self, path: str) -> Skip | None:
        """A Skip decided by the path alone (own output, vendored, minified by name, lock file), else None."""
        if path in self.own_outputs:
            return Skip(path, SMSCAN_OUTPUT)
        if self.skip_vendored and is_vendored_path(path):
            return Skip(path, VENDORED)
        if is_minified(path):
            return Skip(path, MINIFIED)
        if self.skip_lock_files and is_lock_file(path):
            return Skip(path, LOCKFILE)
        return None

    def classify(
        self,
        path: str,
        data: bytes,
        *,
        group: str,
        blob_id: str | None = None,
        changed_lines: tuple[tuple[int, int], ...] | None = None,
    ) -> Document | Skip:
        """A Document for a selected file's bytes, or the Skip that applies (path rules first)."""
        skip = self.skip_by_path(path)
        if skip is not None:
            return skip
        item = classify_bytes(path, data, max_file_bytes=self.max_file_bytes, group=group, blob_id=blob_id)
        if isinstance(item, Skip):
            return item
        item = self.refine_document(item)
        if isinstance(item, Document) and changed_lines is not None:
            item = dataclasses.replace(item, changed_lines=changed_lines)
        return item

    def refine(self, item: Document | Skip) -> Document | Skip | None:
        """Apply the ignores and default skips to an item another source made (the work tree)."""
        if not self.is_selected(item.path):
            return None
        if isinstance(item, Skip):
            return item
        return self.skip_by_path(item.path) or self.refine_document(item)

    def refine_document(self, document: Document) -> Document | Skip:
        """Skip a Document whose text is a bundle or an smscan output; else return it."""
        if is_minified(document.path, document.text):
            return Skip(document.path, MINIFIED)
        if is_smscan_output(document.text):
            return Skip(document.path, SMSCAN_OUTPUT)
        return document
