"""`smscan explain FILE[:LINE[-LINE]]`: why each span of a file was or was not reported.

Reads the file, builds the scorer and rules as a scan does, and renders what the library's
tracing view of the scan's chain found (``smscan/decide/explain.py``). Baselines are not applied.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from smscan.cli.groups import command
from smscan.cli.options import ModelOptions, NoRedactOption, ScanOptions
from smscan.cli.scanning import check_inputs, command_settings
from smscan.cli.services import Services, current_services
from smscan.errors import SmscanError
from smscan.records import Document

if TYPE_CHECKING:
    from smscan.model.scorer import Scorer
    from rich.console import Console

    from smscan.config.settings import Settings
    from smscan.reports.explain import Explanation

__all__ = ["explain_command", "parse_target"]

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


@command
def explain_command(
    target: Annotated[str, typer.Argument(metavar="FILE[:LINE[-LINE]]", help="FILE, FILE:LINE or FILE:FIRST-LAST.")],
    *,
    model: ModelOptions,
    scan: ScanOptions,
    no_redact: NoRedactOption = False,
) -> int:
    """Show a file's per-token surprisal as a heat map, its most surprising windows, and why each
    flagged or near-threshold span was or was not reported."""
    from smscan.reports.explain import render_explanation

    services = current_services()
    path, first, last = parse_target(target)
    text = _read_text(path)
    lines = _lines(target, text, first, last)
    explanation, settings, scorer = _explain(path, text, lines, model, scan, services)
    console = services.console()
    redact = not no_redact and (not console.is_terminal or services.is_ci())
    render_explanation(console, explanation, redact_values=redact)
    if settings.scoring_rule == "contrast":
        _render_contrast(console, text, lines, settings, scorer, services, redact=redact)
    return 0


_MAX_EXPLAIN_BYTES = 64 << 20


def _read_text(path: Path) -> str:
    from smscan.fileio.regular import read_regular_file
    from smscan.sources.text import decode_text

    try:  # a regular file only: a FIFO would block, /dev/zero never end
        data = read_regular_file(path, limit=_MAX_EXPLAIN_BYTES)
    except OSError as error:
        raise SmscanError(f"{path}: cannot read the file: {error.strerror or 'not a regular file'}") from error
    if data is None:
        raise SmscanError(f"{path}: over {_MAX_EXPLAIN_BYTES >> 20} MB; explain a smaller file")
    text = decode_text(data)
    if text is None:
        raise SmscanError(f"{path}: not a text file (binary or undecodable)")
    return text


def _lines(target: str, text: str, first: int | None, last: int | None) -> tuple[int, int]:
    line_count = text.count("\n") + (0 if text.endswith("\n") else 1)
    lo, hi = first or 1, min(last or line_count, max(line_count, 1))
    if lo > hi:
        raise SmscanError(f"{target}: the file has {line_count} lines")
    return lo, hi


def _explain(
    path: Path, text: str, lines: tuple[int, int], model: ModelOptions, scan: ScanOptions, services: Services
) -> tuple[Explanation, Settings, Any]:
    """Score the file and trace it through the scan's chain (``smscan.decide.explain``); also the
    settings and scorer it used."""
    from smscan.decide.explain import explain_document
    from smscan.plan.pieces import score_planned
    from smscan.rules.flags import RuleFlags
    from smscan.rules.resolve import resolve_rules
    from smscan.sources.worktree import find_root

    root, _ = find_root(path.resolve().parent)
    settings = command_settings(root, scan.config, model.overrides() | scan.overrides(), services)
    inputs = check_inputs(settings, root, thresholds=scan.thresholds, baseline=None)
    scorer = services.scorer(settings)
    rules = resolve_rules(settings, RuleFlags(thresholds=inputs.thresholds), root=root, fingerprint=scorer.fingerprint)
    try:
        name = path.resolve().relative_to(root).as_posix()
    except ValueError:  # a link to a file outside the root
        name = path.name
    document = Document(name, text, group=root.as_posix())
    [scores] = scorer.score_texts([text])
    # A scan scores each candidate with a little left context (the plan's pieces), raw surprise
    # the whole file: the verdicts read what the scan would.
    scan_scores = scores if rules.surprise is not None else score_planned(
        scorer, [document], [detection.detector for detection in rules.detections]
    )[0]
    explanation = explain_document(
        document, scores, rules,
        window=settings.window, threshold=settings.threshold, consensus=settings.consensus,
        first_line=lines[0], last_line=lines[1], model=str(scorer.describe().get("name", settings.model)),
        scan_scores=scan_scores,
    )
    return explanation, settings, scorer


def _render_contrast(
    console: Console, text: str, lines: tuple[int, int], settings: Settings, scorer: Scorer, services: Services,
    *, redact: bool,
) -> None:
    """Under ``contrast``, each window's NLL under both instructions: which one the text follows."""
    from smscan.scoring.chain import score_passes
    from smscan.engine.passes import contrast_windows
    from smscan.reports.passes import render_contrast_passes

    [passes] = score_passes(scorer, settings, [text], in_process=lambda: services.model_scorer(settings))
    windows = contrast_windows(text, passes, window=settings.window, first_line=lines[0], last_line=lines[1])
    render_contrast_passes(console, text, windows, redact_values=redact)
