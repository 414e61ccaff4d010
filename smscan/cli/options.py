"""Options shared by several commands, declared once: single options and option groups.

A group is a frozen dataclass of ``Annotated`` Typer options; a command takes it as one
parameter (``smscan.cli.groups.command`` expands it for Typer). ``ModelOptions`` say which model
runs where; ``ScanOptions`` are what every scanning command (repo, staged, diff, files, hook,
baseline, explain) reads besides the model options; ``ReportOptions`` how a scan's report is written.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from smscan.reports.formats import FORMATS

def finite_float(text: str) -> float:
    """A float option value that is not nan or inf: click's FLOAT accepts them, and with NaN
    every comparison is false (a NaN threshold would report nothing)."""
    try:
        number = float(text)
    except ValueError as error:
        raise typer.BadParameter(f"{text!r} is not a number") from error
    if not math.isfinite(number):
        raise typer.BadParameter(f"{text!r} is not a finite number")
    return number


# Flags take no value: an empty metavar keeps Typer from showing a "<bool>" placeholder in help.
FLAG = ""

ModelOption = Annotated[
    Optional[str],
    typer.Option("--model", metavar="NAME", help="Reference model: 'default', a Hugging Face hub id or a local folder. [env: SMSCAN_MODEL]"),
]
DeviceOption = Annotated[Optional[str], typer.Option("--device", metavar="DEVICE", help="auto, cpu, cuda or mps.")]
DtypeOption = Annotated[Optional[str], typer.Option("--dtype", metavar="DTYPE", help="auto, bf16, fp16 or fp32; int8 on the ctranslate2 runtime.")]
ThresholdOption = Annotated[
    Optional[float], typer.Option("--threshold", parser=finite_float, metavar="NATS", help="Mean window NLL (nats) at or above which a window is surprising.")
]
ConfigOption = Annotated[
    Optional[Path], typer.Option("--config", metavar="FILE", help="Config file (default: .smscan.toml or [tool.smscan] in pyproject.toml).")
]
NoCacheOption = Annotated[
    bool,
    typer.Option("--no-cache", metavar=FLAG, help="Score every text again: neither read nor write the score cache (config: score_cache = false)."),
]
KindsOption = Annotated[
    Optional[str],
    typer.Option("--kinds", metavar="KINDS", help="Finding kinds to report, comma-separated: credential, dead-code, surprise. [default: credential,dead-code]"),
]
NoRedactOption = Annotated[bool, typer.Option("--no-redact", metavar=FLAG, help="Show flagged values in full.")]
BaselineOption = Annotated[
    Optional[Path],
    typer.Option("--baseline", metavar="FILE", help="Report only findings this baseline does not accept (default: the config's 'baseline')."),
]
ThresholdsFileOption = Annotated[
    Optional[Path],
    typer.Option("--thresholds", metavar="FILE", help="Calibrated thresholds file (default: the config's 'thresholds', .smscan/thresholds.json, then the packaged defaults)."),
]

RankingOption = Annotated[
    Optional[str],
    typer.Option("--ranking", metavar="global|local", help="Window selection: global (one threshold) or local (rank among neighbouring windows) (config: ranking) [default: global]."),
]
RankMaxOption = Annotated[
    Optional[float],
    typer.Option("--rank-max", parser=finite_float, metavar="PERCENT", help="Local ranking: select windows ranked below this, 0-100 (config: rank_max) [default: 10]."),
]
NeighboursOption = Annotated[
    Optional[int], typer.Option("--neighbours", metavar="N", help="Local ranking: windows compared on each side (config: neighbours) [default: 32]."),
]
ConsensusOption = Annotated[
    Optional[int], typer.Option("--consensus", metavar="K", help="Selected windows a token needs to be masked, k (config: consensus) [default: 1]."),
]

ScoringRuleOption = Annotated[
    Optional[str],
    typer.Option(
        "--scoring-rule", metavar="RULE",
        help="unprompted, prompted (one instruction) or contrast (violating minus compliant instruction).",
    ),
]
InstructionsOption = Annotated[
    Optional[list[str]],
    typer.Option(
        "--instructions", metavar="TEXT",
        help="A purpose (credentials, personal-data, dead-code) or the instruction text; give it twice "
        "(violating, then compliant) for a custom contrast.",
    ),
]


def _check_format(name: str) -> str:
    if name not in FORMATS:
        raise typer.BadParameter(f"{name!r} is not one of {', '.join(FORMATS)}")
    return name


@dataclass(frozen=True)
class ModelOptions:
    """Which reference model runs, where, and how it scores tokens (smscan/config/instructions.py)."""

    model: ModelOption = None
    device: DeviceOption = None
    dtype: DtypeOption = None
    scoring_rule: ScoringRuleOption = None
    instructions: InstructionsOption = None

    def overrides(self) -> dict[str, Any]:
        return {
            "model": self.model, "device": self.device, "dtype": self.dtype,
            "scoring_rule": self.scoring_rule, "instructions": parse_instructions(self.instructions),
        }


@dataclass(frozen=True)
class ScanOptions:
    """What a scan reports and how it scores: the options every scanning command shares."""

    threshold: ThresholdOption = None
    kinds: KindsOption = None
    thresholds: ThresholdsFileOption = None
    config: ConfigOption = None
    no_cache: NoCacheOption = False
    # The window selection of raw `surprise` findings, as the export and calibrate take it.
    ranking: RankingOption = None
    rank_max: RankMaxOption = None
    neighbours: NeighboursOption = None
    consensus: ConsensusOption = None

    def overrides(self) -> dict[str, Any]:
        """The Settings values these flags give (None: not given; the config decides)."""
        return {
            "threshold": self.threshold, "kinds": parse_kinds(self.kinds), "score_cache": cache_override(self.no_cache),
            "ranking": self.ranking, "rank_max": self.rank_max, "neighbours": self.neighbours, "consensus": self.consensus,
        }


@dataclass(frozen=True)
class ReportOptions:
    """How a scan's report is written."""

    report_format: Annotated[
        str,
        typer.Option("--format", "-f", metavar="|".join(FORMATS), callback=_check_format, help="Report format."),
    ] = "text"
    output: Annotated[Optional[Path], typer.Option("--output", "-o", metavar="FILE", help="Write the report to this file.")] = None
    quiet: Annotated[bool, typer.Option("--quiet", "-q", metavar=FLAG, help="Print only the summary.")] = False
    verbose: Annotated[bool, typer.Option("--verbose", "-v", metavar=FLAG, help="Text report: also name each skipped file and why.")] = False
    no_redact: NoRedactOption = False


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


FLAGS = {
    "model": "--model", "device": "--device", "dtype": "--dtype", "threshold": "--threshold",
    "scoring_rule": "--scoring-rule", "instructions": "--instructions",
    "kinds": "--kinds", "score_cache": "--no-cache", "threads": "--threads", "window": "--window",
    "consensus": "--consensus", "propagate": "--propagate", "ranking": "--ranking", "rank_max": "--rank-max",
    "neighbours": "--neighbours",
}
"""The flag that sets each Settings key, so a bad value's message names what the user typed."""
