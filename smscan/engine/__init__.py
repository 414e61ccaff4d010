"""Surprise Masking, pure: windows, selection rules, token masks, duplicate propagation, spans."""

from __future__ import annotations

from smscan.engine.mask import token_mask
from smscan.engine.propagate import propagate_duplicates
from smscan.engine.rules import local_ranks, select_global, select_local
from smscan.engine.spans import char_spans, token_runs
from smscan.engine.windows import Windows, fixed_windows, line_windows

__all__ = [
    "Windows",
    "char_spans",
    "fixed_windows",
    "line_windows",
    "local_ranks",
    "propagate_duplicates",
    "select_global",
    "select_local",
    "token_mask",
    "token_runs",
]
