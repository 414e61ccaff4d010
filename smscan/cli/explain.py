"""`smscan explain FILE[:LINE[-LINE]]`: why each span of a file was or was not reported.

Reads the file, builds the scorer and rules as a scan does, and renders what the library's
tracing view of the scan's chain found (``smscan/explain.py``). Baselines are not applied.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from smscan.cli.options import (
    ConfigOption,
    DeviceOption,
    DtypeOption,
    InstructionsOption,
    KindsOption,
    ModelOption,
    NoCacheOption,
    NoRedactOption,
    ScoringRuleOption,
    ThresholdOption,
    ThresholdsFileOption,
    cache_override,
    parse_instructions,
    parse_kinds,
)
from smscan.config import load_settings
from smscan.errors import SmscanError
from smscan.explain import explain_document
from smscan.records import Document

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
    scoring_rule: ScoringRuleOption = None,
    instructions: InstructionsOption = None,
) -> int:
    """Show a file's per-token surprisal as a heat map, its most surprising windows, and why each
    flagged or near-threshold span was or was not reported."""
    from smscan.model.chain import build_scorer
    from smscan.rules import scan_rules
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
                   "score_cache": cache_override(no_cache), "scoring_rule": scoring_rule,
                   "instructions": parse_instructions(instructions)},
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
    if settings.scoring_rule == "contrast":
        from smscan.model.chain import score_passes
        from smscan.passes import contrast_windows
        from smscan.reports.passes import render_contrast_passes

        [passes] = score_passes(scorer, settings, [text])
        windows = contrast_windows(text, passes, window=settings.window, first_line=lo, last_line=hi)
        render_contrast_passes(console, text, windows, redact_values=redact)
    return 0
