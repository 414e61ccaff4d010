"""A worker's spending on its clients is bounded (issue 28): connections and descriptors, bytes
per request, time per frame, jobs of clients that left, what its log repeats, core dumps.

Most cases run a real ``WorkerServer`` on a real socket in a thread of the test, with small
limits; the descriptor case and the core-dump limit use a real ``smscan serve`` process.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from smscan.model.passes import ForwardPass, report_pass
from smscan.records import TokenScores
from smscan.scoring.worker_address import open_run_dir
from smscan.scoring.worker_client import WorkerClient
from smscan.scoring.worker_protocol import MAGIC, encode_texts, recv_message, send_message
from smscan.worker.limits import LatencyWindow, ServerLimits
from smscan.worker.server import WorkerServer
from tests.scorers import RandomWordScorer
from tests.worker.conftest import Workers, wait_for_hello

Start = Callable[..., Path]


class SlowScorer(RandomWordScorer):
    """Scores one text per "forward pass" of ``seconds``, reporting each pass as real scorers do."""

    def __init__(self, seconds: float = 0.2) -> None:
        super().__init__()
        self.seconds = seconds

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]:
        out = []
        for index, text in enumerate(texts):
            time.sleep(self.seconds)
            out.append(self._score(text))
            self.texts.append(text)
            report_pass(ForwardPass((index,), len(out[-1]), index + 1, len(texts)))
        return out


@pytest.fixture
def serve(short_run_root: Path) -> Iterator[Start]:
    started: list[tuple[WorkerServer, threading.Thread]] = []

    def start(scorer: object, *, limits: ServerLimits = ServerLimits(), log: Callable[[str], None] | None = None) -> Path:
        run = open_run_dir(short_run_root / "smscan", create=True)
        server = WorkerServer(scorer, run=run, key="0" * 16, model="default", idle_timeout=60, limits=limits, log=log or (lambda line: None))
        thread = threading.Thread(target=server.serve, daemon=True)
        thread.start()
        started.append((server, thread))
        wait_for_hello(server.path, timeout=10)
        return server.path

    yield start
    for server, thread in started:
        server.stop()
        thread.join(timeout=10)
        server.run.close()


def raw_connection(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(str(path))
    except OSError:
        sock.close()
        raise
    return sock


def closed_within(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(seconds)
    try:
        while sock.recv(1 << 16):
            pass
    except socket.timeout:
        return False
    except OSError:
        return True
    return True


def test_a_job_is_cancelled_when_its_client_leaves(serve: Start) -> None:
    scorer = SlowScorer(0.2)
    path = serve(scorer)
    texts = [f"line_{i} = {i}\n" for i in range(50)]  # 10 s of scoring
    leaving = raw_connection(path)
    lengths, payload = encode_texts(texts)
    send_message(leaving, {"op": "score", "lengths": lengths, "wait_s": 1}, payload)
    time.sleep(0.5)
    leaving.close()
    started = time.monotonic()
    with WorkerClient(path) as client:
        scores = client.score(["x = 1\n"], busy_wait=5.0)
    assert len(scores) == 1 and time.monotonic() - started < 3.0
    assert len([text for text in scorer.texts if text in texts]) < 10


def test_a_trickling_client_is_closed_by_total_time(serve: Start) -> None:
    path = serve(RandomWordScorer(), limits=ServerLimits(frame_deadline_s=1.5))
    body = json.dumps({"op": "hello", "v": 1}).encode()
    frame = struct.pack(">4sIQ", MAGIC, len(body), 0) + body
    sock = raw_connection(path)
    started = time.monotonic()
    closed = False
    try:
        for byte in frame[:-1]:  # every byte in time for a per-read timeout, never the whole frame
            sock.sendall(bytes([byte]))
            time.sleep(0.25)
            if time.monotonic() - started > 4:
                break
    except OSError:
        closed = True
    closed = closed or closed_within(sock, 1.0)
    sock.close()
    assert closed and time.monotonic() - started < 5


def test_a_request_over_the_size_cap_is_refused_before_it_is_read(serve: Start) -> None:
    path = serve(RandomWordScorer(), limits=ServerLimits(max_request_bytes=1 << 20))
    sock = raw_connection(path)
    body = json.dumps({"op": "score", "lengths": [1 << 30], "v": 1}).encode()
    started = time.monotonic()
    sock.sendall(struct.pack(">4sIQ", MAGIC, len(body), 1 << 30) + body)
    sock.settimeout(3)
    reply = recv_message(sock)
    assert reply is not None and reply[0]["ok"] is False
    assert closed_within(sock, 2.0) and time.monotonic() - started < 3
    sock.close()


def test_the_log_repeats_nothing_a_client_chose(serve: Start) -> None:
    lines: list[str] = []
    path = serve(RandomWordScorer(), log=lines.append)
    for header in ({"op": "EVIL\x1b]0;title\x07"}, {"op": "score", "lengths": "EVIL", "wait_s": "EVIL"}):
        with raw_connection(path) as sock:
            send_message(sock, header)
            sock.settimeout(3)
            recv_message(sock)
    with raw_connection(path) as sock:
        sock.sendall(b"EVIL" + b"\0" * 12)
        closed_within(sock, 3)
    assert lines, "the drops were logged"
    assert not any("EVIL" in line or "\x1b" in line for line in lines), lines


def test_idle_connections_past_the_limits_neither_stop_nor_block_the_worker(workers: Workers, tmp_path: Path) -> None:
    def low_descriptor_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))

    process = subprocess.Popen(
        [sys.executable, "-m", "smscan", "serve", "--idle-timeout", "60"], cwd=workers.cwd, env=workers.fake_env,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=low_descriptor_limit,
    )
    workers.processes.append(process)
    wait_for_hello(workers.path(), process)
    idle = []
    for _ in range(150):  # past both the connection limit and the worker's 64 descriptors
        try:
            idle.append(raw_connection(workers.path()))
        except OSError:
            break
    time.sleep(1.0)
    assert process.poll() is None, "the worker died"
    for sock in idle:
        sock.close()
    time.sleep(0.5)
    assert WorkerClient(workers.path()).hello().pid == process.pid


def test_the_worker_process_leaves_no_core_dump(workers: Workers) -> None:
    process = workers.start()
    limits = Path(f"/proc/{process.pid}/limits").read_text(encoding="utf-8")
    core = next(line for line in limits.splitlines() if line.startswith("Max core file size"))
    assert core.split()[4:6] == ["0", "0"], core


def test_harden_process_turns_off_dumping() -> None:
    probe = (
        "import ctypes\nfrom smscan.worker.limits import harden_process\n"
        "assert harden_process() == []\nprint(ctypes.CDLL(None).prctl(3, 0, 0, 0, 0))\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0 and run.stdout.strip() == "0", run.stderr


def test_latency_percentiles_are_nearest_rank() -> None:
    window = LatencyWindow()
    assert window.percentiles() == {"count": 0, "p50_ms": None, "p95_ms": None}
    for milliseconds in range(1, 101):
        window.record(milliseconds / 1000)
    assert window.percentiles() == {"count": 100, "p50_ms": 50.0, "p95_ms": 95.0}
