"""The option groups of `smscan calibrate` and `smscan eval`: the labelled data, how a threshold
is chosen, the rule of --kind surprise, and what both share (config, score cache, plot)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Optional

import typer

from smscan.cli.options import (
    FLAG,
    ConfigOption,
    ConsensusOption,
    NeighboursOption,
    RankingOption,
    RankMaxOption,
    finite_float,
)

KindArgument = Annotated[str, typer.Option("--kind", metavar="KIND", help="credential, dead-code, or surprise (raw masking for export).")]
LabelsOption = Annotated[
    Optional[Path],
    typer.Option("--labels", metavar="FILE", help="Labelled JSONL: credential spans or dead-code lines (docs/thresholds-format.md)."),
]
ScoreCacheOption = Annotated[
    Optional[Path],
    typer.Option("--score-cache", metavar="DIR", help="Folder of cached token scores (default: ~/.cache/smscan/scores)."),
]


@dataclass(frozen=True)
class MeasureOptions:
    """What calibrate and eval share besides the model: the config, the score cache, a plot."""

    config: ConfigOption = None
    score_cache: ScoreCacheOption = None
    plot: Annotated[Optional[Path], typer.Option("--plot", metavar="FILE", help="Draw the ROC curve and score distributions to this image (needs the 'plot' extra).")] = None


@dataclass(frozen=True)
class DataOptions:
    """The labelled data: a file, or synthetic data planted in your own files."""

    labels: LabelsOption = None
    synthetic: Annotated[
        Optional[Path],
        typer.Option("--synthetic", metavar="PATH", help="Build labelled data from the files under PATH, planting synthetic credentials or dead lines in memory."),
    ] = None
    seed: Annotated[int, typer.Option("--seed", metavar="N", help="Seed of --synthetic data.")] = 0


@dataclass(frozen=True)
class CriterionOptions:
    """How the threshold is chosen, and the cross-validated estimate."""

    best_f1: Annotated[bool, typer.Option("--best-f1", metavar=FLAG, help="The threshold of best validation F1 (the default).")] = False
    target_recall: Annotated[Optional[float], typer.Option("--target-recall", parser=finite_float, metavar="R", help="The highest threshold reaching this validation recall.")] = None
    max_fpr: Annotated[Optional[float], typer.Option("--max-fpr", parser=finite_float, metavar="F", help="The lowest threshold keeping the validation false-positive rate at or below this.")] = None
    operating_point: Annotated[Optional[str], typer.Option("--operating-point", metavar="NAME", help="SM50, SM70, SM90 or SM95: recall 0.5 ... 0.95.")] = None
    folds: Annotated[int, typer.Option("--folds", metavar="N", help="Folds of the cross-validated estimate (surprise: 0 for none).")] = 5


@dataclass(frozen=True)
class SurpriseRuleOptions:
    """The rule options of --kind surprise (the detectors' rules come from their defaults)."""

    window: Annotated[Optional[int], typer.Option("--window", metavar="N", help="surprise: window length in reference tokens (config: window) [default: 4].")] = None
    consensus: Annotated[Optional[int], typer.Option("--consensus", metavar="K", help="surprise: selected windows a token needs to be masked, k (config: consensus) [default: 1].")] = None
    propagate: Annotated[
        Optional[bool],
        typer.Option("--propagate/--no-propagate", metavar=FLAG, help="surprise: duplicate propagation within a group, in the loop (config: propagate) [default: on]."),
    ] = None
    ranking: Annotated[
        Optional[str],
        typer.Option("--ranking", metavar="global|local", help="surprise: window selection to calibrate: global (threshold in nats) or local (rank_max) (config: ranking) [default: global]."),
    ] = None
    neighbours: Annotated[Optional[int], typer.Option("--neighbours", metavar="N", help="surprise, local ranking: windows compared on each side (config: neighbours) [default: 32].")] = None
    masking: Annotated[str, typer.Option("--masking", metavar="values|paper", help="surprise: values (value-aware, the export's default) or paper (the raw window rule).")] = "values"


@dataclass(frozen=True)
class SelectionOptions:
    """eval --kind surprise: the window selection measured (flags beat the config and the entry)."""

    ranking: RankingOption = None
    rank_max: RankMaxOption = None
    neighbours: NeighboursOption = None
    consensus: ConsensusOption = None
    window: Annotated[Optional[int], typer.Option("--window", metavar="N", help="surprise: window length in reference tokens (config: window) [default: 4].")] = None

    def overrides(self) -> dict[str, object]:
        """The Settings values these flags give (None: not given)."""
        return {"ranking": self.ranking, "rank_max": self.rank_max, "neighbours": self.neighbours,
                "consensus": self.consensus, "window": self.window}

    def given(self) -> list[str]:
        """The flags given, for a refusal under a detector kind."""
        names = {"ranking": "--ranking", "rank_max": "--rank-max", "neighbours": "--neighbours", "consensus": "--consensus", "window": "--window"}
        return [names[key] for key, value in self.overrides().items() if value is not None]


@dataclass(frozen=True)
class PointOptions:
    """The threshold to evaluate at: a saved one (file, operating point) or a given one."""

    thresholds: Annotated[
        Optional[Path],
        typer.Option("--thresholds", metavar="FILE", help="Thresholds file (default lookup: config, .smscan/thresholds.json, packaged)."),
    ] = None
    threshold: Annotated[Optional[float], typer.Option("--threshold", parser=finite_float, metavar="NATS", help="Evaluate at this threshold instead of a saved one.")] = None
    operating_point: Annotated[Optional[str], typer.Option("--operating-point", metavar="NAME", help="A saved operating point (SM50 ... SM95, best-f1) instead of the saved threshold.")] = None
