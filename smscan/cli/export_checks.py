"""The checks of `smscan export`'s options that need no model: run before the model loads, so a
bad flag or input fails in a second, not after minutes of loading."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from smscan.cli.export_options import EngineOptions, RecordOptions, WriteOptions


def check_export_options(
    source: Path, output: Path, records: RecordOptions, write: WriteOptions, engine: EngineOptions
) -> Any:
    """Every check that needs no model, before the model loads; returns the Ray cluster or None."""
    from smscan.errors import SmscanError

    if write.mode not in ("mask", "redact"):
        raise SmscanError(f"--mode must be mask or redact, got {write.mode!r}")
    if write.masking not in ("values", "paper"):
        raise SmscanError(f"--masking must be values or paper, got {write.masking!r}")
    cluster = check_engine(engine, labels=write.labels)
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
        check_labels(write.labels)
    if not source.is_dir():
        from smscan.sources.datasets import check_dataset_path

        check_dataset_path(source)
    return cluster


def check_engine(engine: EngineOptions, *, labels: Path | None) -> Any:
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


def check_labels(labels: Path) -> None:
    """Read --labels before scoring: a bad labels file is found in seconds, not after the export."""
    from smscan.sources.labels import read_labels
    from smscan.errors import SmscanError

    if not read_labels(labels):
        raise SmscanError(f"{labels}: no labelled rows; nothing to measure the export on")


def parse_placeholders(values: list[str] | None) -> dict[str, str]:
    from smscan.errors import SmscanError

    out = {}
    for value in values or []:
        kind, sep, text = value.partition("=")
        if not sep or not kind.strip():
            raise SmscanError(f"--placeholder {value!r}: expected KIND=TEXT, e.g. surprise=<MASKED>")
        out[kind.strip()] = text
    return out
