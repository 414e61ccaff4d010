"""How many CPU threads the forward pass gets, on a machine other processes share.

- Never more than the cores this process may run on: ``os.sched_getaffinity`` (a container's
  cpuset, ``taskset``, a CI runner's slice), not ``os.cpu_count``, which counts the whole machine.
- ``threads`` > 0 (config key or ``--threads``): that many, within those cores.
- ``threads`` 0 (the default): the environment variable ``SMSCAN_THREADS`` (> 0), else
  ``OMP_NUM_THREADS`` (what Ray sets for an actor, and many CI setups), else automatic:
  one per allowed core, at most 4 (a 135M-parameter model gains little beyond), and at most
  the cores the rest of the machine leaves idle (``os.cpu_count()`` minus the other processes
  running now, or minus the one-minute load average where that count is unknown), at least 1.
  The threads of a forward pass wait on each other at every barrier, so when another process
  holds a core two threads run far slower than one: torch 2.8x (docs/BENCHMARKS.md, "Reference
  model" and export speed), and CTranslate2 2-3x too (a cold scan of requests 2.32.3 at load 3
  on 2 cores: 40-53 s with two threads, 16-19 s with one, twice the CPU time spinning).

Thread counts change speed only: scores and the score cache do not depend on them.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Mapping

from smscan.errors import ConfigError

MAX_AUTO_THREADS = 4
MAX_THREADS = 1024
ENV_THREADS = "SMSCAN_THREADS"


def allowed_cores() -> int:
    """The number of cores this process may run on (at least 1)."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        try:
            return max(1, len(affinity(0)))
        except OSError:
            pass
    return max(1, os.cpu_count() or 1)


def idle_cores() -> float | None:
    """Cores the rest of the machine leaves idle now, or None where unknown.

    Linux counts the processes running at this moment (``procs_running`` in ``/proc/stat``; this
    one is among them), read a few times 10 ms apart; elsewhere the one-minute load average
    stands in. The average lags: right after a scan ends it still says a core is busy for a
    minute, and a scan started then ran on one thread at half speed.
    """
    running = _running_now()
    if running is not None:
        return (os.cpu_count() or 1) - max(running - 1, 0)
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return None
    return (os.cpu_count() or 1) - load


def _running_now(samples: int = 5, pause_s: float = 0.01) -> float | None:
    """The median count of running processes over ``samples`` reads of ``/proc/stat``."""
    counts = []
    for sample in range(samples):
        if sample:
            time.sleep(pause_s)
        try:
            with open("/proc/stat", "rb") as stat:
                line = next((row for row in stat if row.startswith(b"procs_running ")), None)
        except OSError:
            return None
        if line is None:
            return None
        counts.append(int(line.split()[1]))
    return float(statistics.median(counts))


def choose_threads(
    asked: int,
    *,
    environ: Mapping[str, str] = os.environ,
    cores: int | None = None,
    idle: float | None = None,
) -> int:
    """The thread count for the forward pass (see the module docstring).

    Args:
        asked: the ``threads`` setting; 0 chooses.
        environ: where ``SMSCAN_THREADS`` and ``OMP_NUM_THREADS`` are read.
        cores: the allowed cores (None: ``allowed_cores()``).
        idle: idle cores of the machine (None: measured by ``idle_cores()``).

    Returns:
        A count from 1 to the allowed cores.

    Raises:
        ConfigError: ``SMSCAN_THREADS`` is set to something other than an integer 0..1024.

    Example:
        >>> choose_threads(8, environ={}, cores=2)
        2
        >>> choose_threads(0, environ={}, cores=2, idle=0.3)
        1
        >>> choose_threads(0, environ={}, cores=8, idle=0.3)
        1
        >>> choose_threads(0, environ={}, cores=8, idle=7.5)
        4
    """
    allowed = allowed_cores() if cores is None else max(1, cores)
    if asked > 0:
        return min(asked, allowed)
    from_env = _env_threads(environ)
    if from_env:
        return min(from_env, allowed)
    count = min(allowed, MAX_AUTO_THREADS)
    spare = idle if idle is not None else idle_cores()
    if spare is not None:
        count = min(count, max(1, round(spare)))
    return count


def _env_threads(environ: Mapping[str, str]) -> int:
    raw = environ.get(ENV_THREADS, "").strip()
    if raw:
        if not (raw.isascii() and raw.isdigit()) or int(raw) > MAX_THREADS:
            raise ConfigError(
                f"environment variable {ENV_THREADS} must be an integer 0..{MAX_THREADS} (0: automatic), got {raw!r}"
            )
        if int(raw):
            return int(raw)
    # OpenMP allows a list for nested levels ("4,2"); the first is the forward pass's.
    omp = environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    return int(omp) if omp.isascii() and omp.isdigit() and 0 < int(omp) <= MAX_THREADS else 0
