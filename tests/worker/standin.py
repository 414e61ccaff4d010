"""A stand-in at a worker's socket: a real process that says hello as a worker would, then answers
score requests the way its mode says (``python -m tests.worker.standin MODE SOCKET [--listen-fd N]``).

Modes: ``zeros`` (well-formed scores of 0: a forged "nothing here"), ``nan``, ``neginf``, ``hang``
(never answers), ``trickle`` (a valid answer, one byte every half second), ``nested`` (a header
of 200,000 nested lists), ``huge`` (a frame announcing 3 GB), ``garbage`` (an HTTP answer),
``other-version`` (a hello of another smscan). A whole-scan request (the thin client's) is
answered "no findings" with a made-up digest in every mode.
Tokenize requests get honest tokens (``RandomWordScorer``). With ``--listen-fd`` it calls
``listen`` on a socket bound by its parent (another user's process at our socket).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from smscan import __version__
from smscan.records import TokenScores
from smscan.scoring.worker_protocol import MAGIC, PROTOCOL_VERSION, decode_texts, encode_scores, recv_message, send_message
from tests.scorers import RandomWordScorer


def hello(key: str, mode: str = "") -> dict[str, object]:
    scorer = RandomWordScorer()
    return {
        "ok": True, "smscan": "0.0.0-other" if mode == "other-version" else __version__, "protocol": PROTOCOL_VERSION, "key": key, "pid": os.getpid(),
        "executable": os.path.realpath(sys.executable), "model": "default", "fingerprint": scorer.fingerprint,
        "settings": {"key": scorer.settings.key()}, "describe": scorer.describe(), "can_tokenize": True,
    }  # fmt: skip


def forged(texts: list[str], value: float) -> list[TokenScores]:
    scores = RandomWordScorer().tokenize(texts)
    out = []
    for item in scores:
        nll = np.full(len(item), value, dtype=np.float64)
        if len(nll) and value == 0.0:
            nll[0] = np.nan
        out.append(TokenScores(token_ids=item.token_ids, char_starts=item.char_starts, char_ends=item.char_ends, nll=nll))
    return out


def answer(connection: socket.socket, mode: str, key: str) -> None:
    with connection:
        while True:
            message = recv_message(connection)
            if message is None:
                return
            header, payload = message
            op = header.get("op")
            if op in ("hello", "status"):
                send_message(connection, hello(key, mode))
                continue
            if op == "scan":
                empty = {"findings": [], "model": {}, "rule": {}, "stats": {}, "suppressed": {}, "config": "defaults"}
                send_message(connection, {"ok": True, "digest": "0" * 64}, json.dumps(empty).encode())
                continue
            texts = decode_texts(header.get("lengths"), payload)
            if op == "tokenize":
                counts, data = encode_scores(RandomWordScorer().tokenize(texts))
                send_message(connection, {"ok": True, "counts": counts}, data)
                continue
            if mode in ("zeros", "nan", "neginf"):
                value = {"zeros": 0.0, "nan": float("nan"), "neginf": float("-inf")}[mode]
                counts, data = encode_scores(forged(texts, value))
                send_message(connection, {"ok": True, "counts": counts}, data)
            elif mode == "hang":
                time.sleep(3600)
            elif mode == "trickle":
                counts, data = encode_scores(forged(texts, 0.0))
                body = f'{{"ok":true,"counts":{counts},"v":{PROTOCOL_VERSION}}}'.encode().replace(b" ", b"")
                frame = struct.pack(">4sIQ", MAGIC, len(body), len(data)) + body + data
                for index in range(len(frame)):
                    connection.sendall(frame[index : index + 1])
                    time.sleep(0.5)
            elif mode == "nested":
                body = b'{"ok":true,"v":1,"counts":' + b"[" * 200_000 + b"]" * 200_000 + b"}"
                connection.sendall(struct.pack(">4sIQ", MAGIC, len(body), 0) + body)
            elif mode == "huge":
                connection.sendall(struct.pack(">4sIQ", MAGIC, 2, 3_000_000_000) + b"{}")
                connection.sendall(b"\0" * (1 << 20))
                time.sleep(3600)
            else:
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")


@contextmanager
def served_by_another_user(path: Path, key: str, uid: int) -> Iterator[None]:
    """A process of user ``uid`` answering "zeros" at ``path`` for the block: the socket is bound
    here, and the forked process drops to that user before it listens (SO_PEERCRED reports who
    called listen())."""
    path.parent.mkdir(mode=0o700, parents=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    child = os.fork()
    if child == 0:  # pragma: no cover - the other user's process
        try:
            os.setgid(65534)
            os.setuid(uid)
            listener.listen(4)
            while True:
                connection, _ = listener.accept()
                answer(connection, "zeros", key)
        finally:
            os._exit(0)
    listener.close()
    try:
        time.sleep(0.5)
        yield
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)


def main() -> None:
    mode, path, key = sys.argv[1:4]
    if len(sys.argv) > 5 and sys.argv[4] == "--listen-fd":
        listener = socket.socket(fileno=int(sys.argv[5]))
    else:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
    listener.listen(8)
    print("listening", flush=True)
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=answer, args=(connection, mode, key), daemon=True).start()


if __name__ == "__main__":
    main()
