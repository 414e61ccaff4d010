"""What one worker spends on its clients, bounded: connections, bytes, time, and what a crash leaves.

A worker serves any process of its user, so a buggy or hostile client must not be able to stop
it or make it grow:

- at most ``max_connections`` connections (one thread each); one more is closed at once, and a
  process out of descriptors (``EMFILE``) waits a moment instead of dying;
- a request frame of at most ``max_request_bytes`` of text, announced before it is read;
- a frame must arrive whole within ``frame_deadline_s`` of its first byte, a connection may wait
  ``idle_s`` for its next request and lives at most ``lifetime_s``: trickling bytes keep nothing open;
- a job whose client has gone is cancelled after the forward pass that notices (``ClientLeft``);
- no core dumps and no ptrace/``/proc`` reading by other processes of the user
  (``harden_process``), so scanned text in the heap does not end up on disk.

``LatencyWindow`` keeps the last request times for ``smscan serve --status``.
"""

from __future__ import annotations

import ctypes
import math
import resource
import select
import socket
import sys
from collections import deque
from dataclasses import dataclass

# prctl(2) option numbers (linux/prctl.h).
_PR_SET_DUMPABLE = 4


@dataclass(frozen=True, slots=True)
class ServerLimits:
    """The bounds a ``WorkerServer`` keeps (module docstring); the defaults suit a hook's worker."""

    max_connections: int = 16
    max_request_bytes: int = 32 << 20
    max_request_header: int = 1 << 20
    frame_deadline_s: float = 30.0
    idle_s: float = 120.0
    lifetime_s: float = 3600.0


class ClientLeft(Exception):
    """The client of a running job closed its connection: the job stops."""


def harden_process() -> list[str]:
    """No core dumps (``RLIMIT_CORE`` 0) and not dumpable (``PR_SET_DUMPABLE`` 0) on Linux.

    Returns:
        What could not be done (for a notice), empty when both held.
    """
    missing = []
    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (OSError, ValueError):
        missing.append("core dumps")
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
                missing.append("dumpable")
        except (OSError, AttributeError):
            missing.append("dumpable")
    return missing


def has_left(connection: socket.socket) -> bool:
    """Whether the peer has closed ``connection`` (a client waiting for its answer sends nothing)."""
    if not wait_readable(connection, 0.0):  # a socket with a timeout would wait in recv
        return False
    try:
        data = connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
    except (BlockingIOError, InterruptedError):
        return False
    except OSError:
        return True
    return data == b""


def wait_readable(connection: socket.socket, timeout: float) -> bool:
    """Whether ``connection`` has bytes (or its end) to read within ``timeout`` seconds."""
    ready, _, _ = select.select([connection], [], [], max(timeout, 0.0))
    return bool(ready)


class LatencyWindow:
    """The durations of the last ``size`` requests, for p50/p95 in ``--status``."""

    def __init__(self, size: int = 1000) -> None:
        self._seconds: deque[float] = deque(maxlen=size)

    def record(self, seconds: float) -> None:
        """Add one request's duration."""
        self._seconds.append(seconds)

    def percentiles(self) -> dict[str, float | int | None]:
        """``count``, ``p50_ms`` and ``p95_ms`` (None before any request), nearest rank."""
        ordered = sorted(self._seconds)
        if not ordered:
            return {"count": 0, "p50_ms": None, "p95_ms": None}

        def rank(share: float) -> float:
            index = min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))
            return round(ordered[index] * 1000.0, 1)

        return {"count": len(ordered), "p50_ms": rank(0.50), "p95_ms": rank(0.95)}
