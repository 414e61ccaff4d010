"""`smscan export SOURCE -o OUT`: training-ready masked records (docs/export-format.md).

The command parses its option groups and wires the steps, each in its own module: option checks
before the model loads (export_checks.py), the scorer (export_scoring.py), the rule and
detections (export_rules.py), and the run with progress (export_run.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from smscan.cli.export_checks import check_export_options, parse_placeholders
from smscan.cli.export_options import (
    EngineOptions,
    MaskOptions,
    RecordOptions,
    SetupOptions,
    WriteOptions,
)
from smscan.cli.export_rules import export_rules
from smscan.cli.export_run import ExportRun, run_export_with_progress
from smscan.cli.export_scoring import export_scorer
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
    from smscan.exports.plan import ExportPlan

    services = current_services()
    cluster = check_export_options(source, output, records, write, engine)
    root = source.resolve() if source.is_dir() else source.resolve().parent
    settings = _settings(root, model, mask, setup, services)
    export_source = _source(source, settings, records)
    # Placeholders and the downstream tokenizer are checked before the reference model loads.
    placeholders = parse_placeholders(write.placeholder)
    labeler = None
    if write.tokenizer is not None:
        from smscan.exports.labels import DownstreamLabeler

        labeler = DownstreamLabeler(write.tokenizer)
    scorer, description, fingerprint = export_scorer(settings, engine, write.deterministic, services)
    rules = export_rules(settings, root, fingerprint, mask, write.masking)
    plan = ExportPlan(rules.surprise, rules.detections, mode=write.mode, placeholders=placeholders, labeler=labeler,  # type: ignore[arg-type]  # DownstreamLabeler is called as the plan's labeler type, declared more loosely
                      value_threshold=rules.value_threshold)
    options = {
        "rule": plan.rule_dict(), "format": [records.text_field, records.roles, records.group_by, records.two_pass],
        "tokenizer": write.tokenizer, "deterministic": write.deterministic, "settings": description.get("settings"),
    }
    rejects = write.rejects or output.with_name(output.name + ".rejects.jsonl")
    run = ExportRun(export_source, plan, output, rejects, write.resume, options)
    stats = run_export_with_progress(run, scorer, description, fingerprint, cluster, services)
    _summary(services.err_console(soft_wrap=True), stats, output, rejects)
    if rules.note:  # credential findings left out of the default for an uncalibrated model
        services.err_console(soft_wrap=True).print(rules.note, markup=False)
    if write.labels is not None:
        from smscan.exports.coverage import coverage_report, reference_tokenizer

        report = coverage_report(
            output, write.labels, text_field=records.text_field, roles=records.role_names(),
            reference=reference_tokenizer(scorer), downstream=labeler,
        )
        services.console().print_json(data=report)
    return 1 if stats.rejected else 0


def _settings(root: Path, model: ModelOptions, mask: MaskOptions, setup: SetupOptions, services: Services) -> Any:
    from smscan.cli.scanning import command_settings
    from smscan.errors import SmscanError

    if mask.ranking not in (None, "global", "local"):
        raise SmscanError(f"--ranking must be global or local, got {mask.ranking!r}")
    overrides = model.overrides() | {"kinds": parse_kinds(mask.kinds), "score_cache": cache_override(setup.no_cache)}
    settings = command_settings(root, setup.config, overrides, services)
    _thresholds_files(settings, root, mask.thresholds)
    return settings


def _thresholds_files(settings: Any, root: Path, flag: Path | None) -> None:
    # Read before the model loads: a bad file fails in a second (smscan.cli.scanning.check_inputs).
    from smscan.cli.scanning import check_inputs

    check_inputs(settings, root, thresholds=flag, baseline=None)


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
