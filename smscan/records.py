"""Frozen records passed between stages: sources -> model -> engine -> detectors -> reports.

Conventions (identical in code, JSON and SARIF):
- ``nll`` is nats per token; ``threshold`` is the paper's tau.
- ``char_start``/``char_end`` are 0-based, half-open offsets in Unicode code points into the
  document's text; ``line``/``column`` are 1-based, columns in code points, end column exclusive.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True, slots=True)
class Document:
    """One text to scan.

    ``path`` is a POSIX path relative to the scan root. ``group`` is the key that duplicate
    propagation runs within (a repository, a user); ``blob_id`` is the git blob id when the
    text came from git (used as a cache key), else None. ``changed_lines`` restricts a diff scan
    to 1-based inclusive line ranges: only those lines (with bounded left context) are scored and
    only findings touching them are reported; None scans the whole text.
    """

    path: str
    text: str
    group: str = ""
    blob_id: str | None = None
    changed_lines: tuple[tuple[int, int], ...] | None = None


@dataclass(frozen=True, slots=True)
class Skip:
    """A file that was not scanned, and why (reason is a short stable id like ``binary``)."""

    path: str
    reason: str


@dataclass(frozen=True, slots=True, eq=False)
class TokenScores:
    """Per-token reference scores of one text.

    Arrays are aligned, one entry per token:
    - ``token_ids``: int64 ids in the reference tokenizer.
    - ``char_starts``/``char_ends``: int64 code-point offsets of the characters each token covers;
      a token that covers no character (a fragment of a multi-byte character already covered by
      its neighbour, or a special token) has ``char_start == char_end``.
    - ``nll``: float64 ``-log p(x_j | x_<j)`` in nats; NaN where the token has no score (the first
      token of a text has no context). Windows containing a NaN are invalid and never selected.
    """

    token_ids: np.ndarray
    char_starts: np.ndarray
    char_ends: np.ndarray
    nll: np.ndarray

    def __len__(self) -> int:
        return int(self.token_ids.shape[0])


@dataclass(frozen=True, slots=True)
class Position:
    """A 1-based line and code-point column."""

    line: int
    column: int


@dataclass(frozen=True, slots=True)
class Finding:
    """A reported span of a document."""

    path: str
    kind: str
    char_start: int
    char_end: int
    start: Position
    end: Position
    score: float
    threshold: float
    fingerprint: str
    details: dict[str, Any] = field(default_factory=dict)
