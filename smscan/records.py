"""Records passed between stages: sources -> model -> engine -> detectors -> reports and exports.

They live here, not where they are made, so a reader (a report, an export writer) imports no
stage to get its input type.

Conventions (identical in code, JSON and SARIF):
- ``nll`` is nats per token; ``threshold`` is the paper's tau.
- ``char_start``/``char_end`` are 0-based, half-open offsets in Unicode code points into the
  document's text; ``line``/``column`` are 1-based, columns in code points, end column exclusive.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # arrays are only annotated here: a record type costs no numpy import
    import numpy as np

MESSAGES_FIELD = "messages"
"""The field of a chat record: a list of ``{"role", "content"}`` messages."""


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

    @property
    def supervised(self) -> None:
        """Masks may cover the whole text (an export's record may restrict them to some messages)."""
        return None


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


@dataclass(slots=True)
class ScanStats:
    files_scanned: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    tokens_scored: int = 0
    seconds: float = 0.0

    @property
    def tokens_per_second(self) -> float:
        return self.tokens_scored / self.seconds if self.seconds > 0 else 0.0


@dataclass(slots=True)
class ScanResult:
    """Findings sorted by path and offset, what was skipped, counters, and the flagged lines.

    ``lines`` maps path -> line number -> line text for lines that hold a finding, so reports can
    draw a code frame without reading the source again; ``values`` maps a finding's fingerprint to
    the flagged text, which reports redact unless asked not to.
    """

    findings: list[Finding] = field(default_factory=list)
    skips: list[Skip] = field(default_factory=list)
    stats: ScanStats = field(default_factory=ScanStats)
    lines: dict[str, dict[int, str]] = field(default_factory=dict)
    values: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class DatasetRecord:
    """One input record to mask.

    Attributes:
        index: 0-based position of the record in the input (rejected records count too).
        data: the record as read; the export writes it back with an ``smscan`` field added.
        field: the field holding the text (``text``, the ``--text-field``) or ``messages``.
        texts: the text, or each message's content for a chat.
        roles: for a chat, each message's role; empty for a text record.
        supervised: per text, whether it is scored and masked.
        group: the duplicate-propagation group key.
        position: input consumed so far (bytes for JSONL, rows for Parquet).
        order: the record's place in a stream that reorders the input (``--two-pass``); -1
            when the stream follows the input.
    """

    index: int
    data: dict[str, Any]
    field: str
    texts: tuple[str, ...]
    roles: tuple[str, ...]
    supervised: tuple[bool, ...]
    group: str
    position: int = 0
    order: int = -1

    @property
    def is_chat(self) -> bool:
        return self.field == MESSAGES_FIELD

    @property
    def sequence(self) -> int:
        """The record's place in the stream being exported (what a resume counts)."""
        return self.index if self.order < 0 else self.order


@dataclass(frozen=True, slots=True)
class Rejected:
    """An input record that cannot be masked: its position, a short reason, and the raw input.

    ``index`` is its place in the input; ``order`` as for :class:`DatasetRecord`.
    """

    index: int
    reason: str
    raw: str
    position: int = 0
    order: int = -1

    @property
    def sequence(self) -> int:
        """The record's place in the stream being exported (what a resume counts)."""
        return self.index if self.order < 0 else self.order


@dataclass(frozen=True, slots=True, order=True)
class BaselineEntry:
    """One accepted finding: its kind, normalised path and salted hash of the flagged text."""

    path: str
    kind: str
    hash: str


@dataclass(frozen=True, slots=True)
class Suppressed:
    """What was taken out of a scan's findings after scoring (``smscan.decide.decisions``), for the report."""

    inline: int = 0
    baseline_file: str | None = None
    accepted: int = 0
    stale: tuple[BaselineEntry, ...] = ()

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"inline": self.inline}
        if self.baseline_file is not None:
            out["baseline"] = {
                "file": self.baseline_file,
                "accepted": self.accepted,
                "stale": [{"kind": e.kind, "path": e.path, "hash": e.hash} for e in self.stale],
            }
        return out


@dataclass(frozen=True, slots=True)
class Candidate:
    """A span ``[char_start, char_end)`` with its score (nats, comparable to the threshold)."""

    char_start: int
    char_end: int
    score: float
    details: Mapping[str, Any] = field(default_factory=dict)


class Detector(Protocol):
    """Scores candidate spans of one kind; knows nothing of thresholds."""

    kind: str
    unit: str
    """What calibration counts: ``"char"`` (credential values) or ``"line"`` (dead lines)."""
    propagate: bool
    """Whether every copy of a value in a group shares its best score (:func:`propagate_values`)."""
    context_chars: int
    """How many characters of left context a span of ``regions`` is scored with."""
    sensitive: bool
    """Whether a span's text is a secret, redacted wherever it is shown (``smscan explain``)."""

    def applies_to(self, path: str) -> bool:
        """Whether files at ``path`` are scanned for this kind."""
        ...

    def regions(self, text: str, path: str) -> list[tuple[int, int]] | None:
        """The spans ``[start, end)`` of ``text`` whose candidates need scores, or None when
        candidates need the whole document scored.

        The scan scores each span with bounded left context and the rest of its line
        (:mod:`smscan.plan.pieces`); whatever lies outside every span may be left unscored, so
        ``candidates`` must judge only what these spans cover (tokens outside them are absent).
        """
        ...

    def candidates(self, text: str, scores: TokenScores, *, path: str = "") -> list[Candidate]:
        """Every scored candidate of ``text`` (at ``path``, "" when unknown); spans of one
        document do not overlap.

        ``scores`` may cover only pieces of ``text`` (those ``regions`` asked for, in document
        offsets, a NaN at each piece's first token): a candidate without scored tokens is dropped.
        """
        ...

    def rule(self) -> dict[str, Any]:
        """The scoring rule's parameters, as saved with a threshold."""
        ...

    def reasons(self, score: float, details: Mapping[str, Any]) -> list[str]:
        """Why a candidate scored what it did, in words (``smscan explain``)."""
        ...

    def dropped(
        self, text: str, scores: TokenScores, windows: Any, *, tau: float, near: float, path: str = ""
    ) -> list[Any]:
        """Spans dropped before scoring that ``smscan explain`` shows (``detectors/explaining.Dropped``)."""
        ...


@dataclass(frozen=True, slots=True)
class Detection:
    """A detector and the calibrated threshold its findings must reach."""

    detector: Detector
    threshold: float
    source: str = ""
    """Where the threshold came from (a thresholds file, or the packaged defaults)."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.detector.kind,
            **self.detector.rule(),
            "threshold": self.threshold,
            "thresholds": self.source,
        }
