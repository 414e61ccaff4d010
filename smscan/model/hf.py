"""Small helpers at the transformers boundary: quiet loading and one-line error text."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_MAX_REASON_CHARS = 200


@contextmanager
def quiet_transformers() -> Iterator[None]:
    """Silence transformers' info logs, progress bars and warnings for a load, then restore them.

    smscan reports progress and errors itself; library chatter on stderr would break the hook's
    one-line output. Errors still raise.
    """
    from transformers.utils import logging

    hf_logging: Any = logging  # some of its switches are unannotated
    verbosity = hf_logging.get_verbosity()
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()


def describe_error(exc: BaseException) -> str:
    """The exception's type and the first line of its message, shortened for a one-line error."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    reason = lines[0] if lines else ""
    if len(reason) > _MAX_REASON_CHARS:
        reason = reason[: _MAX_REASON_CHARS - 3] + "..."
    return f"{type(exc).__name__}: {reason}" if reason else type(exc).__name__
