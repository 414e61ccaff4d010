"""The score cache's SQLite database: one connection per process, and failures that never fail a scan.

The database is one file in WAL mode, shared by concurrent processes (writers wait on a busy
timeout; readers never block). A database failure ends in a miss, a dropped write or a reset,
never in an exception: busy past the timeout, a read is a miss and a write is dropped; a damaged
database is deleted once and started afresh; a second failure, or a folder that cannot be
created, turns the cache off for the run and says why (``disabled``).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

DATABASE_NAME = "scores.sqlite3"
_BUSY_TIMEOUT_S = 10.0
_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    key BLOB PRIMARY KEY, value BLOB NOT NULL, size INTEGER NOT NULL, used INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS entries_by_use ON entries(used);
CREATE TABLE IF NOT EXISTS identities (request TEXT PRIMARY KEY, identity TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS totals (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
"""


class CacheDatabase:
    """The connection to ``root/scores.sqlite3`` (module docstring).

    Args:
        root: the cache folder (created on the first write).
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / DATABASE_NAME
        self.disabled: str | None = None  # why the cache is off for this run, if it is
        self._connection: sqlite3.Connection | None = None
        self._pid = 0
        self._reset_done = False

    @contextmanager
    def connection(self, *, write: bool) -> Iterator[sqlite3.Connection | None]:
        """The connection (None when the cache is off or, for a read, absent). Database failures
        end in a miss, a dropped write or a reset, never in an exception: a cache must not fail
        a scan."""
        db = None
        if self.disabled is None:
            try:
                db = self._connect(create=write)
            except sqlite3.DatabaseError as error:
                self._handle(error)
        if db is None:
            yield None
            return
        try:
            yield db
        except sqlite3.DatabaseError as error:
            self._handle(error)

    def files(self) -> list[Path]:
        """The database file and its WAL and shared-memory files."""
        return [self.path, self.path.with_name(self.path.name + "-wal"), self.path.with_name(self.path.name + "-shm")]

    def close(self) -> None:
        """Close this process's connection (reopened on the next use)."""
        if self._connection is not None and self._pid == os.getpid():
            self._connection.close()
        self._connection = None

    def _handle(self, error: sqlite3.DatabaseError) -> None:
        # Busy past the timeout: this read is a miss, this write is dropped. Anything else
        # (malformed, not a database, unwritable) is a damaged or unusable database.
        if isinstance(error, sqlite3.OperationalError) and is_busy(error):
            return
        self._recover(error)

    def _connect(self, *, create: bool) -> sqlite3.Connection | None:
        if self._connection is not None and self._pid == os.getpid():
            return self._connection
        self._connection = None  # a connection inherited over fork is never used
        if not create and not self.path.exists():
            return None
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            self.disabled = f"cannot create {self.root} ({error.strerror})"
            return None
        if create:  # once per process: a store that is written to drops what the old format kept
            remove_legacy_entries(self.root)
        db = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.executescript(_SCHEMA)
        except BaseException:
            db.close()
            raise
        self._connection, self._pid = db, os.getpid()
        return db

    def _recover(self, error: sqlite3.DatabaseError) -> None:
        # A damaged database is deleted once and started afresh; a second failure turns the
        # cache off for this run (the scan goes on, scoring everything).
        self.close()
        if self._reset_done or not self.path.exists():
            self.disabled = f"{self.path}: {error}"
            return
        self._reset_done = True
        try:
            for path in self.files():
                path.unlink(missing_ok=True)
        except OSError as unlink_error:
            self.disabled = f"{self.path}: {error}; cannot delete it ({unlink_error.strerror})"


def is_busy(error: sqlite3.OperationalError) -> bool:
    """Whether SQLite gave up waiting for another process's lock."""
    message = str(error).lower()
    return "locked" in message or "busy" in message


def remove_legacy_entries(root: Path) -> int:
    """Delete the ``<2 hex>/<key>.npz`` entries of the format before the database (they held the
    token ids of every scanned text, which decode back to it); returns the bytes freed."""
    freed = 0
    for legacy in root.glob("[0-9a-f][0-9a-f]/*.npz"):
        try:
            freed += legacy.stat().st_size
            legacy.unlink()
            if not any(legacy.parent.iterdir()):
                legacy.parent.rmdir()
        except OSError:  # another process removed it first, or it cannot be removed: not ours to fail on
            continue
    return freed
