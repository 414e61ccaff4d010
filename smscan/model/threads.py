"""How many CPU threads the forward pass gets, on a machine other processes share.

- Never more than the cores this process may run on: ``os.sched_getaffinity`` (a container's
  cpuset, ``taskset``, a CI runner's slice), not ``os.cpu_count``, which counts the whole machine.
- ``threads`` > 0 (config key or ``--threads``): that many, within those cores.
- ``threads`` 0 (the default): the environment variable ``SMSCAN_THREADS`` (> 0), else
  ``OMP_NUM_THREADS`` (what Ray sets for an actor, and many CI setups), else automatic:
  one per allowed core, at most 4 (a 135M-parameter model gains little beyond), and on torch
  at most the cores the rest of the machine leaves idle (``os.cpu_count()`` minus the
  one-minute load average), at least 1. Torch's OpenMP threads wait on each other at every
  barrier, so when another process holds a core two threads ran 2.8x slower than one
  (docs/BENCHMARKS.md, "Reference model" and export speed); CTranslate2's threads still gained
  under the same load, so it gets the allowed cores.

Thread counts change speed only: scores and the score cache do not depend on them.
"""

from __future__ import annotations

import os
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
    """Cores the rest of the machine leaves idle over the last minute, or None where unknown."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return None
    return (os.cpu_count() or 1) - load


def choose_threads(
    asked: int,
    *,
    runtime: str,
    environ: Mapping[str, str] = os.environ,
    cores: int | None = None,
    idle: float | None = None,
) -> int:
    """The thread count for the forward pass (see the module docstring).

    Args:
        asked: the ``threads`` setting; 0 chooses.
        runtime: ``torch`` or ``ctranslate2``.
        environ: where ``SMSCAN_THREADS`` and ``OMP_NUM_THREADS`` are read.
        cores: the allowed cores (None: ``allowed_cores()``).
        idle: idle cores of the machine (None: measured by ``idle_cores()``).

    Returns:
        A count from 1 to the allowed cores.

    Raises:
        ConfigError: ``SMSCAN_THREADS`` is set to something other than an integer 0..1024.

    Example:
        >>> choose_threads(8, runtime="torch", environ={}, cores=2)
        2
        >>> choose_threads(0, runtime="torch", environ={}, cores=2, idle=0.3)
        1
        >>> choose_threads(0, runtime="ctranslate2", environ={}, cores=8, idle=0.3)
        4
    """
    allowed = allowed_cores() if cores is None else max(1, cores)
    if asked > 0:
        return min(asked, allowed)
    from_env = _env_threads(environ)
    if from_env:
        return min(from_env, allowed)
    count = min(allowed, MAX_AUTO_THREADS)
    if runtime == "torch":
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
