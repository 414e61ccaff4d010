"""Refuse NaN and infinities wherever smscan reads numbers a user or a file supplies.

Python's ``json`` accepts ``NaN``, ``Infinity`` and ``-Infinity`` (and reads ``1e999`` as
infinity), and TOML has ``nan`` and ``inf``. Every comparison with NaN is false, so a NaN
threshold silently switches a detector off and ``-Infinity`` reports everything: such values
are refused where they are read, naming the file and the key.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from smscan.errors import SmscanError


def find_non_finite(value: Any, *, where: str = "") -> str | None:
    """The dotted key (``kinds.credential.threshold``, ``spans[0].start``) of the first NaN or
    infinite number in parsed JSON or TOML, or None when every number is finite.

    Args:
        value: what ``json.loads`` or ``tomllib.load`` returned.
        where: the key of ``value`` itself ("" at the top level).

    Returns:
        The key, or None.

    Example:
        >>> find_non_finite({"kinds": {"credential": {"threshold": float("nan")}}})
        'kinds.credential.threshold'
    """
    if isinstance(value, float):
        return None if math.isfinite(value) else (where or "(the top-level value)")
    if isinstance(value, Mapping):
        for key, item in value.items():
            found = find_non_finite(item, where=f"{where}.{key}" if where else str(key))
            if found is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = find_non_finite(item, where=f"{where}[{index}]")
            if found is not None:
                return found
    return None


def check_finite(value: Any, *, source: str, error: type[SmscanError] = SmscanError) -> None:
    """Raise ``error`` naming ``source`` and the key when ``value`` holds a non-finite number.

    Args:
        value: parsed JSON or TOML.
        source: the file (and line) it came from.
        error: the SmscanError subclass callers tell apart (ConfigError, ThresholdsError).

    Raises:
        SmscanError: a NaN or infinite number, with the file and the key.
    """
    key = find_non_finite(value)
    if key is not None:
        raise error(f"{source}: key {key!r} is not a finite number; NaN and Infinity are not allowed")
