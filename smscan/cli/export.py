"""`smscan export SOURCE -o OUT`: training-ready masked records (docs/export-format.md)."""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from smscan.cli.export_options import (
    EngineOptions,
    MaskOptions,
    RecordOptions,
    SetupOptions,
    WriteOptions,
)
from smscan.cli.groups import command
from smscan.cli.options import (
    ModelOptions,
    cache_override,
    parse_kinds,
)
from smscan.cli.services import Services, current_services


@command
def export_command(
    source: Annotated[Path, typer.Argument(metavar="SOURCE", help="A folder or git work tree, or a JSONL/Parquet dataset.")],
    output: Annotated[Path, typer.Option("--output", "-o", metavar="OUT", help="JSONL file to write (atomically).")],
    *,
    records: RecordOptions,
    mask: MaskOptions,
    write: WriteOptions,
    engine: EngineOptions,
    model: ModelOptions,
    setup: SetupOptions,
) -> int:
    """Score SOURCE with the reference model and write each record with its masked spans (and,
    with --tokenizer, training labels). Exit 0 when every record was exported, 1 when some were
    rejected (see the reject file), 2 on a usage or input error."""
    from smscan.exports.masked import ExportPlan

    services = current_services()
    cluster = _check_options(source, output, records, write, engine)
    root = source.resolve() if source.is_dir() else source.resolve().parent
    settings = _settings(root, model, mask, setup, services)
    export_source = _source(source, settings, records)
    # Placeholders and the downstream tokenizer are checked before the reference model loads.
    placeholders = _placeholders(write.placeholder)
    labeler = None
    if write.tokenizer is not None:
        from smscan.exports.labels import DownstreamLabeler

        labeler = DownstreamLabeler(write.tokenizer)
    scorer, description, fingerprint = _scoring(settings, engine, write.deterministic, services)
    rule, detections, value_threshold, note = _rules(settings, root, fingerprint, mask, write.masking)
    plan = ExportPlan(rule, detections, mode=write.mode, placeholders=placeholders, labeler=labeler,  # type: ignore[arg-type]
                      value_threshold=value_threshold)
    options = {
        "rule": plan.rule_dict(), "format": [records.text_field, records.roles, records.group_by, records.two_pass],
        "tokenizer": write.tokenizer, "deterministic": write.deterministic, "settings": description.get("settings"),
    }
    rejects = write.rejects or output.with_name(output.name + ".rejects.jsonl")
    run = _Run(export_source, plan, output, rejects, write.resume, options)
    stats = _export(run, scorer, description, fingerprint, cluster, services)
    _summary(services.err_console(soft_wrap=True), stats, output, rejects)
    if note:  # credential findings left out of the default for an uncalibrated model
        services.err_console(soft_wrap=True).print(note, markup=False)
    if write.labels is not None:
        from smscan.exports.coverage import coverage_report, reference_tokenizer

        report = coverage_report(
            output, write.labels, text_field=records.text_field, roles=records.role_names(),
            reference=reference_tokenizer(scorer), downstream=labeler,
        )
        services.console().print_json(data=report)
    return 1 if stats.rejected else 0


def _check_options(
    source: Path, output: Path, records: RecordOptions, write: WriteOptions, engine: EngineOptions
) -> Any:
    """Every check that needs no model, before the model loads; returns the Ray cluster or None."""
    from smscan.errors import SmscanError

    if write.mode not in ("mask", "redact"):
        raise SmscanError(f"--mode must be mask or redact, got {write.mode!r}")
    if write.masking not in ("values", "paper"):
        raise SmscanError(f"--masking must be values or paper, got {write.masking!r}")
    cluster = _check_engine(engine, labels=write.labels)
    if write.mode == "redact" and write.tokenizer is not None:
        raise SmscanError("--tokenizer labels training data; it does not combine with --mode redact")
    if write.mode == "redact" and write.labels is not None:
        # Redacted texts no longer equal the labelled ones, so nothing could be matched.
        raise SmscanError("--labels measures the masks of --mode mask; run the same export without --mode redact to measure them")
    if not source.exists():
        raise SmscanError(f"{source}: no such file or folder")
    if records.two_pass and (records.group_by is None or source.is_dir() or source.name.lower().endswith(".parquet")):
        raise SmscanError("--two-pass regroups the records of a JSONL dataset: give --group-by FIELD and a JSONL file (sort Parquet by the group field instead)")
    if output.exists() and output.is_dir():
        raise SmscanError(f"{output}: is a folder; give the JSONL file to write")
    if write.labels is not None:
        _check_labels(write.labels)
    if not source.is_dir():
        from smscan.sources.datasets import check_dataset_path

        check_dataset_path(source)
    return cluster


def _settings(root: Path, model: ModelOptions, mask: MaskOptions, setup: SetupOptions, services: Services) -> Any:
    from smscan.cli.scanning import command_settings
    from smscan.errors import SmscanError

    if mask.ranking not in ("global", "local"):
        raise SmscanError(f"--ranking must be global or local, got {mask.ranking!r}")
    overrides = model.overrides() | {"kinds": parse_kinds(mask.kinds), "score_cache": cache_override(setup.no_cache)}
    settings = command_settings(root, setup.config, overrides, services)
    _thresholds_files(settings, root, mask.thresholds)
    return settings


def _thresholds_files(settings: Any, root: Path, flag: Path | None) -> None:
    # Read before the model loads: a bad file fails in a second (smscan.cli.scanning.check_inputs).
    from smscan.cli.scanning import check_inputs

    check_inputs(settings, root, thresholds=flag, baseline=None)


def _scoring(settings: Any, engine: EngineOptions, deterministic: bool, services: Services) -> tuple[Any, dict[str, Any], str]:
    """The scorer (None on Ray: actors load the model), its description and fingerprint."""
    recipe = _scorer_recipe(settings, deterministic=deterministic)
    if engine.engine == "ray":  # actors load the model; the driver only needs its fingerprint
        from smscan.errors import SmscanError
        from smscan.model.load import scorer_fingerprint

        if settings.scoring_rule != "unprompted":  # Ray actors load a bare model: no silent fallback
            raise SmscanError(
                f"--engine ray scores unprompted only; export with --engine local for scoring_rule {settings.scoring_rule}"
            )

        fingerprint = scorer_fingerprint(
            recipe.model, device=recipe.device, dtype=recipe.dtype, runtime=recipe.runtime, pull_if_missing=True
        )
        return recipe, {"fingerprint": fingerprint, "settings": f"ray-{recipe.device}-{recipe.dtype}"}, fingerprint
    # The local engine's scorer is a command's scorer (score cache, lazy model), with the
    # recipe's dtype and batch size, so both engines score alike.
    with services.err_console().status("loading the reference model", spinner="dots"):
        scorer = services.scorer(settings, dtype=recipe.dtype, batch_size=recipe.batch_size)
    description = dict(scorer.describe()) if hasattr(scorer, "describe") else {"fingerprint": scorer.fingerprint}
    return scorer, description, scorer.fingerprint


@dataclass(frozen=True)
class _Run:
    """One export's input, plan and outputs, as both engines take them."""

    source: Any
    plan: Any
    output: Path
    rejects: Path
    resume: bool
    options: dict[str, Any]


def _export(run: _Run, scorer: Any, description: dict[str, Any], fingerprint: str, cluster: Any, services: Services) -> Any:
    """Run the export on the chosen engine with a progress bar on a terminal."""
    import time

    err = services.err_console()
    total = run.source.size()
    from smscan.model.passes import listening

    log = _ExportLog(total)  # outside a terminal: a plain line every few seconds
    with _resume_hint(run.output), _progress(err) as progress, listening(log.forward_pass):
        task = progress.add_task("exporting", total=total, records=0, rate="", tokens="")

        def on_group(group: Any, stats: Any) -> None:
            elapsed = max(time.perf_counter() - stats.started, 1e-9)
            progress.update(
                task, completed=stats.position if total else None, records=stats.records,
                rate=f"{stats.run_records / elapsed:.1f} rec/s", tokens=f"{stats.tokens / elapsed:.0f} tok/s",
            )
            log.group(stats)

        common: dict[str, Any] = {
            "output": run.output, "rejects": run.rejects, "resume": run.resume, "options": run.options, "on_group": on_group,
        }
        if cluster is not None:
            from smscan.exports.ray_engine import run_ray_export

            return run_ray_export(run.source, scorer, run.plan, fingerprint=fingerprint, cluster=cluster, **common)
        from smscan.exports.job import run_export

        return run_export(run.source, scorer, run.plan, model=description, **common)


def _check_labels(labels: Path) -> None:
    """Read --labels before scoring: a bad labels file is found in seconds, not after the export."""
    from smscan.calibration.labels import read_labels
    from smscan.errors import SmscanError

    if not read_labels(labels):
        raise SmscanError(f"{labels}: no labelled rows; nothing to measure the export on")


def _source(path: Path, settings: Any, records: RecordOptions) -> Any:
    from smscan.exports.job import ExportSource
    from smscan.sources.datasets import RecordFormat

    fmt = RecordFormat(text_field=records.text_field, roles=records.role_names(), group_by=records.group_by)

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
    return ExportSource(path, fmt, two_pass=records.two_pass)


def _check_engine(engine: EngineOptions, *, labels: Path | None) -> Any:
    """Refuse an unknown engine, Ray options without Ray, and a missing Ray install, up front.

    Returns:
        The ``RayCluster`` to run on (``--engine ray``), or None for the local engine.
    """
    from smscan.errors import SmscanError

    if engine.engine not in ("local", "ray"):
        raise SmscanError(f"--engine must be local or ray, got {engine.engine!r}")
    if engine.engine == "local":
        given = [name for name, value in (("--ray-address", engine.ray_address), ("--workers", engine.workers),
                                          ("--gpus-per-worker", engine.gpus_per_worker)) if value is not None]
        if given:
            raise SmscanError(f"{', '.join(given)} set(s) up Ray actors: add --engine ray")
        return None
    if labels is not None:
        raise SmscanError("--labels runs with --engine local; measure the Ray export's output with a local run on the same input")
    from smscan.exports.ray_engine import RayCluster, require_ray

    # RayCluster validates the values (e.g. --gpus-per-worker nan; the app's boundary names
    # the flag); whether the cluster can hold the actors is known only once Ray runs.
    cluster = RayCluster(address=engine.ray_address, workers=1 if engine.workers is None else engine.workers,
                         gpus_per_worker=0.0 if engine.gpus_per_worker is None else engine.gpus_per_worker)
    require_ray()
    return cluster


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
    settings: Any, root: Path, fingerprint: str, mask: MaskOptions, masking: str = "paper"
) -> tuple[Any, tuple[Any, ...], float | None, str | None]:
    """The masking rule, detections, value threshold (None: raw rule alone) and a note for the
    summary, resolved as every command resolves them (smscan.rules); ``--masking values`` adds
    credential findings to the default kinds (exports/defaults.py)."""
    from smscan.errors import SmscanError
    from smscan.exports.defaults import default_export_detections
    from smscan.exports.rule import MaskRule
    from smscan.rules import RuleFlags, resolve_detections, resolve_surprise

    kinds = settings.kinds or ("surprise",)
    rule, value_threshold = None, None
    if "surprise" in kinds:
        flags = RuleFlags(
            thresholds=mask.thresholds, operating_point=mask.operating_point, window=mask.window,
            threshold=mask.threshold, consensus=mask.consensus, propagate=mask.propagate, masking=masking,
        )
        resolved = resolve_surprise(settings, root=root, fingerprint=fingerprint, flags=flags)
        try:
            rule = MaskRule(
                window=resolved.window, threshold=resolved.threshold,
                ranking=mask.ranking if mask.ranking != "global" else resolved.ranking,  # type: ignore[arg-type]
                rank_max=mask.rank_max, neighbours=mask.neighbours, consensus=resolved.consensus,
                propagate=resolved.propagate,
            )
        except ValueError as error:
            raise SmscanError(f"export rule: {error}") from error
        if masking == "values":
            from smscan.exports.values import DEFAULT_VALUE_THRESHOLD

            value_threshold = DEFAULT_VALUE_THRESHOLD if resolved.value_threshold is None else resolved.value_threshold
    if masking == "values" and not settings.kinds:
        detections, note = default_export_detections(settings, root=root, fingerprint=fingerprint, thresholds=mask.thresholds)
        return rule, detections, value_threshold, note
    detections = resolve_detections(settings, kinds, root=root, fingerprint=fingerprint, thresholds=mask.thresholds)
    return rule, detections, value_threshold, None


def _placeholders(values: list[str] | None) -> dict[str, str]:
    from smscan.errors import SmscanError

    out = {}
    for value in values or []:
        kind, sep, text = value.partition("=")
        if not sep or not kind.strip():
            raise SmscanError(f"--placeholder {value!r}: expected KIND=TEXT, e.g. surprise=<MASKED>")
        out[kind.strip()] = text
    return out


class _ExportLog:
    """Plain progress lines outside a terminal, advanced per forward pass (a folder export is one
    group, so per group alone would be silent until the end)."""

    def __init__(self, total: int | None) -> None:
        import sys

        from smscan.reports.progress import PlainLines

        self.lines = PlainLines(sys.stderr) if not sys.stderr.isatty() else None
        self.total, self.position, self.records, self.tokens = total, 0, 0, 0

    def forward_pass(self, notice: Any) -> None:
        self.tokens += notice.tokens
        self._tick()

    def group(self, stats: Any) -> None:
        self.position, self.records = stats.position, stats.records
        self._tick()

    def _tick(self) -> None:
        if self.lines is not None:
            self.lines.maybe(self._line)

    def _line(self, seconds: float) -> str:
        share = f" {100 * self.position // self.total}% of the input," if self.total else ""
        return f"exporting{share} {self.records} records written, {self.tokens / max(seconds, 1e-9):,.0f} tokens/s"


@contextmanager
def _resume_hint(output: Path) -> Iterator[None]:
    """Ctrl-C says how to continue when the interrupted export kept what --resume needs."""
    from smscan.cli.interrupt import Interrupted

    try:
        yield
    except (KeyboardInterrupt, Interrupted):
        from smscan.exports.writer import has_resume_state

        if has_resume_state(output):
            raise Interrupted(
                f"the finished part of {output} is kept: run the same command with --resume to continue"
            ) from None
        raise


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
    mean = stats.mean_masked_fraction
    console.print(f"exported {stats.records} records to {output} (mean masked fraction {mean:.4f})", markup=False)
    if stats.resumed:
        console.print(f"resumed after {stats.resumed} input records", markup=False)
    if stats.skipped:
        console.print("skipped files: " + ", ".join(f"{k} {v}" for k, v in sorted(stats.skipped.items())), markup=False)
    if stats.rejected:
        reasons = ", ".join(f"{k}: {v}" for k, v in sorted(stats.reasons.items()))
        console.print(f"rejected {stats.rejected} records ({reasons}); see {rejects}", markup=False)
