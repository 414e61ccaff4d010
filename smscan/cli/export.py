"""`smscan export SOURCE -o OUT`: training-ready masked records (docs/export-format.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from smscan.cli.options import (
    ConfigOption, DeviceOption, DtypeOption, KindsOption, ModelOption, NoCacheOption, cache_override, parse_kinds,
)


def export_command(
    source: Annotated[Path, typer.Argument(help="A folder or git work tree, or a JSONL/Parquet dataset.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="JSONL file to write (atomically).")],
    rejects: Annotated[Optional[Path], typer.Option("--rejects", help="Where rejected records go \\[default: OUT.rejects.jsonl].")] = None,
    text_field: Annotated[Optional[str], typer.Option("--text-field", help="Field holding the text \\[default: text; chats: messages].")] = None,
    roles: Annotated[str, typer.Option("--roles", help="Chat roles whose messages are scored and masked, comma-separated.")] = "assistant",
    group_by: Annotated[Optional[str], typer.Option("--group-by", help="Field whose value groups records for duplicate propagation (groups must be contiguous, or use --two-pass).")] = None,
    two_pass: Annotated[bool, typer.Option("--two-pass", help="With --group-by on JSONL: index the input first, then export group by group, so groups need not be contiguous.")] = False,
    kinds: KindsOption = None,
    window: Annotated[Optional[int], typer.Option("--window", help="Window length in reference tokens.")] = None,
    threshold: Annotated[Optional[float], typer.Option("--threshold", help="Mean window NLL (nats) at or above which a window is selected (global ranking).")] = None,
    consensus: Annotated[Optional[int], typer.Option("--consensus", help="Selected windows a token needs to be masked (k).")] = None,
    ranking: Annotated[str, typer.Option("--ranking", help="global (one threshold) or local (rank among neighbouring windows).")] = "global",
    rank_max: Annotated[float, typer.Option("--rank-max", help="Local ranking: select windows ranked below this (0-100).")] = 10.0,
    neighbours: Annotated[int, typer.Option("--neighbours", help="Local ranking: windows compared on each side.")] = 32,
    propagate: Annotated[Optional[bool], typer.Option("--propagate/--no-propagate", help="Duplicate propagation within a group.")] = None,
    thresholds: Annotated[Optional[Path], typer.Option("--thresholds", help="Thresholds file (smscan calibrate); its 'surprise' entry sets the rule.")] = None,
    operating_point: Annotated[Optional[str], typer.Option("--operating-point", help="A saved operating point of the surprise entry: SM50, SM70, SM90, SM95, best-f1.")] = None,
    mode: Annotated[str, typer.Option("--mode", help="mask (spans for training) or redact (placeholders, for release).")] = "mask",
    placeholder: Annotated[Optional[list[str]], typer.Option("--placeholder", help="KIND=TEXT, the redaction placeholder of a kind (repeatable).")] = None,
    tokenizer: Annotated[Optional[str], typer.Option("--tokenizer", help="Downstream tokenizer: adds input_ids, attention_mask and labels (-100 where masked).")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue an interrupted export of the same input with the same options.")] = False,
    deterministic: Annotated[bool, typer.Option("--deterministic", help="fp32 and one chunk per forward pass: scores independent of batching.")] = False,
    labels: Annotated[Optional[Path], typer.Option("--labels", help="Labelled spans (JSONL) to report target coverage and collateral masking on.")] = None,
    engine: Annotated[str, typer.Option("--engine", help="local (this process) or ray (Ray Data actors; pip install 'smscan\\[ray]').")] = "local",
    ray_address: Annotated[Optional[str], typer.Option("--ray-address", help="--engine ray: 'auto' or ray://HOST:PORT to join a cluster (default: start a local instance).")] = None,
    workers: Annotated[Optional[int], typer.Option("--workers", help="--engine ray: model actors, each loading the reference model once (default: 1).")] = None,
    gpus_per_worker: Annotated[Optional[float], typer.Option("--gpus-per-worker", help="--engine ray: GPUs per actor (default: 0, CPU actors).")] = None,
    model: ModelOption = None,
    device: DeviceOption = None,
    dtype: DtypeOption = None,
    config: ConfigOption = None,
    no_cache: NoCacheOption = False,
) -> int:
    """Score SOURCE with the reference model and write each record with its masked spans (and,
    with --tokenizer, training labels). Exit 0 when every record was exported, 1 when some were
    rejected (see the reject file), 2 on a usage or input error."""
    from smscan.config import load_settings
    from smscan.errors import SmscanError
    from smscan.exports.job import ExportSource, run_export
    from smscan.exports.masked import ExportPlan
    from smscan.sources.datasets import RecordFormat

    if mode not in ("mask", "redact"):
        raise SmscanError(f"--mode must be mask or redact, got {mode!r}")
    if ranking not in ("global", "local"):
        raise SmscanError(f"--ranking must be global or local, got {ranking!r}")
    cluster = _check_engine(engine, ray_address=ray_address, workers=workers, gpus_per_worker=gpus_per_worker, labels=labels)
    role_names = tuple(r.strip() for r in roles.split(",") if r.strip())
    if mode == "redact" and tokenizer is not None:
        raise SmscanError("--tokenizer labels training data; it does not combine with --mode redact")
    if mode == "redact" and labels is not None:
        # Redacted texts no longer equal the labelled ones, so nothing could be matched.
        raise SmscanError("--labels measures the masks of --mode mask; run the same export without --mode redact to measure them")
    if not source.exists():
        raise SmscanError(f"{source}: no such file or folder")
    if two_pass and (group_by is None or source.is_dir() or source.name.lower().endswith(".parquet")):
        raise SmscanError("--two-pass regroups the records of a JSONL dataset: give --group-by FIELD and a JSONL file (sort Parquet by the group field instead)")
    if output.exists() and output.is_dir():
        raise SmscanError(f"{output}: is a folder; give the JSONL file to write")
    if labels is not None:
        _check_labels(labels)
    if not source.is_dir():
        from smscan.sources.datasets import check_dataset_path

        check_dataset_path(source)
    root = source.resolve() if source.is_dir() else source.resolve().parent
    settings = load_settings(
        root, explicit=config,
        overrides={
            "model": model, "device": device, "dtype": dtype, "kinds": parse_kinds(kinds),
            "score_cache": cache_override(no_cache),
        },
    )
    export_source = _source(source, settings, RecordFormat(
        text_field=text_field, roles=role_names, group_by=group_by,
    ), two_pass=two_pass)
    if engine == "ray":  # actors load the model; the driver only needs its fingerprint
        recipe, fingerprint = _ray_recipe(settings, deterministic=deterministic)
        description: dict[str, Any] = {"fingerprint": fingerprint, "settings": f"ray-{recipe.device}-{recipe.dtype}"}
    else:
        scorer = _load_scorer(settings, deterministic=deterministic)
        description = dict(scorer.describe()) if hasattr(scorer, "describe") else {"fingerprint": scorer.fingerprint}
        fingerprint = scorer.fingerprint
    rule, detections = _rules(
        settings, root, fingerprint, thresholds=thresholds, operating_point=operating_point,
        window=window, threshold=threshold, consensus=consensus, ranking=ranking, rank_max=rank_max,
        neighbours=neighbours, propagate=propagate,
    )
    labeler = None
    if tokenizer is not None:
        from smscan.exports.labels import DownstreamLabeler

        labeler = DownstreamLabeler(tokenizer)
    plan = ExportPlan(rule, detections, mode=mode, placeholders=_placeholders(placeholder), labeler=labeler)  # type: ignore[arg-type]
    options = {
        "rule": plan.rule_dict(), "format": [text_field, roles, group_by, two_pass], "tokenizer": tokenizer,
        "deterministic": deterministic, "settings": description.get("settings"),
    }
    if rejects is None:
        rejects = output.with_name(output.name + ".rejects.jsonl")
    err = Console(stderr=True)
    total = export_source.size()
    with _progress(err) as progress:
        task = progress.add_task("exporting", total=total, records=0, rate="", tokens="")

        def on_group(group: Any, stats: Any) -> None:
            import time

            elapsed = max(time.perf_counter() - stats.started, 1e-9)
            progress.update(
                task, completed=stats.position if total else None, records=stats.records,
                rate=f"{stats.run_records / elapsed:.1f} rec/s", tokens=f"{stats.tokens / elapsed:.0f} tok/s",
            )

        if cluster is not None:
            from smscan.exports.ray_engine import run_ray_export

            stats = run_ray_export(
                export_source, recipe, plan, output=output, rejects=rejects, resume=resume, options=options,
                fingerprint=fingerprint, cluster=cluster, on_group=on_group,
            )
        else:
            stats = run_export(
                export_source, scorer, plan, output=output, rejects=rejects, resume=resume, options=options,
                model=description, on_group=on_group,
            )
    _summary(Console(stderr=True, highlight=False, soft_wrap=True), stats, output, rejects)
    if labels is not None:
        from smscan.exports.coverage import coverage_report, reference_tokenizer

        report = coverage_report(
            output, labels, text_field=text_field, roles=role_names,
            reference=reference_tokenizer(scorer), downstream=labeler,
        )
        Console(highlight=False).print_json(data=report)
    return 1 if stats.rejected else 0


def _check_labels(labels: Path) -> None:
    """Read --labels before scoring: a bad labels file is found in seconds, not after the export."""
    from smscan.calibration.labels import read_labels
    from smscan.errors import SmscanError

    if not read_labels(labels):
        raise SmscanError(f"{labels}: no labelled rows; nothing to measure the export on")


def _source(path: Path, settings: Any, fmt: Any, *, two_pass: bool = False) -> Any:
    from smscan.exports.job import ExportSource

    if path.is_dir():
        from smscan.sources.selection import Selection
        from smscan.sources.worktree import find_root, iter_worktree

        root, _ = find_root(path)
        selection = Selection.for_root(root, settings)

        def documents() -> Any:
            for item in iter_worktree(path, max_file_bytes=settings.max_file_bytes, path_filter=selection.path_filter):
                refined = selection.refine(item)
                if refined is not None:
                    yield refined

        return ExportSource(path, fmt, documents)
    return ExportSource(path, fmt, two_pass=two_pass)


def _check_engine(
    engine: str, *, ray_address: str | None, workers: int | None, gpus_per_worker: float | None, labels: Path | None
) -> Any:
    """Refuse an unknown engine, Ray options without Ray, and a missing Ray install, up front.

    Returns:
        The ``RayCluster`` to run on (``--engine ray``), or None for the local engine.
    """
    from smscan.errors import SmscanError

    if engine not in ("local", "ray"):
        raise SmscanError(f"--engine must be local or ray, got {engine!r}")
    if engine == "local":
        given = [name for name, value in (("--ray-address", ray_address), ("--workers", workers),
                                          ("--gpus-per-worker", gpus_per_worker)) if value is not None]
        if given:
            raise SmscanError(f"{', '.join(given)} set(s) up Ray actors: add --engine ray")
        return None
    if labels is not None:
        raise SmscanError("--labels runs with --engine local; measure the Ray export's output with a local run on the same input")
    from smscan.exports.ray_engine import RayCluster, require_ray

    # RayCluster validates the values (e.g. --gpus-per-worker nan); whether the cluster can
    # hold the actors is known only once Ray runs (run_ray_export checks it).
    cluster = RayCluster(address=ray_address, workers=1 if workers is None else workers,
                         gpus_per_worker=0.0 if gpus_per_worker is None else gpus_per_worker)
    require_ray()
    return cluster


def _ray_recipe(settings: Any, *, deterministic: bool) -> tuple[Any, str]:
    """How each Ray actor loads the model (as ``_load_scorer`` does here), and its fingerprint."""
    from smscan.errors import SmscanError
    from smscan.model.load import scorer_fingerprint

    if settings.scoring_rule != "unprompted":  # Ray actors load a bare model: no silent fallback
        raise SmscanError(
            f"--engine ray scores unprompted only; export with --engine local for scoring_rule {settings.scoring_rule}"
        )
    recipe = _scorer_recipe(settings, deterministic=deterministic)
    fingerprint = scorer_fingerprint(
        recipe.model, device=recipe.device, dtype=recipe.dtype, runtime=recipe.runtime, pull_if_missing=True
    )
    return recipe, fingerprint


def _load_scorer(settings: Any, *, deterministic: bool) -> Any:
    # The local engine's scorer is a command's scorer (score cache, lazy model): build_scorer
    # with the recipe's dtype and batch size, so both engines score alike.
    from smscan.model.chain import build_scorer

    recipe = _scorer_recipe(settings, deterministic=deterministic)
    with Console(stderr=True).status("loading the reference model", spinner="dots"):
        return build_scorer(settings, dtype=recipe.dtype, batch_size=recipe.batch_size)


def _scorer_recipe(settings: Any, *, deterministic: bool) -> Any:
    """The ``load_scorer`` call of both engines; --deterministic means fp32, one chunk a pass."""
    from smscan.errors import SmscanError
    from smscan.exports.ray_engine import ScorerRecipe

    dtype = settings.dtype
    if deterministic:
        if dtype not in ("auto", "fp32"):
            raise SmscanError(f"--deterministic scores in fp32; it does not combine with --dtype {dtype}")
        dtype = "fp32"
    return ScorerRecipe(
        settings.model, device=settings.device, dtype=dtype, batch_size=1 if deterministic else None,
        threads=settings.threads, runtime=settings.runtime,
    )


def _rules(
    settings: Any, root: Path, fingerprint: str, *, thresholds: Path | None, operating_point: str | None,
    window: int | None, threshold: float | None, consensus: int | None, ranking: str, rank_max: float,
    neighbours: int, propagate: bool | None,
) -> tuple[Any, tuple[Any, ...]]:
    """The raw masking rule and detections, resolved as every command resolves them (smscan.rules)."""
    from smscan.errors import SmscanError
    from smscan.exports.rule import MaskRule
    from smscan.rules import RuleFlags, resolve_detections, resolve_surprise

    kinds = settings.kinds or ("surprise",)
    rule = None
    if "surprise" in kinds:
        flags = RuleFlags(
            thresholds=thresholds, operating_point=operating_point, window=window, threshold=threshold,
            consensus=consensus, propagate=propagate,
        )
        resolved = resolve_surprise(settings, root=root, fingerprint=fingerprint, flags=flags)
        try:
            rule = MaskRule(
                window=resolved.window, threshold=resolved.threshold,
                ranking=ranking if ranking != "global" else resolved.ranking,  # type: ignore[arg-type]
                rank_max=rank_max, neighbours=neighbours, consensus=resolved.consensus, propagate=resolved.propagate,
            )
        except ValueError as error:
            raise SmscanError(f"export rule: {error}") from error
    return rule, resolve_detections(settings, kinds, root=root, fingerprint=fingerprint, thresholds=thresholds)


def _placeholders(values: list[str] | None) -> dict[str, str]:
    from smscan.errors import SmscanError

    out = {}
    for value in values or []:
        kind, sep, text = value.partition("=")
        if not sep or not kind.strip():
            raise SmscanError(f"--placeholder {value!r}: expected KIND=TEXT, e.g. surprise=<MASKED>")
        out[kind.strip()] = text
    return out


def _progress(console: Console) -> Progress:
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[records]} records"),
        TextColumn("{task.fields[rate]}"),
        TextColumn("{task.fields[tokens]}"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )


def _summary(console: Console, stats: Any, output: Path, rejects: Path) -> None:
    mean = stats.masked_fraction_sum / max(stats.run_records, 1)
    console.print(f"exported {stats.records} records to {output} (mean masked fraction {mean:.4f})", markup=False)
    if stats.resumed:
        console.print(f"resumed after {stats.resumed} input records", markup=False)
    if stats.skipped:
        console.print("skipped files: " + ", ".join(f"{k} {v}" for k, v in sorted(stats.skipped.items())), markup=False)
    if stats.rejected:
        reasons = ", ".join(f"{k}: {v}" for k, v in sorted(stats.reasons.items()))
        console.print(f"rejected {stats.rejected} records ({reasons}); see {rejects}", markup=False)
