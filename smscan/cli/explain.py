"""`smscan explain FILE[:LINE[-LINE]]`: why each span of a file was or was not reported.

The file is scored once; the same token scores feed the real pipeline (so "reported" means what a
scan reports, allow comments applied) and the views of each stage: raw Surprise Masking windows
and their votes, every detector's candidates with their evidence, and the credential slots the
placeholder and shape rules drop before scoring. Baselines are not applied.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.console import Console

from smscan.cli.options import (
    ConfigOption, DeviceOption, DtypeOption, KindsOption, ModelOption, NoCacheOption, NoRedactOption,
    ThresholdOption, ThresholdsFileOption, cache_override, parse_kinds,
)
from smscan.cli.scanning import ScanRules
from smscan.config import load_settings
from smscan.errors import SmscanError
from smscan.records import Document, Finding, TokenScores
from smscan.reports.explain import Explanation, SpanVerdict, TokenHeat, WindowScore

# Spans and windows this close below their threshold (nats) are shown as near misses.
NEAR = 1.0
TOP_WINDOWS = 8
_TARGET = re.compile(r"^(?P<path>.+?):(?P<first>\d+)(?:-(?P<last>\d+))?$")


def parse_target(target: str) -> tuple[Path, int | None, int | None]:
    """``FILE``, ``FILE:LINE`` or ``FILE:FIRST-LAST`` as a path and 1-based line bounds.

    Example:
        >>> parse_target("src/a.py:3-9"), parse_target("a.py")
        ((PosixPath('src/a.py'), 3, 9), (PosixPath('a.py'), None, None))
    """
    match = _TARGET.match(target)
    if match is None or Path(target).exists():
        return Path(target), None, None
    first = int(match["first"])
    last = int(match["last"]) if match["last"] else first
    if first < 1 or last < first:
        raise SmscanError(f"{target}: lines must be FIRST-LAST with 1 <= FIRST <= LAST")
    return Path(match["path"]), first, last


def explain_command(
    target: Annotated[str, typer.Argument(help="FILE, FILE:LINE or FILE:FIRST-LAST.")],
    model: ModelOption = None,
    device: DeviceOption = None,
    dtype: DtypeOption = None,
    threshold: ThresholdOption = None,
    kinds: KindsOption = None,
    thresholds: ThresholdsFileOption = None,
    no_redact: NoRedactOption = False,
    config: ConfigOption = None,
    no_cache: NoCacheOption = False,
) -> int:
    """Show a file's per-token surprisal as a heat map, its most surprising windows, and why each
    flagged or near-threshold span was or was not reported."""
    from smscan.cli.scanning import scan_rules
    from smscan.model.chain import build_scorer
    from smscan.sources.text import decode_text
    from smscan.sources.worktree import find_root

    path, first, last = parse_target(target)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise SmscanError(f"{path}: cannot read the file: {error.strerror}") from error
    text = decode_text(data)
    if text is None:
        raise SmscanError(f"{path}: not a text file (binary or undecodable)")
    root, _ = find_root(path.resolve().parent)
    settings = load_settings(
        root, explicit=config,
        overrides={"model": model, "device": device, "dtype": dtype, "threshold": threshold, "kinds": parse_kinds(kinds),
                   "score_cache": cache_override(no_cache)},
    )
    scorer = build_scorer(settings)
    rules = scan_rules(settings, root=root, fingerprint=scorer.fingerprint, thresholds=thresholds)
    try:
        name = path.resolve().relative_to(root).as_posix()
    except ValueError:  # a link to a file outside the root
        name = path.name
    [scores] = scorer.score_texts([text])
    line_count = text.count("\n") + (0 if text.endswith("\n") else 1)
    lo, hi = first or 1, min(last or line_count, max(line_count, 1))
    if lo > hi:
        raise SmscanError(f"{target}: the file has {line_count} lines")
    explanation = explain_document(
        Document(name, text, group=root.as_posix()), scores, rules,
        window=settings.window, threshold=settings.threshold, consensus=settings.consensus,
        first_line=lo, last_line=hi, model=str(scorer.describe().get("name", settings.model)),
    )
    from smscan.reports.explain import render_explanation

    console = Console(highlight=False, _environ=os.environ)
    redact = not no_redact and (not console.is_terminal or bool(os.environ.get("CI")))
    render_explanation(console, explanation, redact_values=redact)
    return 0


class _ScoredOnce:
    """A scorer that hands back scores already computed (the pipeline scores one whole text)."""

    def __init__(self, scores: TokenScores, fingerprint: str = "explain") -> None:
        self._scores = scores
        self.fingerprint = fingerprint

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]:
        return [self._scores for _ in texts]


def explain_document(
    document: Document,
    scores: TokenScores,
    rules: ScanRules,
    *,
    window: int,
    threshold: float,
    consensus: int,
    first_line: int,
    last_line: int,
    model: str,
) -> Explanation:
    """Explain lines ``first_line..last_line`` of a scored document under ``rules``.

    Args:
        document: the whole file (``changed_lines`` None).
        scores: its token scores.
        rules: the kinds a scan would report and their thresholds.
        window: the raw surprise window size (the heat map's windows when surprise is not reported).
        threshold: the raw surprise threshold tau, likewise.
        consensus: votes a token needs for a raw surprise span.
        first_line: first line to show (1-based).
        last_line: last line to show.
        model: the model's name, for the header.

    Returns:
        The heat map tokens, top windows and span verdicts of those lines.
    """
    from smscan.detectors.suppress import is_allowed
    from smscan.engine.rules import select_global
    from smscan.engine.windows import fixed_windows
    from smscan.pipeline import scan, without_dead_code_on_credential_lines
    from smscan.regions import line_starts

    text = document.text
    starts = line_starts(text)
    lo = starts[first_line - 1]
    hi = starts[last_line] if last_line < len(starts) else len(text)
    surprise = rules.surprise
    size = surprise.window if surprise is not None else window
    tau = surprise.threshold if surprise is not None else threshold
    k = surprise.consensus if surprise is not None else consensus

    # The heat map draws every token, so the scan reads the whole file's scores, not a plan's.
    result = scan([document], _ScoredOnce(scores), surprise, detections=rules.detections, whole_documents=True)  # type: ignore[arg-type]
    lines = result.lines.get(document.path, {})

    def position(offset: int) -> tuple[int, int]:
        line = int(np.searchsorted(starts, offset, side="right"))
        return line, offset - starts[line - 1] + 1

    def in_range(start: int, end: int) -> bool:
        return start < hi and end > lo

    windows = fixed_windows(scores.nll, size=size)
    selected = select_global(windows, threshold=tau)
    votes = np.zeros(len(scores), dtype=np.int64)
    for chosen in np.flatnonzero(selected):
        votes[windows.starts[chosen] : windows.ends[chosen]] += 1

    verdicts: list[SpanVerdict] = []
    sensitive: list[tuple[int, int]] = []
    reported_spans: set[tuple[str, int, int]] = set()
    # The scan's last decision: a dead-code finding on a line with a reported credential is dropped.
    shown = [finding for finding in result.findings if not is_allowed(finding, lines)]
    kept = {id(finding) for finding in without_dead_code_on_credential_lines(shown)}
    for finding in result.findings:
        if finding.kind in ("surprise", "credential"):
            sensitive.append((finding.char_start, finding.char_end))
        if not in_range(finding.char_start, finding.char_end):
            continue
        reported_spans.add((finding.kind, finding.char_start, finding.char_end))
        reasons = list(_finding_reasons(finding, scores, votes, k))
        allowed = is_allowed(finding, lines)
        if allowed:
            reasons.append("suppressed by an allow comment on its line (smscan: ignore)")
        elif id(finding) not in kept:
            reasons.append("not reported: the credential finding on its line is reported instead")
        verdicts.append(_verdict(finding.kind, finding.char_start, finding.char_end, finding.score,
                                 finding.threshold, id(finding) in kept, reasons, position))

    for detection in rules.detections:
        detector = detection.detector
        if not detector.applies_to(document.path):
            continue
        for candidate in detector.candidates(text, scores):
            if detector.kind == "credential":
                sensitive.append((candidate.char_start, candidate.char_end))
            key = (detector.kind, candidate.char_start, candidate.char_end)
            if key in reported_spans or not in_range(candidate.char_start, candidate.char_end):
                continue
            if candidate.score < detection.threshold - NEAR:
                continue
            reasons = [f"below the threshold by {detection.threshold - candidate.score:.2f}"]
            reasons += _evidence(detector.kind, candidate.score, dict(candidate.details))
            verdicts.append(_verdict(detector.kind, candidate.char_start, candidate.char_end, candidate.score,
                                     detection.threshold, False, reasons, position))
        if detector.kind == "credential":
            verdicts += _dropped_slots(
                text, detector.rule(), scores, size, tau, detection.threshold, in_range, position
            )

    tokens = tuple(
        TokenHeat(int(s), int(e), float(v))
        for s, e, v in zip(scores.char_starts, scores.char_ends, scores.nll)
        if s < hi and e > lo
    )
    top = [
        int(i) for i in np.argsort(-np.nan_to_num(windows.scores, nan=-np.inf), kind="stable")
        if math.isfinite(windows.scores[i])
        and in_range(int(scores.char_starts[windows.starts[i]]), int(scores.char_ends[windows.ends[i] - 1]))
    ][:TOP_WINDOWS]
    window_scores = []
    for index in top:
        char_start = int(scores.char_starts[windows.starts[index]])
        char_end = int(scores.char_ends[windows.ends[index] - 1])
        line, column = position(char_start)
        window_scores.append(WindowScore(line, column, char_start, char_end, float(windows.scores[index]), bool(selected[index])))
    verdicts.sort(key=lambda v: (v.line, v.column, v.kind))
    return Explanation(
        path=document.path, text=text, first_line=first_line, last_line=last_line, model=model,
        window=size, surprise_threshold=tau, tokens=tokens, windows=tuple(window_scores),
        spans=tuple(verdicts), sensitive=tuple(sensitive),
        kinds=tuple((["surprise"] if surprise is not None else []) + [d.detector.kind for d in rules.detections]),
    )


def _verdict(kind: str, start: int, end: int, score: float, threshold: float, reported: bool,
             reasons: list[str], position: Any) -> SpanVerdict:
    line, column = position(start)
    end_line, end_column = position(end)
    return SpanVerdict(kind, line, column, end_line, end_column, float(score), float(threshold), reported, tuple(reasons))


def _finding_reasons(finding: Finding, scores: TokenScores, votes: np.ndarray, consensus: int) -> list[str]:
    if finding.kind == "surprise":
        inside = (scores.char_starts < finding.char_end) & (scores.char_ends > finding.char_start)
        most = int(votes[inside].max()) if inside.any() else 0
        reasons = [f"its best window reaches τ; up to {most} selected window(s) cover a token (consensus needs {consensus})"]
        if finding.details.get("propagated"):
            reasons.append("an exact repeat of a span flagged elsewhere in the same group (duplicate propagation)")
        return reasons
    return [f"at or above the threshold by {finding.score - finding.threshold:.2f}"] + _evidence(
        finding.kind, finding.score, finding.details
    )


def _evidence(kind: str, score: float, details: dict[str, Any]) -> list[str]:
    reasons = []
    if kind == "credential" and "surprise" in details:
        bonus = score - float(details["surprise"])
        reasons.append(
            f"best window surprise {details['surprise']:.2f} {'+' if bonus >= 0 else '-'} place evidence "
            f"{abs(bonus):.2f} (a value in a {details.get('place', '?')}, {details.get('length', '?')} characters)"
        )
    if kind == "dead-code":
        reasons.append(f"line mean NLL {details.get('line_nll', float('nan')):.2f}")
        if details.get("evidence"):
            reasons.append(f"Python evidence: {details['evidence']} (adds the rule's evidence bonus)")
        else:
            reasons.append("no evidence that the line is dead (no evidence bonus)")
    if details.get("propagated"):
        reasons.append("score raised to that of the same value elsewhere (value propagation)")
    return reasons


def _dropped_slots(text: str, rule: dict[str, Any], scores: TokenScores, size: int, tau: float,
                   threshold: float, in_range: Any, position: Any) -> list[SpanVerdict]:
    """Credential slots that the placeholder or shape rules drop before scoring, when surprising."""
    from smscan.detectors.credential import CredentialRule, judge_slot
    from smscan.detectors.placeholders import is_reference, is_stand_in
    from smscan.detectors.slots import find_slots
    from smscan.engine.windows import fixed_windows

    credential_rule = CredentialRule.from_dict(rule)
    windows = fixed_windows(scores.nll, size=size)
    out = []
    for slot in find_slots(text):
        if not in_range(slot.start, slot.end) or judge_slot(text, slot, credential_rule) is not None:
            continue
        value = text[slot.start : slot.end]
        inside = (scores.char_starts < slot.end) & (scores.char_ends > slot.start)
        tokens = np.flatnonzero(inside)
        surprise = math.nan
        if tokens.size:
            overlapping = (windows.starts <= tokens[-1]) & (windows.ends > tokens[0]) & np.isfinite(windows.scores)
            if overlapping.any():
                surprise = float(windows.scores[overlapping].max())
        stand_in = is_stand_in(value)
        if not stand_in and not (surprise >= tau - NEAR):
            continue
        if stand_in:
            why = "a reference to a secret kept elsewhere" if is_reference(value) else "a placeholder or documented example"
            reason = f"{why}: never reported as a credential (placeholder rule)"
        else:
            reason = "not shaped like a credential in this place (an identifier, a URL or path, or too short or plain)"
        out.append(_verdict("credential", slot.start, slot.end, surprise, threshold, False,
                            [reason, f"best window surprise {surprise:.2f}" if math.isfinite(surprise) else "no scored window"], position))
    return out
