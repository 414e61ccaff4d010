"""Per-text score cache, so rescans, calibration sweeps and exports never score a text twice.

A cached entry is the per-token NLL of one text, keyed by (model fingerprint, scoring settings key,
sha256 of the text). It holds no text and nothing that decodes to it: only the NLL array and a
sha256 digest of the tokens (ids and character offsets) the scores belong to. On a hit the wrapped
scorer re-tokenizes the text (cheap: no model runs) and the entry is used only when the digest of
those tokens matches; a mismatch (another tokenizer, a changed rule) is a miss.

Storage is one SQLite database in WAL mode, ``ROOT/scores.sqlite3``, shared by concurrent processes
(writers wait on a busy timeout; readers never block; ``cache_database.py``). Its entries are bounded in total size: a
write that takes the total over ``max_bytes`` evicts the least recently used entries down to 90%
of it. A damaged entry is a miss; a damaged database is deleted and started afresh; a cache that
cannot be opened at all is turned off for the run and says why (``disabled``), never failing a scan.

The folder is ``$SMSCAN_SCORE_CACHE`` when set, else ``<cache root>/scores`` (the cache root of
``smscan.model.store``: ``$SMSCAN_CACHE``, else ``$XDG_CACHE_HOME/smscan``, else ``~/.cache/smscan``).

A second small table remembers what a loaded scorer said about itself (fingerprint, settings key,
description) per load request, so a rescan whose texts all hit needs no weights (``model/lazy.py``).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smscan.scoring.cache_database import CacheDatabase, is_busy, remove_legacy_entries

# The one definition of smscan's cache root (a light module: no torch). The boundary table lets
# cache import errors and records only; a second copy of the root rules would drift instead.
from smscan.model.store import cache_root

__all__ = ["DEFAULT_MAX_MB", "CacheInfo", "ScoreCache", "default_cache_dir"]

DEFAULT_MAX_MB = 200
_EVICT_TO = 0.9  # of max_bytes, so a full cache does not evict on every write
_SQL_CHUNK = 500  # keys per IN (...) query, under SQLite's parameter limit


def default_cache_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """Where scores are cached unless told otherwise (module docstring).

    Example:
        >>> default_cache_dir({"SMSCAN_SCORE_CACHE": "/tmp/s"}).as_posix()
        '/tmp/s'
    """
    if environ.get("SMSCAN_SCORE_CACHE"):
        return Path(environ["SMSCAN_SCORE_CACHE"]).expanduser()
    return cache_root(environ) / "scores"


@dataclass(frozen=True, slots=True)
class CacheInfo:
    """What ``smscan cache info`` reports."""

    location: Path
    entries: int
    bytes_stored: int
    file_bytes: int
    max_bytes: int


class ScoreCache:
    """Score entries in one SQLite database under ``root`` (module docstring).

    Args:
        root: the cache folder (created on first write).
        max_bytes: the bound on the entries' total size.

    Example:
        >>> cache = ScoreCache(Path("/tmp/scores"), max_bytes=50 << 20)  # doctest: +SKIP
        >>> cache.put_many({key: encode_entry(scores)})  # doctest: +SKIP
    """

    def __init__(self, root: Path, *, max_bytes: int = DEFAULT_MAX_MB << 20) -> None:
        self.root = root
        self.max_bytes = max_bytes
        self.hits = 0
        self.misses = 0
        self._db = CacheDatabase(root)

    @property
    def path(self) -> Path:
        """The database file."""
        return self._db.path

    @property
    def disabled(self) -> str | None:
        """Why the cache is off for this run, if it is."""
        return self._db.disabled

    # -- reading and writing ---------------------------------------------------------------

    def get_many(self, keys: Sequence[str]) -> dict[str, bytes]:
        """The stored entries of those ``keys`` that have one; marks them as just used."""
        wanted = sorted(set(keys))
        found: dict[str, bytes] = {}
        with self._db.connection(write=False) as db:
            if db is None or not self.path.exists():
                return found
            for first in range(0, len(wanted), _SQL_CHUNK):
                chunk = [bytes.fromhex(key) for key in wanted[first : first + _SQL_CHUNK]]
                marks = ",".join("?" * len(chunk))
                rows = db.execute(f"SELECT key, value FROM entries WHERE key IN ({marks})", chunk)
                found.update((bytes(key).hex(), bytes(value)) for key, value in rows)
            self._touch(db, [bytes.fromhex(key) for key in found])
        return found

    def put_many(self, entries: Mapping[str, bytes]) -> None:
        """Store entries (replacing any under the same key), then evict down to the bound."""
        if not entries:
            return
        now = time.time_ns()
        rows = [(bytes.fromhex(key), value, len(value), now) for key, value in entries.items()]
        with self._db.connection(write=True) as db:
            if db is None:
                return
            db.execute("BEGIN IMMEDIATE")
            try:
                # Read before the insert: with no kept total yet, _total sums the table, which
                # would then hold the new rows too and count them twice.
                before = self._total(db)
                replaced = 0
                for first in range(0, len(rows), _SQL_CHUNK):
                    chunk = [row[0] for row in rows[first : first + _SQL_CHUNK]]
                    marks = ",".join("?" * len(chunk))
                    (size,) = db.execute(f"SELECT COALESCE(SUM(size), 0) FROM entries WHERE key IN ({marks})", chunk).fetchone()
                    replaced += size
                db.executemany("INSERT OR REPLACE INTO entries (key, value, size, used) VALUES (?, ?, ?, ?)", rows)
                total = before + sum(row[2] for row in rows) - replaced
                if total > self.max_bytes:
                    total = self._evict(db)
                db.execute("INSERT OR REPLACE INTO totals (name, value) VALUES ('bytes', ?)", (total,))
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise

    def contains(self, key: str) -> bool:
        """Whether an entry is stored under ``key`` (without marking it used)."""
        with self._db.connection(write=False) as db:
            if db is None or not self.path.exists():
                return False
            return db.execute("SELECT 1 FROM entries WHERE key = ?", (bytes.fromhex(key),)).fetchone() is not None
        return False  # the database failed: counted as absent

    def recall(self, request: str) -> dict[str, Any] | None:
        """What a scorer loaded for ``request`` said about itself, if remembered."""
        with self._db.connection(write=False) as db:
            if db is None or not self.path.exists():
                return None
            row = db.execute("SELECT identity FROM identities WHERE request = ?", (request,)).fetchone()
            if row is not None:
                try:
                    identity = json.loads(row[0])
                except ValueError:
                    return None
                return identity if isinstance(identity, dict) else None
        return None

    def remember(self, request: str, identity: Mapping[str, Any]) -> None:
        """Record what a scorer loaded for ``request`` said about itself (key order kept: reports
        print the description as it was)."""
        text = json.dumps(dict(identity))
        with self._db.connection(write=True) as db:
            if db is not None:
                db.execute("INSERT OR REPLACE INTO identities (request, identity) VALUES (?, ?)", (request, text))

    # -- maintenance -----------------------------------------------------------------------

    def info(self) -> CacheInfo:
        """Location, entries, stored bytes and file bytes (0 when there is no database yet)."""
        entries = stored = 0
        if self.path.exists():
            with self._db.connection(write=False) as db:
                if db is not None:
                    entries, stored = db.execute("SELECT COUNT(*), COALESCE(SUM(size), 0) FROM entries").fetchone()
        file_bytes = sum(p.stat().st_size for p in self._db.files() if p.exists())
        return CacheInfo(self.path, int(entries), int(stored), file_bytes, self.max_bytes)

    def clear(self) -> int:
        """Delete every entry and the database files, and the ``<2 hex>/<key>.npz`` entries of
        the cache format before this one (they held token ids); returns the bytes freed."""
        freed = self.info().file_bytes
        self.close()
        for path in self._db.files():
            path.unlink(missing_ok=True)
        return freed + remove_legacy_entries(self.root)

    def close(self) -> None:
        """Close this process's connection (reopened on the next use)."""
        self._db.close()

    # -- internals -------------------------------------------------------------------------

    def _total(self, db: sqlite3.Connection) -> int:
        # The entries' total size, kept beside them so a write need not sum the table.
        row = db.execute("SELECT value FROM totals WHERE name = 'bytes'").fetchone()
        if row is None:
            row = db.execute("SELECT COALESCE(SUM(size), 0) FROM entries").fetchone()
        return int(row[0])

    def _evict(self, db: sqlite3.Connection) -> int:
        """Delete least recently used entries down to 90% of the bound; returns the new total
        (summed afresh, so a kept total that drifted is corrected here)."""
        (total,) = db.execute("SELECT COALESCE(SUM(size), 0) FROM entries").fetchone()
        if total <= self.max_bytes:
            return int(total)
        excess = total - int(self.max_bytes * _EVICT_TO)
        victims: list[int] = []
        for rowid, size in db.execute("SELECT rowid, size FROM entries ORDER BY used, rowid"):
            victims.append(rowid)
            excess -= size
            total -= size
            if excess <= 0:
                break
        for first in range(0, len(victims), _SQL_CHUNK):
            chunk = victims[first : first + _SQL_CHUNK]
            db.execute(f"DELETE FROM entries WHERE rowid IN ({','.join('?' * len(chunk))})", chunk)
        return int(total)

    def _touch(self, db: sqlite3.Connection, keys: list[bytes]) -> None:
        # Recency is advisory: when another process holds the write lock past the timeout, the
        # entries keep their older time rather than the scan waiting longer.
        now = time.time_ns()
        try:
            for first in range(0, len(keys), _SQL_CHUNK):
                chunk = keys[first : first + _SQL_CHUNK]
                db.execute(f"UPDATE entries SET used = ? WHERE key IN ({','.join('?' * len(chunk))})", [now, *chunk])
        except sqlite3.OperationalError as error:
            if not is_busy(error):
                raise
