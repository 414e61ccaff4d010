"""Options shared by the scanning commands, declared once so every mode spells them the same."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from smscan.cli.scanning import ReportFormat

ModelOption = Annotated[
    Optional[str],
    typer.Option("--model", help="Reference model: 'default', a Hugging Face hub id or a local folder. \\[env: SMSCAN_MODEL]"),
]
DeviceOption = Annotated[Optional[str], typer.Option("--device", help="auto, cpu, cuda or mps.")]
DtypeOption = Annotated[Optional[str], typer.Option("--dtype", help="auto, bf16, fp16 or fp32; int8 on the ctranslate2 runtime.")]
ThresholdOption = Annotated[
    Optional[float], typer.Option("--threshold", help="Mean window NLL (nats) at or above which a window is surprising.")
]
FormatOption = Annotated[ReportFormat, typer.Option("--format", "-f", help="Report format.")]
OutputOption = Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the report to this file.")]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="Print only the summary.")]
NoRedactOption = Annotated[bool, typer.Option("--no-redact", help="Show flagged values in full.")]
ConfigOption = Annotated[Optional[Path], typer.Option("--config", help="Config file (default: .smscan.toml or \\[tool.smscan] in pyproject.toml).")]
BaselineOption = Annotated[
    Optional[Path],
    typer.Option("--baseline", help="Report only findings this baseline does not accept (default: the config's 'baseline')."),
]
KindsOption = Annotated[
    Optional[str],
    typer.Option("--kinds", help="Finding kinds to report, comma-separated: credential, dead-code, surprise. \\[default: credential,dead-code]"),
]
NoCacheOption = Annotated[
    bool,
    typer.Option("--no-cache", help="Score every text again: neither read nor write the score cache (config: score_cache = false)."),
]
ThresholdsFileOption = Annotated[
    Optional[Path],
    typer.Option("--thresholds", help="Calibrated thresholds file (default: the config's 'thresholds', .smscan/thresholds.json, then the packaged defaults)."),
]

ScoringRuleOption = Annotated[
    Optional[str],
    typer.Option("--scoring-rule", help="unprompted, prompted (one instruction) or contrast (violating minus compliant instruction)."),
]
InstructionsOption = Annotated[
    Optional[list[str]],
    typer.Option(
        "--instructions",
        help="A purpose (credentials, personal-data, dead-code) or the instruction text; give it twice "
        "(violating, then compliant) for a custom contrast.",
    ),
]


def parse_kinds(text: str | None) -> tuple[str, ...] | None:
    """``--kinds a,b`` as a tuple (None when not given); Settings validates the names."""
    if text is None:
        return None
    return tuple(kind.strip() for kind in text.split(",") if kind.strip())


def cache_override(no_cache: bool) -> bool | None:
    """``--no-cache`` as a Settings override: False when given, else None (the config decides)."""
    return False if no_cache else None


def parse_instructions(texts: list[str] | None) -> tuple[str, ...] | None:
    """``--instructions`` as a Settings override (None when not given); Settings validates them."""
    return tuple(texts) if texts else None
