"""The option groups of `smscan export`: how records are read, what is masked, what is written,
where it runs, and the setup (config, score cache)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Optional

import typer

from smscan.cli.options import (
    FLAG,
    ConfigOption,
    KindsOption,
    NeighboursOption,
    NoCacheOption,
    RankingOption,
    RankMaxOption,
    finite_float,
)


@dataclass(frozen=True)
class RecordOptions:
    """How records are read from a dataset."""

    text_field: Annotated[Optional[str], typer.Option("--text-field", metavar="FIELD", help="Field holding the text [default: text; chats: messages].")] = None
    roles: Annotated[str, typer.Option("--roles", metavar="ROLES", help="Chat roles whose messages are scored and masked, comma-separated.")] = "assistant"
    group_by: Annotated[Optional[str], typer.Option("--group-by", metavar="FIELD", help="Field whose value groups records for duplicate propagation (groups must be contiguous, or use --two-pass).")] = None
    two_pass: Annotated[bool, typer.Option("--two-pass", metavar=FLAG, help="With --group-by on JSONL: index the input first, then export group by group, so groups need not be contiguous.")] = False

    def role_names(self) -> tuple[str, ...]:
        return tuple(r.strip() for r in self.roles.split(",") if r.strip())


@dataclass(frozen=True)
class MaskOptions:
    """What is masked: the kinds and the raw Surprise Masking rule."""

    kinds: KindsOption = None
    window: Annotated[Optional[int], typer.Option("--window", metavar="N", help="Window length in reference tokens.")] = None
    threshold: Annotated[Optional[float], typer.Option("--threshold", parser=finite_float, metavar="NATS", help="Mean window NLL (nats) at or above which a window is selected (global ranking).")] = None
    consensus: Annotated[Optional[int], typer.Option("--consensus", metavar="K", help="Selected windows a token needs to be masked (k).")] = None
    ranking: RankingOption = None
    rank_max: RankMaxOption = None
    neighbours: NeighboursOption = None
    propagate: Annotated[Optional[bool], typer.Option("--propagate/--no-propagate", metavar=FLAG, help="Duplicate propagation within a group.")] = None
    thresholds: Annotated[Optional[Path], typer.Option("--thresholds", metavar="FILE", help="Thresholds file (smscan calibrate); its 'surprise' entry sets the rule.")] = None
    operating_point: Annotated[Optional[str], typer.Option("--operating-point", metavar="NAME", help="A saved operating point of the surprise entry: SM50, SM70, SM90, SM95, best-f1.")] = None


@dataclass(frozen=True)
class WriteOptions:
    """What is written, and where rejected records go."""

    rejects: Annotated[Optional[Path], typer.Option("--rejects", metavar="FILE", help="Where rejected records go [default: OUT.rejects.jsonl].")] = None
    masking: Annotated[str, typer.Option("--masking", metavar="values|paper", help="values: surprising values masked whole with their repeats, plus credential findings; paper: the paper's raw window rule alone (docs/export-format.md).")] = "values"
    mode: Annotated[str, typer.Option("--mode", metavar="mask|redact", help="mask (spans for training) or redact (placeholders, for release).")] = "mask"
    placeholder: Annotated[Optional[list[str]], typer.Option("--placeholder", metavar="KIND=TEXT", help="The redaction placeholder of a kind (repeatable).")] = None
    tokenizer: Annotated[Optional[str], typer.Option("--tokenizer", metavar="NAME", help="Downstream tokenizer: adds input_ids, attention_mask and labels (-100 where masked).")] = None
    resume: Annotated[bool, typer.Option("--resume", metavar=FLAG, help="Continue an interrupted export of the same input with the same options.")] = False
    deterministic: Annotated[bool, typer.Option("--deterministic", metavar=FLAG, help="fp32 and one chunk per forward pass: scores independent of batching.")] = False
    labels: Annotated[Optional[Path], typer.Option("--labels", metavar="FILE", help="Labelled spans (JSONL) to report target coverage and collateral masking on.")] = None


@dataclass(frozen=True)
class EngineOptions:
    """Where the export runs: this process, or Ray actors."""

    engine: Annotated[str, typer.Option("--engine", metavar="local|ray", help="local (this process) or ray (Ray Data actors; pip install 'smscan[ray]').")] = "local"
    ray_address: Annotated[Optional[str], typer.Option("--ray-address", metavar="ADDRESS", help="--engine ray: 'auto' or ray://HOST:PORT to join a cluster (default: start a local instance).")] = None
    workers: Annotated[Optional[int], typer.Option("--workers", metavar="N", help="--engine ray: model actors, each loading the reference model once (default: 1).")] = None
    gpus_per_worker: Annotated[Optional[float], typer.Option("--gpus-per-worker", parser=finite_float, metavar="GPUS", help="--engine ray: GPUs per actor (default: 0, CPU actors).")] = None


@dataclass(frozen=True)
class SetupOptions:
    """The config file and the score cache."""

    config: ConfigOption = None
    no_cache: NoCacheOption = False
