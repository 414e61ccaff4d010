"""Which files are scanned: include/exclude globs, and a Skip with a stable reason for the rest.

Skip reasons are ids users may store and count; they are chosen once and never renamed:

- ``binary``: a NUL byte in the first 8 KiB (UTF-16/32 text with a byte-order mark excepted).
- ``too-large``: more than ``max_file_bytes`` bytes (known from ``stat`` before reading, or from
  the length of the bytes).
- ``undecodable``: not valid UTF-8 and no UTF-16/32 byte-order mark (:mod:`smscan.sources.text`).
- ``unreadable``: cannot be read as a regular file: permission denied, an I/O error, a FIFO,
  socket or device, a symlink whose target inside the root does not exist, a folder that cannot
  be listed.
- ``symlink-outside``: a symlink whose target resolves outside the scan root; never followed.
- ``submodule``: a git submodule (gitlink) or an untracked nested git repository; never entered.
- ``lfs-pointer``: a git-LFS pointer (starts with ``version https://git-lfs.github.com/spec/v1``);
  the real content is not there to scan.
- ``empty``: a file of zero bytes. Nothing to score, but counted rather than dropped silently, so
  every selected file is accounted for as a Document or a Skip.

Include/exclude globs use gitignore semantics (``pathspec.GitIgnoreSpec``) on root-relative POSIX
paths: ``*.py`` matches at any depth, ``src/`` matches everything under ``src``, ``/setup.py``
only at the root, ``!pattern`` re-includes. A path not selected by the :class:`PathFilter` is
dropped without a Skip: the user asked for it not to be scanned.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pathspec

from smscan.records import Document, Skip
from smscan.sources.text import decode_text, is_binary

BINARY = "binary"
TOO_LARGE = "too-large"
UNDECODABLE = "undecodable"
UNREADABLE = "unreadable"
SYMLINK_OUTSIDE = "symlink-outside"
SUBMODULE = "submodule"
LFS_POINTER = "lfs-pointer"
EMPTY = "empty"

SKIP_REASONS: frozenset[str] = frozenset(
    {BINARY, TOO_LARGE, UNDECODABLE, UNREADABLE, SYMLINK_OUTSIDE, SUBMODULE, LFS_POINTER, EMPTY}
)
"""Every reason a source may put in a :class:`~smscan.records.Skip`."""

LFS_POINTER_PREFIX = b"version https://git-lfs.github.com/spec/v1"


def is_lfs_pointer(data: bytes) -> bool:
    """Whether data is a git-LFS pointer (the text git stores in place of the real content)."""
    return data.startswith(LFS_POINTER_PREFIX)


def classify_bytes(
    path: str,
    data: bytes,
    *,
    max_file_bytes: int,
    group: str = "",
    blob_id: str | None = None,
) -> Document | Skip:
    """Turn one file's bytes into a Document, or a Skip saying why it is not scanned.

    Checks run in this order, the first that applies wins: ``too-large``, ``empty``,
    ``lfs-pointer``, ``binary``, ``undecodable``.

    Args:
        path: the root-relative POSIX path to record.
        data: the file's bytes (at most ``max_file_bytes + 1`` of them is enough to decide).
        max_file_bytes: the largest file scanned, in bytes.
        group: the Document's group (duplicate propagation runs within it).
        blob_id: the git blob id when the bytes came from git, else None.

    Returns:
        A Document whose text follows :func:`smscan.sources.text.decode_text`, or a Skip.

    Example:
        >>> classify_bytes("a.py", b"x = 1\\n", max_file_bytes=10)
        Document(path='a.py', text='x = 1\\n', group='', blob_id=None)
        >>> classify_bytes("a.bin", b"\\x00\\x01", max_file_bytes=10)
        Skip(path='a.bin', reason='binary')
    """
    if len(data) > max_file_bytes:
        return Skip(path, TOO_LARGE)
    if not data:
        return Skip(path, EMPTY)
    if is_lfs_pointer(data):
        return Skip(path, LFS_POINTER)
    if is_binary(data):
        return Skip(path, BINARY)
    text = decode_text(data)
    if text is None:
        return Skip(path, UNDECODABLE)
    return Document(path=path, text=text, group=group, blob_id=blob_id)


@dataclass(frozen=True, slots=True)
class PathFilter:
    """Include/exclude globs with gitignore semantics, applied to root-relative POSIX paths.

    A path is selected when ``include`` is empty or matches it, and ``exclude`` does not match it.

    Args:
        include: globs a path must match; empty means every path.
        exclude: globs that drop a path even when included.

    Example:
        >>> f = PathFilter(include=("*.py",), exclude=("tests/",))
        >>> f.is_selected("src/a.py"), f.is_selected("tests/test_a.py"), f.is_selected("a.md")
        (True, False, False)
    """

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    _include_spec: pathspec.GitIgnoreSpec = field(init=False, repr=False, compare=False)
    _exclude_spec: pathspec.GitIgnoreSpec = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Frozen: the compiled specs are derived once here, never reassigned.
        object.__setattr__(self, "_include_spec", pathspec.GitIgnoreSpec.from_lines(self.include))
        object.__setattr__(self, "_exclude_spec", pathspec.GitIgnoreSpec.from_lines(self.exclude))

    def is_selected(self, path: str) -> bool:
        """Whether the root-relative POSIX path is to be scanned."""
        if self.include and not self._include_spec.match_file(path):
            return False
        return not self._exclude_spec.match_file(path)
