"""Secrets scanned through a warm worker stay contained: the worker's log, its run dir, its
answers as the client prints them and the scan's own output never hold a full secret value
(unless ``--no-redact`` asks, shown as the control)."""

from __future__ import annotations

from pathlib import Path

from smscan.scoring.worker_address import run_dir
from smscan.scoring.worker_client import WorkerClient
from tests.worker.conftest import Workers

SECRETS = ("q8Zt3kPx0wLm9Rv2Yc7Hn4Bd", "Lm9Rv2q8Zt3kPx0wHn4BdYc7")


def test_a_worker_keeps_no_secret_in_its_log_or_run_dir(workers: Workers) -> None:
    started = workers.smscan("serve", "--detach", "--idle-timeout", "60", fake=True)
    assert started.returncode == 0, started.stderr
    hello = WorkerClient(workers.path()).hello()
    assert hello.fingerprint == "sha256:random-word-scorer"
    (workers.cwd / "a.py").write_text(f"KEY = '{SECRETS[0]}'\n", encoding="utf-8")
    (workers.cwd / "b.py").write_text(f"token = \"{SECRETS[1]}\"  # deploy\n", encoding="utf-8")
    printed = []
    for report_format in ("text", "json", "sarif"):
        run = workers.smscan("files", "a.py", "b.py", "--kinds", "surprise", "--threshold", "3", "-f", report_format)
        assert run.returncode == 1, run.stderr
        printed.append(run.stdout + run.stderr)
    status = workers.smscan("serve", "--status")
    printed.append(status.stdout + status.stderr)
    assert WorkerClient(workers.path()).status()["texts_scored"] >= 2  # both files went through it (then the score cache)
    control = workers.smscan("files", "a.py", "--kinds", "surprise", "--threshold", "3", "--no-redact")
    assert SECRETS[0] in control.stdout  # the check below can fail
    WorkerClient(workers.path()).stop()
    written = [path for path in run_dir(workers.env).rglob("*") if path.is_file() and not path.is_socket()]
    assert any(path.suffix == ".log" for path in written), written
    for secret in SECRETS:
        for text in printed:
            assert secret not in text
        for path in written:
            assert secret.encode() not in path.read_bytes(), path
