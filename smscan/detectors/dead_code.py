"""Dead code: statements the reference model finds surprising (paper D.5, the DePA study).

Each line with visible content is one window scored by the mean NLL of its tokens
(:func:`smscan.engine.windows.line_windows`); one calibrated threshold decides. Two corrections
make the mean comparable across lines: tokens with fewer than ``min_context`` tokens of left
context are not judged (the first line of every file is surprising for want of context, not for
being dead), and a line of few tokens is shrunk toward the file's median token NLL as if it had
``shrink`` more tokens of that value (a two-token line's mean is mostly noise). For Python,
evidence from the code itself (:mod:`smscan.detectors.python_dead`: unreachable statements,
conditions that cannot hold, empty loops, stores nothing reads, dropped pure results) raises a
score by ``evidence_bonus`` nats. The evidence ranks candidates; it never replaces surprise, and
with ``evidence_bonus = 0`` the detector is plain line SM. JavaScript and TypeScript get the same
evidence from tree-sitter syntax trees (:mod:`smscan.detectors.js_dead`, the optional ``js``
extra). Code that no parser here reads (shell, Go, ..., and Python or JavaScript that does not
parse) has no evidence, so by default it is not judged and nothing of it is scored
(``other_lines``); ``other_lines = "all"`` judges its lines by surprise alone.

A Python finding is a whole dead statement (``units = "statement"``): the ``if`` with its body,
the tail after a ``return``, a run of dead statements on adjacent lines, judged by the mean NLL of
the tokens of the lines where its statements start (continuation lines, such as a test's input
strings, are data and add nothing), shrunk toward the file's median like a line; ``units =
"line"`` judges each line alone, as before.

In Python that parses, only dead statements are candidates (``python_lines = "evidence"``): on
the calibration sets every dead line reported comes from them, and the lines surprise alone
raises there are false alarms (``docs/BENCHMARKS.md``). So a scan scores only those statements
with their context (``regions``), the file median of the prior then being that of the scored
context; other code needs nothing, or the whole file under ``other_lines = "all"``. JavaScript and TypeScript
that a grammar reads without an error are judged the same way (``js_lines``). Which language a
text is comes from the text, as ``ast.parse`` decides for Python: a candidate sees no path.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from smscan.detectors import js_dead
from smscan.detectors.code_files import is_code_path
from smscan.records import Candidate
from smscan.detectors.code_lines import (
    content_extents,
    prose_lines,
)
from smscan.detectors.python_dead import (
    STRONG_REASONS,
    DeadStatement,
    constant_truth,
    dead_blocks,
    dead_lines,
    non_statement_lines,
    parses,
)

__all__ = ["KIND", "DeadCodeDetector", "DeadCodeRule", "constant_truth", "dead_lines"]
from smscan.engine.windows import line_windows
from smscan.kinds import DEAD_CODE
from smscan.records import TokenScores

KIND = DEAD_CODE


@dataclass(frozen=True, slots=True)
class DeadCodeRule:
    """Parameters of the dead-code score (saved with the threshold)."""

    # The smallest bonus (0.5-nat grid) with the best 5-fold CV line F1 on the MBPP calibration set:
    # larger ones tie there and only raise the bar for lines surprise alone must carry.
    evidence_bonus: float = 2.5
    # Strong evidence (python_dead.STRONG_REASONS: a statement that cannot run or does nothing at
    # all) is rare in real code. The smallest bonus (0.5-nat grid) whose recall on the MBPP dev
    # split of bench/deadcode_variants_gen.py, at the packaged threshold, reaches 0.95 on two-line
    # and 0.75 on natural-looking injections; larger ones only add false alarms on real code
    # (docs/BENCHMARKS.md, "Dead code as statements").
    strong_bonus: float | None = 3.5
    """The bonus of strong evidence (``python_dead.STRONG_REASONS``); None: ``evidence_bonus``."""
    min_context: int = 8
    shrink: float = 4.0
    python_only: bool = False
    python_lines: str = "evidence"
    """In Python that parses: ``evidence`` judges only lines ``ast`` shows dead; ``all`` every line."""
    units: str = "statement"
    """Evidence judged per dead ``statement`` (with its body) or per ``line`` alone."""
    js_lines: str = "evidence"
    """The same as ``python_lines`` for JavaScript and TypeScript that parse (the ``js`` extra)."""
    other_lines: str = "none"
    """Code no parser here reads (shell, Go, Java, ..., Python or JavaScript that does not parse,
    JavaScript without the ``js`` extra): ``none`` judges nothing there, as nothing shows a line
    dead and surprise alone raised only false alarms where it was measured (Python, MBPP), so the
    model is never sent such a file for dead code; ``all`` judges every line of the whole file."""

    def __post_init__(self) -> None:
        for key in ("python_lines", "js_lines"):
            if getattr(self, key) not in ("evidence", "all"):
                raise ValueError(f"{key} must be 'evidence' or 'all', got {getattr(self, key)!r}")
        if self.other_lines not in ("none", "all"):
            raise ValueError(f"other_lines must be 'none' or 'all', got {self.other_lines!r}")
        if self.units not in ("statement", "line"):
            raise ValueError(f"units must be 'statement' or 'line', got {self.units!r}")

    def bonus(self, reason: str) -> float:
        """The nats a dead statement with evidence ``reason`` adds to its score."""
        if self.strong_bonus is not None and reason in STRONG_REASONS:
            return self.strong_bonus
        return self.evidence_bonus

    def as_dict(self) -> dict[str, Any]:
        return {"rule": "line-mean-nll", **asdict(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DeadCodeRule:
        return cls(**{name: data[name] for name in cls.__dataclass_fields__ if name in data})


class DeadCodeDetector:
    """Surprising code lines, with optional Python ``ast`` evidence; see the module docstring."""

    kind = KIND
    unit = "line"
    propagate = False
    sensitive = False
    # A line's surprise and the prior it is shrunk toward need the code around it: with 128
    # characters before it, MBPP false alarms rose from 1 to 5 (docs/BENCHMARKS.md); evidence
    # lines are rare, so a long context costs little.
    context_chars = 1024

    def __init__(self, rule: DeadCodeRule | None = None) -> None:
        self._rule = rule or DeadCodeRule()

    @classmethod
    def from_rule(cls, rule: Mapping[str, Any]) -> DeadCodeDetector:
        """The detector with a saved rule's parameters; unknown keys are ignored."""
        return cls(DeadCodeRule.from_dict(dict(rule)))

    def rule(self) -> dict[str, Any]:
        return self._rule.as_dict()

    def reasons(self, score: float, details: Mapping[str, Any]) -> list[str]:
        """Why a candidate scored what it did, for ``smscan explain``."""
        from smscan.detectors.explaining import dead_code_reasons

        return dead_code_reasons(score, details)

    def dropped(
        self, text: str, scores: TokenScores, windows: Any, *, tau: float, near: float, path: str = ""
    ) -> list[Any]:
        """Nothing is dropped before scoring: every judged line is scored."""
        return []

    def applies_to(self, path: str) -> bool:
        """Source code only: prose and data files have no dead code, only surprising lines."""
        return is_code_path(path)

    def regions(self, text: str, path: str) -> list[tuple[int, int]] | None:
        """Python, JavaScript or TypeScript that parses: its dead statements (none: nothing to score);
        other code: nothing (``other_lines = "none"``, the default) or the whole text (``"all"``).

        Each dead statement comes with the lines that start within ``context_chars`` after it
        (the planner adds as much before it): the median a short line is shrunk toward must be
        that of the code around the line, not of a prefix ending at it, which reads higher (a
        file's first tokens have little context). With left context alone, MBPP false alarms
        rose from 1 to 3 (``docs/BENCHMARKS.md``).
        """
        code = self._parsed(text, python=None)
        if code is None:
            return [] if self._rule.other_lines == "none" else None
        if not code.evidence_only:
            return None
        extents = content_extents(text)
        spans = []
        for block in code.blocks:
            if block.first > len(extents):
                continue
            start, end = extents[block.first - 1][0], extents[min(block.last, len(extents)) - 1][1]
            stop = end
            for after_start, after_end in extents[block.last :]:
                if after_start - end > self.context_chars:
                    break
                if after_end > after_start:
                    stop = after_end
            spans.append((start, stop))
        return spans

    def _parsed(self, text: str, *, python: bool | None) -> _ParsedCode | None:
        """What the syntax of Python, or else of JavaScript or TypeScript, shows; None for text
        neither parses as (or JavaScript without the ``js`` extra)."""
        if python is not False and parses(text):
            lines = dead_lines(text)
            return _ParsedCode(dead_blocks(text), lines, non_statement_lines(text), self._rule.python_lines == "evidence")
        if python is not True and js_dead.parses(text):
            return _ParsedCode(js_dead.dead_blocks(text), js_dead.dead_lines(text), js_dead.non_statement_lines(text),
                               self._rule.js_lines == "evidence")
        return None

    def candidates(
        self, text: str, scores: TokenScores, *, path: str = "", python: bool | None = None
    ) -> list[Candidate]:
        """One candidate per dead statement block (Python, JavaScript, TypeScript) and per other
        scored line.

        Args:
            text: the document.
            scores: its token scores (of the whole text, or of pieces of it: see ``regions``).
            path: the document's path (unused: the syntax decides).
            python: whether the text is Python (None: it is when it parses as Python; False:
                it may still be JavaScript or TypeScript, when a grammar reads it).
        """
        rule = self._rule
        lines = _scored_lines(text, scores, rule.min_context)
        if rule.python_only and not parses(text):
            return []
        code = self._parsed(text, python=python)
        if code is None and rule.other_lines == "none":
            return []
        evidence_only = code is not None and code.evidence_only
        extents = content_extents(text)
        # Comments are prose; so are the continuation lines of a statement of parsed code.
        prose = prose_lines(text, extents, python=False) | (code.continuation if code else set())
        blocks = code.blocks if code else []
        if rule.units == "line":
            blocks = [DeadStatement(line, line, reason) for line, reason in sorted(code.lines.items())] if code else []
        found = []
        in_blocks: set[int] = set()
        for block in blocks:
            in_blocks.update(range(block.first, block.last + 1))
            judged = [line for line in range(block.first, block.last + 1) if line not in prose and line in lines.sums]
            count = sum(lines.counts[line] for line in judged)
            if not judged or count == 0:
                continue
            total = sum(lines.sums[line] for line in judged)
            score = (total + rule.shrink * lines.prior) / (count + rule.shrink) + rule.bonus(block.reason)
            start, end = extents[block.first - 1][0], extents[block.last - 1][1]
            details: dict[str, Any] = {"line_nll": round(total / count, 4), "evidence": block.reason}
            found.append(Candidate(start, end, score, details))
        if not evidence_only:
            for line in sorted(set(lines.sums) - in_blocks - prose):
                count = lines.counts[line]
                score = (lines.sums[line] + rule.shrink * lines.prior) / (count + rule.shrink)
                start, end = extents[line - 1]
                found.append(Candidate(start, end, score, {"line_nll": round(lines.sums[line] / count, 4)}))
        found.sort(key=lambda candidate: candidate.char_start)
        return found


@dataclass(frozen=True, slots=True)
class _ParsedCode:
    """The dead blocks, dead lines (1-based -> reason) and continuation lines of parsed code."""

    blocks: list[DeadStatement]
    lines: dict[int, str]
    continuation: set[int]
    evidence_only: bool
    """Whether only dead statements are candidates (``python_lines``/``js_lines`` ``evidence``)."""


@dataclass(frozen=True, slots=True)
class _ScoredLines:
    """Per 1-based line with a window: the sum and count of its judged token NLLs; the prior."""

    sums: dict[int, float]
    counts: dict[int, int]
    prior: float


def _scored_lines(text: str, scores: TokenScores, min_context: int) -> _ScoredLines:
    nll = np.array(scores.nll, dtype=np.float64)
    # Tokens without enough left context are not judged (NaN: their lines get no window):
    # the first of the text, and of each scored piece after a gap.
    for start in _piece_starts(scores):
        nll[start + 1 : start + min_context] = np.nan
    windows, lines = line_windows(text, scores.char_starts, scores.char_ends, nll)
    finite = np.isfinite(nll)
    prior = float(np.median(nll[finite])) if finite.any() else 0.0
    counts = _finite_counts(finite, windows.starts, windows.ends)
    sums: dict[int, float] = {}
    numbers: dict[int, int] = {}
    for mean, count, line in zip(windows.scores.tolist(), counts.tolist(), lines.tolist()):
        if math.isfinite(mean) and count > 0:
            sums[int(line)] = mean * count
            numbers[int(line)] = int(count)
    return _ScoredLines(sums, numbers, prior)


def _piece_starts(scores: TokenScores) -> np.ndarray:
    """Indices of the tokens that begin a scored text: the first, and each one after a gap.

    Tokens of one scored text partition it, so consecutive tokens touch; the sparse scores of a
    scan's pieces (:func:`smscan.plan.pieces.document_scores`) have a gap where one piece ends and the
    next begins.
    """
    if len(scores) == 0:
        return np.zeros(0, dtype=np.int64)
    gaps = np.flatnonzero(np.asarray(scores.char_starts)[1:] != np.asarray(scores.char_ends)[:-1]) + 1
    return np.concatenate([[0], gaps]).astype(np.int64)


def _finite_counts(finite: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """How many scored tokens each window ``[start, end)`` holds."""
    if starts.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    # reduceat over interleaved bounds sums each range on its own; the pad lets a range end last.
    bounds = np.stack([starts, ends], axis=1).ravel()
    counts: np.ndarray = np.add.reduceat(np.append(finite.astype(np.int64), 0), bounds)[::2]
    return counts


