"""Talk to a running worker: ``WorkerClient`` (requests) and ``WorkerScorer`` (the Scorer protocol).

``connect_worker`` is what ``model/chain.py`` calls. It costs a fresh process almost nothing when
no worker runs (one ``stat`` of the socket), and returns None, never an error, when the worker is
absent, stale, of another smscan or protocol version, serves other settings, or its folder is not
private. A ``WorkerScorer`` whose worker later fails (gone, busy beyond ``BUSY_WAIT_S``, garbage)
scores in this process from then on, loading the model on first need: the worker can slow a
command down, never fail it.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smscan.config.settings import Settings
from smscan.errors import ModelError
from smscan.records import TokenScores
from smscan.scoring.worker_address import WorkerPlaceError, check_private_dir, run_dir, socket_path, worker_key
from smscan.scoring.worker_protocol import (
    PROTOCOL_VERSION,
    ProtocolError,
    decode_scores,
    encode_texts,
    recv_message,
    send_message,
)

CONNECT_TIMEOUT_S = 0.5
HELLO_TIMEOUT_S = 2.0
# How long the worker may queue our batch behind another client's before we score it ourselves.
BUSY_WAIT_S = 3.0
# A batch the worker has started is worth waiting for; this only bounds a worker that hangs.
SCORE_TIMEOUT_S = 600.0


class WorkerUnavailable(Exception):
    """The worker cannot serve this request (gone, busy, failed, or answered garbage)."""


@dataclass(frozen=True, slots=True)
class Hello:
    """A worker's answer to ``hello``: who it is and what it scores with."""

    smscan: str
    protocol: int
    key: str
    pid: int
    model: str
    fingerprint: str
    settings: dict[str, Any]
    describe: dict[str, Any]
    can_tokenize: bool

    @classmethod
    def parse(cls, header: Mapping[str, Any]) -> Hello:
        """Check the types of a hello reply; WorkerUnavailable when it is malformed."""
        try:
            hello = cls(
                smscan=header["smscan"], protocol=header["protocol"], key=header["key"], pid=header["pid"],
                model=header["model"], fingerprint=header["fingerprint"], settings=header["settings"],
                describe=header["describe"], can_tokenize=header["can_tokenize"],
            )  # fmt: skip
        except KeyError as error:
            raise WorkerUnavailable(f"hello without {error}") from error
        types = (str, int, str, int, str, str, dict, dict, bool)
        values = (
            hello.smscan, hello.protocol, hello.key, hello.pid, hello.model, hello.fingerprint,
            hello.settings, hello.describe, hello.can_tokenize,
        )  # fmt: skip
        if not all(isinstance(v, t) for v, t in zip(values, types)) or not isinstance(
            hello.settings.get("key"), str
        ):
            raise WorkerUnavailable("malformed hello")
        return hello


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    """The worker's scoring settings as it reported them; ``key()`` is the worker's own key."""

    key_text: str
    context_tokens: int | None = None
    stride: int | None = None
    dtype: str | None = None
    batch_size: int | None = None

    def key(self) -> str:
        """The same key the worker's in-process settings give (cache keys match)."""
        return self.key_text

    @classmethod
    def from_hello(cls, fields: Mapping[str, Any]) -> WorkerSettings:
        return cls(
            key_text=str(fields["key"]), context_tokens=fields.get("context_tokens"),
            stride=fields.get("stride"), dtype=fields.get("dtype"), batch_size=fields.get("batch_size"),
        )  # fmt: skip


class WorkerClient:
    """Requests to the worker at ``path``; one short connection per request.

    Every failure (connect, timeout, protocol, an error reply) raises ``WorkerUnavailable``.
    """

    def __init__(self, path: Path, *, connect_timeout: float = CONNECT_TIMEOUT_S) -> None:
        self.path = path
        self.connect_timeout = connect_timeout

    def hello(self, *, timeout: float = HELLO_TIMEOUT_S) -> Hello:
        """Who the worker is."""
        header, _ = self._request({"op": "hello"}, timeout=timeout)
        return Hello.parse(header)

    def status(self, *, timeout: float = HELLO_TIMEOUT_S) -> dict[str, Any]:
        """``hello`` plus pid, uptime and counters."""
        header, _ = self._request({"op": "status"}, timeout=timeout)
        return header

    def stop(self, *, timeout: float = HELLO_TIMEOUT_S) -> None:
        """Ask the worker to stop (it removes its socket within a fraction of a second)."""
        self._request({"op": "stop"}, timeout=timeout)

    def score(self, texts: Sequence[str], *, op: str = "score", busy_wait: float = BUSY_WAIT_S) -> list[TokenScores]:
        """Score (``op="tokenize"``: only tokenize) ``texts`` in the worker."""
        lengths, payload = encode_texts(texts)
        header, data = self._request(
            {"op": op, "lengths": lengths, "wait_s": busy_wait}, payload, timeout=SCORE_TIMEOUT_S
        )
        try:
            return decode_scores(header.get("counts"), data, texts=texts)
        except ProtocolError as error:
            raise WorkerUnavailable(str(error)) from error

    def _request(self, header: dict[str, Any], payload: bytes = b"", *, timeout: float) -> tuple[dict[str, Any], bytes]:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(self.connect_timeout)
                sock.connect(str(self.path))
                sock.settimeout(timeout)
                send_message(sock, header, payload)
                reply = recv_message(sock)
        except (OSError, ProtocolError) as error:
            raise WorkerUnavailable(f"{type(error).__name__}: {error}") from error
        if reply is None:
            raise WorkerUnavailable("the worker closed the connection")
        if reply[0].get("ok") is not True:
            raise WorkerUnavailable(str(reply[0].get("error", "the worker refused the request")))
        return reply


class WorkerScorer:
    """The ``Scorer`` protocol through a worker, falling back to this process when it fails.

    Args:
        client: a client whose ``hello`` succeeded.
        hello: that hello.
        fallback: builds the in-process scorer; called at most once, on the first failure.

    Example:
        >>> scorer = connect_worker(settings, fallback=lambda: load_scorer())  # doctest: +SKIP
        >>> scorer.score_texts(["x = 1\\n"])[0].nll  # doctest: +SKIP
    """

    def __init__(self, client: WorkerClient, hello: Hello, *, fallback: Callable[[], Any]) -> None:
        self.client = client
        self.hello = hello
        self.fingerprint = hello.fingerprint
        self.settings = WorkerSettings.from_hello(hello.settings)
        self.fallback_reason: str | None = None
        self._fallback = fallback
        self._local: Any = None

    def describe(self) -> dict[str, object]:
        """The worker's model description (the same as its scorer's in-process ``describe``)."""
        return dict(self.hello.describe)

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]:
        """Score in the worker; after any worker failure, in this process."""
        return self._call("score", texts)

    def tokenize(self, texts: Sequence[str]) -> list[TokenScores]:
        """Tokens and offsets (every ``nll`` NaN), from the worker when it can tokenize."""
        if not self.hello.can_tokenize:
            return list(self._in_process().tokenize(texts))
        return self._call("tokenize", texts)

    def _call(self, op: str, texts: Sequence[str]) -> list[TokenScores]:
        if not texts:
            return []
        if self._local is None and self.fallback_reason is None:
            try:
                return self.client.score(texts, op=op)
            except WorkerUnavailable as error:
                self.fallback_reason = str(error)
        local = self._in_process()
        return list(local.score_texts(texts) if op == "score" else local.tokenize(texts))

    def _in_process(self) -> Any:
        if self._local is None:
            self.fallback_reason = self.fallback_reason or "tokenize needs the model in this process"
            local = self._fallback()
            if local.fingerprint != self.fingerprint or local.settings.key() != self.settings.key():
                raise ModelError(
                    f"the worker (pid {self.hello.pid}) scored with model {self.fingerprint} "
                    f"({self.settings.key()}) but this process loads {local.fingerprint} "
                    f"({local.settings.key()}); run `smscan serve --stop` and scan again"
                )
            self._local = local
        return self._local


def connect_worker(
    settings: Settings,
    *,
    fallback: Callable[[], Any],
    dtype: str | None = None,
    environ: Mapping[str, str] = os.environ,
) -> WorkerScorer | None:
    """A scorer through the worker running for these settings, or None when there is none to use.

    Args:
        settings: the command's settings (model, device, dtype, threads pick the worker).
        fallback: builds the in-process scorer, for when the worker fails mid-command.
        dtype: the command's dtype override.
        environ: where the run dir and the model cache are.

    Returns:
        A ``WorkerScorer``, or None: no socket, a run dir that is not private, no answer within
        ``CONNECT_TIMEOUT_S``/``HELLO_TIMEOUT_S``, or a worker of another version or key.
    """
    folder = run_dir(environ)
    try:
        if not folder.is_dir():
            return None
        key = worker_key(settings, dtype=dtype, environ=environ)
        path = socket_path(folder, key)
        if not path.exists():
            return None
        check_private_dir(folder)
    except (WorkerPlaceError, OSError):
        return None
    client = WorkerClient(path)
    try:
        hello = client.hello()
    except WorkerUnavailable:
        return None
    from smscan import __version__

    if (hello.smscan, hello.protocol, hello.key) != (__version__, PROTOCOL_VERSION, key):
        return None
    return WorkerScorer(client, hello, fallback=fallback)
