"""Files a tool writes to record what it has seen: their hex values are names of things, not keys.

- git's refs inside a repository folder (``.git/`` or a bare ``name.git/``, as test suites of git
  libraries commit them): ``refs/heads/main``, ``refs/tags/v1``, ``packed-refs``, ``HEAD``,
  ``ORIG_HEAD``...; each holds object ids (40 hex digits for SHA-1, 64 for SHA-256), public by
  design. A file that is one token and nothing else reads like a key file
  (:mod:`smscan.detectors.credential_files`); in these places it is a commit's name.
- Sphinx's ``.buildinfo``: the hashes of the configuration and tags a build was made with
  (32 hex digits each).
- a Debian package's lists of files (``debian/<package>.install``, ``.links``, ``.dirs``,
  ``.docs``, ``.examples``, ``.manpages``, ``.info``): paths that debhelper installs, one or two
  a line (``CPP/7zip/Bundles/Alone/b/g/7za  usr/lib/p7zip``).

The path decides, and the value must have the shape the tool writes: a key pasted into such a
file in any other shape is still judged.
"""

from __future__ import annotations

import re

_OBJECT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_REF_FILES = frozenset(
    ["HEAD", "ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "packed-refs"]
)
_SPHINX_HASH = re.compile(r"[0-9a-f]{32}")
_DEBIAN_FILE_LISTS = frozenset({"install", "links", "dirs", "docs", "examples", "manpages", "info"})
# A path as those lists write it: parts joined by `/`, globs allowed, no blanks.
_LISTED_PATH = re.compile(r"[^\s/]*(?:/[^\s/]*)+")


def is_tool_record(path: str, value: str) -> bool:
    """Whether ``value`` is an id or hash a tool wrote into the record file at ``path``.

    Example:
        >>> is_tool_record("testdata/repos/a.git/refs/heads/master", "a90fa2d900a17e99b433217e988c4eb4a2e9a097")
        True
        >>> is_tool_record("deploy/refs/heads/master", "a90fa2d900a17e99b433217e988c4eb4a2e9a097")
        False
        >>> is_tool_record("docs/html/.buildinfo", "5224a5636bf4581871e6bd1d5c885f92")
        True
        >>> is_tool_record("p7zip/debian/p7zip-full.install", "CPP/7zip/Bundles/Alone/b/g/7za")
        True
    """
    normalized = path.replace("\\", "/")
    if _is_debian_file_list(normalized):
        return _LISTED_PATH.fullmatch(value) is not None
    if ".git/" not in normalized and not normalized.endswith(".buildinfo"):
        return False  # neither a repository's folder nor Sphinx's record: most paths, decided at once
    parts = normalized.split("/")
    name, folders = parts[-1], parts[:-1]
    if name == ".buildinfo":
        return _SPHINX_HASH.fullmatch(value) is not None
    repository = [folder.endswith(".git") for folder in folders]  # `.git` or a bare `name.git`
    ref_file = name in _REF_FILES and any(repository)
    # refs/heads/main, refs/tags/v1, refs/remotes/origin/main: `refs` right under the repository.
    under_refs = any(folder == "refs" and repository[i - 1] for i, folder in enumerate(folders) if i > 0)
    return (ref_file or under_refs) and _OBJECT_ID.fullmatch(value) is not None


def _is_debian_file_list(path: str) -> bool:
    """Whether ``path`` is one of a Debian package's lists of files (``debian/<package>.install``...)."""
    folder, _, name = path.rpartition("/")
    return (folder == "debian" or folder.endswith("/debian")) and name.rpartition(".")[2] in _DEBIAN_FILE_LISTS
