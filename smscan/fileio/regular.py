"""Reading a file that must be a regular file: never a FIFO, socket or device.

A repository decides what its paths are: a ``.smscanignore``, a ``.gitignore`` or a baseline
named by its config can be a FIFO (a read blocks for ever) or a link to ``/dev/zero`` (a read
never ends). Every file smscan reads because a scanned tree or its config names it goes through
here: opened non-blocking (a FIFO swapped in after a check still never blocks), refused unless
``fstat`` says it is a regular file, and never read past a limit.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
CONFIG_FILE_LIMIT = 256 << 20
"""The most bytes read from a file a config names (baseline, thresholds, ignore files)."""


class NotRegularFile(OSError):
    """The path is a FIFO, socket, device or folder; ``strerror`` says so, for messages."""

    def __init__(self, path: Path) -> None:
        super().__init__(0, "not a regular file", os.fsdecode(path))


def read_regular_file(path: Path, *, limit: int) -> bytes | None:
    """The bytes of a regular file, or None when it has more than ``limit`` bytes.

    Raises:
        OSError: the file cannot be opened or read; ``NotRegularFile`` for a FIFO, socket,
            device or folder (which is never read).
    """
    fd = os.open(path, _OPEN_FLAGS)
    try:
        info = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise NotRegularFile(path)
    with os.fdopen(fd, "rb") as file:
        if info.st_size > limit:
            return None
        # Read one byte past the limit: a file that grew since fstat is still too large.
        data = file.read(limit + 1)
    return None if len(data) > limit else data


def read_config_file(path: Path) -> bytes:
    """A regular file a config or a tree names, up to ``CONFIG_FILE_LIMIT`` bytes.

    Raises:
        OSError: it cannot be read, is not a regular file (``NotRegularFile``) or is too large
            (``strerror`` says so).
    """
    data = read_regular_file(path, limit=CONFIG_FILE_LIMIT)
    if data is None:
        raise OSError(0, f"larger than {CONFIG_FILE_LIMIT >> 20} MB", os.fsdecode(path))
    return data
