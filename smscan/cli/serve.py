"""`smscan serve`: keep the reference model loaded in a warm worker; `--status`, `--stop`.

The worker serves the settings this folder's config (and the flags) give, so a scan in the same
repository finds it; see smscan/worker/ and README ("Warm worker").
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from smscan.cli.groups import command
from smscan.cli.options import FLAG, ConfigOption, ModelOptions
from smscan.cli.scanning import command_settings
from smscan.cli.services import current_services
from smscan.config.settings import Settings
from smscan.errors import SmscanError

if TYPE_CHECKING:
    from smscan.scoring.worker_client import WorkerClient

_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*([smh]?)")
_UNIT_SECONDS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0}
# A first detached start may pull and convert the default model: give it time.
DETACH_WAIT_S = 600.0


def parse_duration(text: str) -> float:
    """``900``, ``90s``, ``15m`` or ``1h`` as seconds; SmscanError for anything else or zero."""
    match = _DURATION.fullmatch(text.strip().lower())
    if match is None or float(match.group(1)) <= 0:
        raise SmscanError(f"--idle-timeout {text!r}: give a positive duration such as 900, 90s, 15m or 1h")
    return float(match.group(1)) * _UNIT_SECONDS[match.group(2)]


@command
def serve_command(
    *,
    model: ModelOptions,
    threads: Annotated[Optional[int], typer.Option("--threads", metavar="N", help="CPU threads of the model (0: automatic, for a shared machine).")] = None,
    config: ConfigOption = None,
    idle_timeout: Annotated[str, typer.Option("--idle-timeout", metavar="DURATION", help="Stop after this long without a request: 900, 90s, 15m, 1h.")] = "15m",
    detach: Annotated[bool, typer.Option("--detach", metavar=FLAG, help="Start the worker in the background and return once it serves.")] = False,
    stop: Annotated[bool, typer.Option("--stop", metavar=FLAG, help="Stop the worker for these settings.")] = False,
    status: Annotated[bool, typer.Option("--status", metavar=FLAG, help="Show the worker for these settings (exit 1 when none runs).")] = False,
) -> int:
    """Keep the reference model loaded so scans (and the hook) start in well under a second."""
    from smscan.sources.worktree import find_root

    if sum((detach, stop, status)) > 1:
        raise SmscanError("choose one of --detach, --stop and --status")
    root, _ = find_root(Path.cwd())
    settings = command_settings(root, config, model.overrides() | {"threads": threads}, current_services())
    if status:
        return _show_status(settings)
    if stop:
        return _stop(settings)
    seconds = parse_duration(idle_timeout)
    if detach:
        return _detach(settings, seconds)
    return _serve(settings, seconds)


def _client(settings: Settings) -> tuple[Path, WorkerClient]:
    from smscan.scoring.worker_address import (
        check_private_dir,
        run_dir,
        socket_path,
        worker_key,
    )
    from smscan.scoring.worker_client import WorkerClient

    folder = run_dir()
    if folder.exists():
        check_private_dir(folder)
    path = socket_path(folder, worker_key(settings))
    return path, WorkerClient(path)


def _show_status(settings: Settings) -> int:
    from smscan.scoring.worker_client import WorkerUnavailable

    path, client = _client(settings)
    try:
        info = client.status()
    except WorkerUnavailable:
        typer.echo(f"no worker running for model {settings.model} ({path})")
        return 1
    settings_info = info.get("settings", {})
    rows = [
        ("pid", info.get("pid")),
        ("model", info.get("model")),
        ("fingerprint", info.get("fingerprint")),
        ("settings", settings_info.get("key") if isinstance(settings_info, dict) else None),
        ("smscan", f"{info.get('smscan')} (protocol {info.get('protocol')})"),
        ("uptime", f"{float(info.get('uptime_s', 0)):.0f} s"),
        ("texts scored", info.get("texts_scored")),
        ("scans", info.get("scans")),
        ("latency", _latency(info.get("latency"))),
        ("idle timeout", f"{float(info.get('idle_timeout_s', 0)):g} s"),
        ("socket", info.get("socket")),
    ]
    for name, value in rows:
        typer.echo(f"{name + ':':<14}{value}")
    return 0


def _latency(window: object) -> str:
    """``p50 12.0 ms, p95 30.5 ms (20 requests)`` from the worker's status, or "no requests yet"."""
    if not isinstance(window, dict) or not window.get("count"):
        return "no requests yet"
    return f"p50 {window.get('p50_ms')} ms, p95 {window.get('p95_ms')} ms ({window.get('count')} requests)"


def _stop(settings: Settings) -> int:
    from smscan.scoring.worker_client import WorkerUnavailable

    path, client = _client(settings)
    try:
        pid = client.hello().pid
        client.stop()
    except WorkerUnavailable:
        typer.echo(f"no worker running for model {settings.model} ({path})")
        return 0
    deadline = time.monotonic() + 10.0
    while path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    typer.echo(f"stopped the worker (pid {pid})")
    return 0


def _detach(settings: Settings, idle_timeout: float) -> int:
    from smscan.scoring.worker_client import WorkerUnavailable
    from smscan.scoring.worker_spawn import start_detached, wait_until_serving

    path, client = _client(settings)
    try:
        typer.echo(f"a worker is already running (pid {client.hello().pid}) at {path}")
        return 0
    except WorkerUnavailable:
        pass
    pid = wait_until_serving(start_detached(settings, idle_timeout=idle_timeout), settings, timeout=DETACH_WAIT_S)
    typer.echo(f"worker started (pid {pid}) at {path}; it stops after {idle_timeout:g} s idle")
    return 0


def _serve(settings: Settings, idle_timeout: float) -> int:
    from smscan.scoring.worker_address import open_run_dir, run_dir, socket_path, worker_key
    from smscan.worker.limits import harden_process
    from smscan.worker.server import WorkerLock, WorkerServer

    folder = run_dir()
    key = worker_key(settings)
    socket_path(folder, key)  # refuses a path too long for a socket before loading anything
    with open_run_dir(folder, create=True) as run, WorkerLock(run, key):
        missing = harden_process()  # before any scanned text is in memory
        if missing:
            typer.echo(f"smscan worker: could not turn off {' and '.join(missing)}", err=True)
        typer.echo(f"smscan worker: loading model {settings.model}", err=True)
        scorer = _with_own_cache(current_services().model_scorer(settings), settings)
        WorkerServer(scorer, run=run, key=key, model=settings.model, idle_timeout=idle_timeout).serve()
    return 0


def _with_own_cache(scorer: Any, settings: Settings) -> Any:
    """The worker's scorer behind the score cache: clients never store what a worker sends, so
    the worker, which runs the model, stores it (``cached_scorer.py``)."""
    from smscan.scoring.chain import open_score_cache

    cache = open_score_cache(settings, environ=current_services().environ)
    if cache is None or not callable(getattr(scorer, "tokenize", None)):
        return scorer
    from smscan.scoring.cached_scorer import CachedScorer

    return CachedScorer(scorer, cache)
