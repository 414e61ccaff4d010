"""A real worker process (scoring with RandomWordScorer) on a real socket, and its clients."""

from __future__ import annotations

import os
import socket
import struct
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from smscan import __version__
from smscan.config.settings import Settings
from smscan.scoring.chain import build_scorer
from smscan.scoring.worker_client import WorkerClient, WorkerScorer, connect_worker
from smscan.scoring.worker_protocol import PROTOCOL_VERSION, recv_message, send_message
from tests.scorers import RandomWordScorer
from tests.worker.conftest import Workers, wait_for_hello, wait_gone

TEXTS = [
    "def f(x):\n    return x + 1\n",
    "",
    "API_KEY = 'AKIA0123456789abcdefXYZ0123'\n",
    "é 😀 naïve = True\n" * 3,
]


def assert_same_scores(got: list, want: list) -> None:
    assert len(got) == len(want)
    for a, b in zip(got, want):
        for name in ("token_ids", "char_starts", "char_ends", "nll"):
            assert getattr(a, name).dtype == getattr(b, name).dtype
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def no_fallback() -> RandomWordScorer:
    raise AssertionError("the client fell back to scoring in-process")


def test_a_client_scores_through_the_worker_as_in_process(workers: Workers) -> None:
    workers.start()
    scorer = connect_worker(Settings(), fallback=no_fallback, environ=workers.env)
    assert isinstance(scorer, WorkerScorer)
    local = RandomWordScorer()
    assert scorer.fingerprint == local.fingerprint
    assert scorer.settings.key() == local.settings.key()
    assert scorer.describe() == local.describe()
    assert_same_scores(scorer.score_texts(TEXTS), local.score_texts(TEXTS))
    assert scorer.score_texts([]) == []
    assert WorkerClient(workers.path()).status()["texts_scored"] == len(TEXTS)


def test_concurrent_clients_each_get_their_own_scores(workers: Workers) -> None:
    workers.start()
    texts = [[f"token_{i}_{j} = {i * j}\n" * (1 + j) for j in range(5)] for i in range(4)]
    results: dict[int, list] = {}

    def score(i: int) -> None:
        scorer = connect_worker(Settings(), fallback=no_fallback, environ=workers.env)
        assert scorer is not None
        results[i] = [scorer.score_texts([text])[0] for text in texts[i]]

    threads = [threading.Thread(target=score, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for i in range(4):
        assert_same_scores(results[i], RandomWordScorer().score_texts(texts[i]))


def test_idle_timeout_stops_the_worker_and_removes_the_socket(workers: Workers) -> None:
    process = workers.start(idle_timeout="1")
    assert workers.path().exists()
    assert wait_gone(process) == 0
    assert not workers.path().exists()
    assert connect_worker(Settings(), fallback=no_fallback, environ=workers.env) is None


def test_status_and_stop_through_the_cli(workers: Workers) -> None:
    process = workers.start()
    status = workers.smscan("serve", "--status")
    assert status.returncode == 0, status.stderr
    assert f"pid:          {process.pid}" in status.stdout
    assert "fingerprint:  sha256:random-word-scorer" in status.stdout
    assert "texts scored: 0" in status.stdout
    stopped = workers.smscan("serve", "--stop")
    assert stopped.returncode == 0 and f"pid {process.pid}" in stopped.stdout
    assert wait_gone(process) == 0
    assert not workers.path().exists()
    gone = workers.smscan("serve", "--status")
    assert gone.returncode == 1 and "no worker running" in gone.stdout
    assert workers.smscan("serve", "--stop").returncode == 0


def test_a_second_worker_for_the_same_settings_is_refused(workers: Workers) -> None:
    workers.start()
    second = workers.smscan("serve", fake=True)
    assert second.returncode == 2
    assert "already running" in second.stderr and "Traceback" not in second.stderr


def test_detach_starts_a_background_worker(workers: Workers) -> None:
    started = workers.smscan("serve", "--detach", "--idle-timeout", "30", fake=True)
    assert started.returncode == 0, started.stderr
    assert "worker started" in started.stdout
    assert WorkerClient(workers.path()).hello().fingerprint == "sha256:random-word-scorer"
    again = workers.smscan("serve", "--detach", fake=True)
    assert again.returncode == 0 and "already running" in again.stdout


def test_a_stale_socket_file_falls_back_in_process(workers: Workers) -> None:
    local = RandomWordScorer()  # the in-process model, injected as the chain's loader
    path = workers.path()
    path.parent.mkdir(mode=0o700, parents=True)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as dead:
        dead.bind(str(path))  # a worker killed with SIGKILL leaves its socket file behind
    assert path.exists()
    assert connect_worker(Settings(), fallback=no_fallback, environ=workers.env) is None
    scorer = build_scorer(Settings(score_cache=False), environ=workers.env, load=lambda *_, **__: local)
    assert scorer is local


def test_a_worker_that_dies_mid_command_falls_back_in_process(workers: Workers) -> None:
    process = workers.start()
    local = RandomWordScorer()
    scorer = connect_worker(Settings(), fallback=lambda: local, environ=workers.env)
    assert scorer is not None
    assert_same_scores(scorer.score_texts(TEXTS[:1]), local.score_texts(TEXTS[:1]))
    process.kill()
    process.wait()
    assert_same_scores(scorer.score_texts(TEXTS), RandomWordScorer().score_texts(TEXTS))
    assert scorer.fallback_reason is not None
    assert local.texts[-len(TEXTS) :] == TEXTS


def test_a_loose_run_dir_is_refused(workers: Workers) -> None:
    local = RandomWordScorer()  # the in-process model, injected as the chain's loader
    workers.start()
    workers.path().parent.chmod(0o777)
    try:
        assert connect_worker(Settings(), fallback=no_fallback, environ=workers.env) is None
        assert build_scorer(Settings(score_cache=False), environ=workers.env, load=lambda *_, **__: local) is local
        status = workers.smscan("serve", "--status")
        assert status.returncode == 2 and "chmod 700" in status.stderr
    finally:
        workers.path().parent.chmod(0o700)


@pytest.fixture
def impostor(workers: Workers) -> Iterator[Callable[[Callable[[socket.socket], None]], Path]]:
    """Serve the worker's socket path with a hand-written answer, from a thread."""
    listeners: list[socket.socket] = []

    def serve(answer: Callable[[socket.socket], None]) -> Path:
        path = workers.path()
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(path))
        listener.listen(4)
        listeners.append(listener)

        def loop() -> None:
            while True:
                try:
                    connection, _ = listener.accept()
                except OSError:
                    return
                with connection:
                    try:
                        answer(connection)
                    except OSError:  # the client gave up first (a deadline on a loaded machine)
                        pass

        threading.Thread(target=loop, daemon=True).start()
        return path

    yield serve
    for listener in listeners:
        listener.close()


def hello_as(**changes: object) -> Callable[[socket.socket], None]:
    def answer(connection: socket.socket) -> None:
        recv_message(connection)
        header = {
            "ok": True, "smscan": __version__, "protocol": PROTOCOL_VERSION, "key": "", "pid": os.getpid(),
            "executable": os.path.realpath(sys.executable), "model": "default", "fingerprint": "sha256:random-word-scorer",
            "settings": {"key": "ctx512-stride384-fp32"}, "describe": {}, "can_tokenize": False,
        }  # fmt: skip
        send_message(connection, {**header, **changes})

    return answer


@pytest.mark.parametrize(
    "changes",
    [{"smscan": "0.0.0-other"}, {"key": "another-key"}, {"pid": "x"}, {"pid": 1}, {"executable": "/usr/bin/env"}],
)
def test_a_worker_of_another_version_or_key_is_not_used(
    workers: Workers, impostor: Callable, changes: dict[str, object]
) -> None:
    impostor(hello_as(**changes))
    assert connect_worker(Settings(), fallback=no_fallback, environ=workers.env) is None


def test_a_worker_answering_garbage_is_not_used(workers: Workers, impostor: Callable) -> None:
    impostor(lambda connection: connection.sendall(struct.pack(">4sIQ", b"HTTP", 2, 0) + b"{}"))
    assert connect_worker(Settings(), fallback=no_fallback, environ=workers.env) is None


def test_garbage_scores_fall_back_in_process(workers: Workers, impostor: Callable) -> None:
    from smscan.scoring.worker_address import worker_key

    key = worker_key(Settings(), environ=workers.env)
    hello = hello_as(key=key)

    def hello_then_garbage(connection: socket.socket) -> None:
        hello(connection)  # one connection per command: the scores are asked on the same one
        recv_message(connection)
        send_message(connection, {"ok": True, "counts": [1, 2, 3]}, b"\0" * 7)

    impostor(hello_then_garbage)
    local = RandomWordScorer()
    scorer = connect_worker(Settings(), fallback=lambda: local, environ=workers.env)
    assert scorer is not None
    assert_same_scores(scorer.score_texts(TEXTS), RandomWordScorer().score_texts(TEXTS))
    assert "counts" in (scorer.fallback_reason or "")


def test_worker_auto_starts_one_in_the_background(workers: Workers) -> None:
    local = RandomWordScorer()  # the in-process model, injected as the chain's loader
    env = workers.fake_env  # the detached worker must get the fake scorer too
    scorer = build_scorer(Settings(worker="auto", score_cache=False), environ=env, load=lambda *_, **__: local)
    assert scorer is local  # this command scores in-process
    pid = wait_for_hello(workers.path())
    served = build_scorer(Settings(worker="auto", score_cache=False), environ=env, load=lambda *_, **__: local)
    assert isinstance(served, WorkerScorer) and served.hello.pid == pid
    assert build_scorer(Settings(worker="off", score_cache=False), environ=env, load=lambda *_, **__: local) is local


def test_worker_off_never_connects(workers: Workers) -> None:
    local = RandomWordScorer()  # the in-process model, injected as the chain's loader
    workers.start()
    assert build_scorer(Settings(worker="off", score_cache=False), environ=workers.env, load=lambda *_, **__: local) is local
    assert isinstance(build_scorer(Settings(score_cache=False), environ=workers.env, load=lambda *_, **__: local), WorkerScorer)


def test_a_scan_through_the_cli_uses_the_worker_without_importing_torch(workers: Workers) -> None:
    workers.start()
    (workers.cwd / "app.py").write_text("import os\nKEY = 'AKIA0123456789abcdefXYZ0123'\n", encoding="utf-8")
    probe = (
        "import sys\nfrom smscan.cli import main\ncode = main(sys.argv[1:])\n"
        "heavy = sorted(m for m in ('torch', 'transformers') if m in sys.modules)\n"
        "print('HEAVY', heavy, file=sys.stderr)\nsys.exit(code)\n"
    )
    import subprocess
    import sys

    run = subprocess.run(
        [sys.executable, "-c", probe, "files", "app.py", "--kinds", "surprise", "--threshold", "3", "-f", "json"],
        cwd=workers.cwd, env=workers.env, capture_output=True, text=True, timeout=120, check=False,
    )
    assert run.returncode == 1, run.stderr
    assert '"surprise"' in run.stdout and "random-word-scorer" in run.stdout
    assert "HEAVY []" in run.stderr
    assert WorkerClient(workers.path()).status()["texts_scored"] >= 1
