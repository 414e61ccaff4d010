"""Why each span of a file was or was not reported: a tracing view of the scan's own chain.

The scores a scan reads (the plan's pieces, or the whole file when a kind needs it) go through
the scan's stages (``judge.scan``) and decisions (``decisions.decide``), so "reported" means
exactly what a scan reports (allow comments and the credential/dead-code overlap applied;
baselines are not); the whole file's scores draw the heat map and the raw windows. Alongside,
the trace keeps what the stages computed on the way: raw Surprise Masking windows and their
votes, every detector's candidates with its evidence (``Detector.reasons``), and the spans a
detector drops before scoring (``Detector.dropped``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from smscan.decide.decisions import decide
from smscan.records import Detector
from smscan.detectors.suppress import is_allowed
from smscan.engine.rules import select_global, select_local
from smscan.engine.windows import Windows, fixed_windows
from smscan.kinds import SURPRISE
from smscan.judge.scan import scan
from smscan.records import Document, Finding, ScanResult, TokenScores
from smscan.plan.regions import line_starts
from smscan.reports.explain import Explanation, SpanVerdict, TokenHeat, WindowScore
from smscan.rules.resolve import Rules

# Spans and windows this close below their threshold (nats) are shown as near misses.
NEAR = 1.0
TOP_WINDOWS = 8

Position = Callable[[int], tuple[int, int]]


class _ScoredOnce:
    """A scorer that hands back scores already computed (the chain scores one whole text)."""

    def __init__(self, scores: TokenScores, fingerprint: str = "explain") -> None:
        self._scores = scores
        self.fingerprint = fingerprint

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]:
        return [self._scores for _ in texts]


@dataclass(frozen=True, slots=True)
class _View:
    """The lines shown and the raw surprise windows drawn (the scan's rule, else the defaults)."""

    lo: int
    hi: int
    starts: list[int]
    window: int
    tau: float
    consensus: int
    windows: Windows
    selected: np.ndarray

    def position(self, offset: int) -> tuple[int, int]:
        line = int(np.searchsorted(self.starts, offset, side="right"))
        return line, offset - self.starts[line - 1] + 1

    def shows(self, start: int, end: int) -> bool:
        return start < self.hi and end > self.lo


def explain_document(
    document: Document,
    scores: TokenScores,
    rules: Rules,
    *,
    window: int,
    threshold: float,
    consensus: int,
    first_line: int,
    last_line: int,
    model: str,
    scan_scores: TokenScores | None = None,
) -> Explanation:
    """Explain lines ``first_line..last_line`` of a scored document under ``rules``.

    Args:
        document: the whole file (``changed_lines`` None).
        scores: its token scores, the whole file's (the heat map and the raw windows read them).
        rules: the kinds a scan would report and their thresholds.
        window: the raw surprise window size (the heat map's windows when surprise is not reported).
        threshold: the raw surprise threshold tau, likewise.
        consensus: votes a token needs for a raw surprise span.
        first_line: first line to show (1-based).
        last_line: last line to show.
        model: the model's name, for the header.
        scan_scores: the scores a scan reads (:func:`smscan.plan.pieces.score_planned`: the
            planned pieces, each candidate with its left context), from which the verdicts are
            made, so "reported" is what a scan reports; None reads ``scores``.

    Returns:
        The heat map tokens, top windows and span verdicts of those lines.
    """
    view = _view(document.text, scores, rules, window, threshold, consensus, first_line, last_line)
    # The heat map draws every token from the whole file's scores; the verdicts read the scores a
    # scan reads. A candidate scored with a file's whole left context and with its piece's few
    # lines differs near the threshold, and `explain` must say what `repo` reports.
    judged = scores if scan_scores is None else scan_scores
    result = scan([document], _ScoredOnce(judged), rules.surprise, detections=rules.detections, whole_documents=True)  # type: ignore[arg-type]  # _ScoredOnce answers score_texts, all the stage asks
    found = list(result.findings)
    reported = replace(result, findings=list(found))
    decide(reported, [document], kinds=None)
    kept = {id(finding) for finding in reported.findings}
    detectors = {detection.detector.kind: detection.detector for detection in rules.detections}
    verdicts, sensitive, shown = _finding_verdicts(found, kept, result, scores, view, detectors)
    verdicts += _candidate_verdicts(document, judged, scores, rules, view, shown, sensitive)
    verdicts.sort(key=lambda v: (v.line, v.column, v.kind))
    return Explanation(
        path=document.path, text=document.text, first_line=first_line, last_line=last_line, model=model,
        window=view.window, surprise_threshold=view.tau, tokens=_heat(scores, view), windows=_top_windows(scores, view),
        spans=tuple(verdicts), sensitive=tuple(sensitive), kinds=rules.kinds,
        local_selection=_local_selection(rules),
    )


def _local_selection(rules: Rules) -> str:
    surprise = rules.surprise
    if surprise is None or surprise.ranking != "local":
        return ""
    return f"local ranking: windows ranked below {surprise.rank_max:g} among {surprise.neighbours} neighbours each side"


def _view(
    text: str, scores: TokenScores, rules: Rules, window: int, threshold: float, consensus: int,
    first_line: int, last_line: int,
) -> _View:
    starts = line_starts(text)
    hi = starts[last_line] if last_line < len(starts) else len(text)
    surprise = rules.surprise
    size = surprise.window if surprise is not None else window
    tau = surprise.threshold if surprise is not None else threshold
    k = surprise.consensus if surprise is not None else consensus
    windows = fixed_windows(scores.nll, size=size)
    if surprise is not None and surprise.ranking == "local":
        selected = select_local(windows, neighbours=surprise.neighbours, rank_max=surprise.rank_max)
    else:
        selected = select_global(windows, threshold=tau)
    return _View(starts[first_line - 1], hi, starts, size, tau, k, windows, selected)


def _finding_verdicts(
    found: list[Finding], kept: set[int], result: ScanResult, scores: TokenScores, view: _View,
    detectors: dict[str, Detector],
) -> tuple[list[SpanVerdict], list[tuple[int, int]], set[tuple[str, int, int]]]:
    """A verdict per finding the detectors made in view, with why the scan keeps or drops it."""
    votes = np.zeros(len(scores), dtype=np.int64)
    for chosen in np.flatnonzero(view.selected):
        votes[view.windows.starts[chosen] : view.windows.ends[chosen]] += 1
    verdicts: list[SpanVerdict] = []
    sensitive: list[tuple[int, int]] = []
    shown: set[tuple[str, int, int]] = set()
    for finding in found:
        if finding.kind == SURPRISE or (finding.kind in detectors and detectors[finding.kind].sensitive):
            sensitive.append((finding.char_start, finding.char_end))
        if not view.shows(finding.char_start, finding.char_end):
            continue
        shown.add((finding.kind, finding.char_start, finding.char_end))
        reasons = _finding_reasons(finding, scores, votes, view.consensus, detectors)
        if is_allowed(finding, result.lines.get(finding.path, {})):
            reasons.append("suppressed by an allow comment on its line (smscan: ignore)")
        elif id(finding) not in kept:
            reasons.append("not reported: the credential finding on its line is reported instead")
        verdicts.append(_verdict(finding.kind, finding.char_start, finding.char_end, finding.score,
                                 finding.threshold, id(finding) in kept, reasons, view.position))
    return verdicts, sensitive, shown


def _candidate_verdicts(
    document: Document, judged: TokenScores, scores: TokenScores, rules: Rules, view: _View,
    shown: set[tuple[str, int, int]], sensitive: list[tuple[int, int]],
) -> list[SpanVerdict]:
    """Near misses of every detector (from the scores a scan reads, ``judged``), and the spans a
    detector drops before scoring (shown with the whole file's windows, ``scores``)."""
    verdicts: list[SpanVerdict] = []
    for detection in rules.detections:
        detector = detection.detector
        if not detector.applies_to(document.path):
            continue
        for candidate in detector.candidates(document.text, judged, path=document.path):
            if detector.sensitive:
                sensitive.append((candidate.char_start, candidate.char_end))
            key = (detector.kind, candidate.char_start, candidate.char_end)
            if key in shown or not view.shows(candidate.char_start, candidate.char_end):
                continue
            if candidate.score < detection.threshold - NEAR:
                continue
            reasons = [f"below the threshold by {detection.threshold - candidate.score:.2f}"]
            reasons += _evidence(detector, candidate.score, dict(candidate.details))
            verdicts.append(_verdict(detector.kind, candidate.char_start, candidate.char_end, candidate.score,
                                     detection.threshold, False, reasons, view.position))
        for dropped in detector.dropped(document.text, scores, view.windows, tau=view.tau, near=NEAR,
                                        path=document.path):
            if view.shows(dropped.start, dropped.end):
                verdicts.append(_verdict(detector.kind, dropped.start, dropped.end, dropped.surprise,
                                         detection.threshold, False, list(dropped.reasons), view.position))
    return verdicts


def _verdict(kind: str, start: int, end: int, score: float, threshold: float, reported: bool,
             reasons: list[str], position: Position) -> SpanVerdict:
    line, column = position(start)
    end_line, end_column = position(end)
    return SpanVerdict(kind, line, column, end_line, end_column, float(score), float(threshold), reported, tuple(reasons))


def _finding_reasons(
    finding: Finding, scores: TokenScores, votes: np.ndarray, consensus: int, detectors: dict[str, Detector]
) -> list[str]:
    if finding.kind == SURPRISE:
        inside = (scores.char_starts < finding.char_end) & (scores.char_ends > finding.char_start)
        most = int(votes[inside].max()) if inside.any() else 0
        # Under local ranking the score is 100 - the best rank, the threshold 100 - rank_max.
        best = "reaches τ" if not finding.details.get("ranking") else "ranks below rank_max among its neighbours"
        reasons = [f"its best window {best}; up to {most} selected window(s) cover a token (consensus needs {consensus})"]
        if finding.details.get("propagated"):
            reasons.append("an exact repeat of a span flagged elsewhere in the same group (duplicate propagation)")
        return reasons
    return [f"at or above the threshold by {finding.score - finding.threshold:.2f}"] + _evidence(
        detectors[finding.kind], finding.score, finding.details
    )


def _evidence(detector: Detector, score: float, details: dict[str, object]) -> list[str]:
    reasons = detector.reasons(score, details)
    if details.get("propagated"):
        reasons.append("score raised to that of the same value elsewhere (value propagation)")
    return reasons


def _heat(scores: TokenScores, view: _View) -> tuple[TokenHeat, ...]:
    return tuple(
        TokenHeat(int(s), int(e), float(v))
        for s, e, v in zip(scores.char_starts, scores.char_ends, scores.nll)
        if s < view.hi and e > view.lo
    )


def _top_windows(scores: TokenScores, view: _View) -> tuple[WindowScore, ...]:
    windows = view.windows

    def bounds(index: int) -> tuple[int, int]:
        return int(scores.char_starts[windows.starts[index]]), int(scores.char_ends[windows.ends[index] - 1])

    ranked = np.argsort(-np.nan_to_num(windows.scores, nan=-np.inf), kind="stable")
    top = [int(i) for i in ranked if math.isfinite(windows.scores[i]) and view.shows(*bounds(int(i)))][:TOP_WINDOWS]
    out = []
    for index in top:
        char_start, char_end = bounds(index)
        line, column = view.position(char_start)
        out.append(WindowScore(line, column, char_start, char_end, float(windows.scores[index]), bool(view.selected[index])))
    return tuple(out)
