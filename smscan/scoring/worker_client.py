"""Talk to a running worker: ``WorkerClient`` (requests) and ``WorkerScorer`` (the Scorer protocol).

``connect_worker`` is what ``model/chain.py`` calls. It costs a fresh process almost nothing when
no worker runs (one ``stat`` of the socket), and returns None, never an error, when the worker is
absent, stale, of another smscan or protocol version, serves other settings, or its folder is not
private. A ``WorkerScorer`` whose worker later fails (gone, busy beyond ``BUSY_WAIT_S``, garbage)
scores in this process from then on, loading the model on first need: the worker can slow a
command down, never fail it.

What a client trusts (README, "Security model"): it opens the run dir once (``open_run_dir``),
connects through that descriptor, and keeps that one connection for the whole command, so no
later request can reach another socket put at the same path. The peer must be a process of this
user (``SO_PEERCRED``) whose pid and executable are the ones its hello names, this interpreter,
this smscan and protocol version, and the key of these settings. Every reply must arrive whole
before one deadline, be no larger than its request can need, and hold finite scores in range
(``protocol.py``). Any doubt is a one-line notice on stderr and scoring in this process. A
process of your own user is trusted beyond that: it could edit your hooks as well.
"""

from __future__ import annotations

import os
import socket
import struct
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smscan.config.settings import Settings
from smscan.errors import ModelError
from smscan.records import TokenScores
from smscan.scoring.worker_address import WorkerPlaceError, open_run_dir, run_dir, socket_path, worker_key
from smscan.scoring.worker_protocol import (
    PROTOCOL_VERSION,
    ProtocolError,
    decode_scores,
    encode_texts,
    recv_message,
    reply_limits,
    send_message,
)

CONNECT_TIMEOUT_S = 0.5
HELLO_TIMEOUT_S = 2.0
# How long the worker may queue our batch behind another client's before we score it ourselves.
BUSY_WAIT_S = 3.0
# One deadline per score request, for the whole reply: a base, plus time for the text at a rate
# several times slower than a busy 2-core machine scores (~800 bytes/s), capped.
SCORE_BASE_S = 10.0
SCORE_BYTES_PER_S = 100.0
SCORE_MAX_S = 600.0
# Text per request: well under what a worker takes (``limits.ServerLimits.max_request_bytes``).
REQUEST_BYTES = 8 << 20
# hello and status replies are small JSON objects with no payload.
MAX_INFO_HEADER = 1 << 16
_PEERCRED = struct.Struct("3i")  # struct ucred: pid, uid, gid


class WorkerUnavailable(Exception):
    """The worker cannot serve this request (gone, busy, failed, or answered garbage).

    ``quiet`` is true when nothing listens at the socket (no worker: nothing to say); every other
    reason is worth a notice that the worker was ignored.
    """

    def __init__(self, reason: str, *, quiet: bool = False) -> None:
        super().__init__(reason)
        self.quiet = quiet


def ignored_notice(reason: str) -> None:
    """Say on stderr, in one line, that the warm worker was ignored and why."""
    print(f"smscan: the warm worker was ignored ({reason}); scoring in this process", file=sys.stderr, flush=True)


@dataclass(frozen=True, slots=True)
class Hello:
    """A worker's answer to ``hello``: who it is and what it scores with."""

    smscan: str
    protocol: int
    key: str
    pid: int
    executable: str
    model: str
    fingerprint: str
    settings: dict[str, Any]
    describe: dict[str, Any]
    can_tokenize: bool

    @classmethod
    def parse(cls, header: Mapping[str, Any]) -> Hello:
        """Check the types of a hello reply; WorkerUnavailable when it is malformed."""
        names = ("smscan", "protocol", "key", "pid", "executable", "model", "fingerprint", "settings", "describe", "can_tokenize")
        types = (str, int, str, int, str, str, str, dict, dict, bool)
        if not all(name in header for name in names):
            raise WorkerUnavailable("a hello without the fields of this version")
        values = [header[name] for name in names]
        if not all(isinstance(v, t) and not (t is int and isinstance(v, bool)) for v, t in zip(values, types)) or not isinstance(
            header["settings"].get("key"), str
        ):
            raise WorkerUnavailable("a malformed hello")
        return cls(*values)


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


def _parts(texts: Sequence[str], size: int) -> list[Sequence[str]]:
    # Consecutive runs of texts of at most ``size`` UTF-8 bytes (a longer text alone).
    parts: list[Sequence[str]] = []
    start, total = 0, 0
    for index, text in enumerate(texts):
        length = len(text.encode("utf-8", "surrogatepass"))
        if index > start and total + length > size:
            parts.append(texts[start:index])
            start, total = index, 0
        total += length
    if start < len(texts):
        parts.append(texts[start:])
    return parts


def score_deadline_s(texts: Sequence[str], busy_wait: float) -> float:
    """Seconds a score request may take, whole reply included (see ``SCORE_BASE_S``)."""
    size = sum(len(text) for text in texts)
    return min(busy_wait + SCORE_BASE_S + size / SCORE_BYTES_PER_S, SCORE_MAX_S)


class WorkerClient:
    """Requests to the worker at ``path`` over one connection, made and checked on first use.

    The connection is opened through the run dir's descriptor and its peer checked (module
    docstring); every request of this client goes over it and a broken connection is never
    made again. Every failure (connect, peer, deadline, protocol, an error reply) raises
    ``WorkerUnavailable``.

    Raises:
        WorkerPlaceError: the run dir or its parents are not private (on first use).
    """

    def __init__(self, path: Path, *, connect_timeout: float = CONNECT_TIMEOUT_S) -> None:
        self.path = path
        self.connect_timeout = connect_timeout
        self._sock: socket.socket | None = None
        self._hello: Hello | None = None
        self._broken: str | None = None

    def hello(self, *, timeout: float = HELLO_TIMEOUT_S) -> Hello:
        """Who the worker is (asked and checked when the connection is made)."""
        self._connection(timeout)
        assert self._hello is not None
        return self._hello

    def status(self, *, timeout: float = HELLO_TIMEOUT_S) -> dict[str, Any]:
        """``hello`` plus pid, uptime and counters."""
        header, _ = self._request({"op": "status"}, timeout=timeout, limits=(MAX_INFO_HEADER, 0))
        return header

    def stop(self, *, timeout: float = HELLO_TIMEOUT_S) -> None:
        """Ask the worker to stop (it removes its socket within a fraction of a second)."""
        self._request({"op": "stop"}, timeout=timeout, limits=(MAX_INFO_HEADER, 0))

    def score(self, texts: Sequence[str], *, op: str = "score", busy_wait: float = BUSY_WAIT_S) -> list[TokenScores]:
        """Score (``op="tokenize"``: only tokenize) ``texts`` in the worker, in requests of at
        most ``REQUEST_BYTES`` of text each (a worker refuses larger ones)."""
        scores: list[TokenScores] = []
        for part in _parts(texts, REQUEST_BYTES):
            scores += self._score_part(part, op=op, busy_wait=busy_wait)
        return scores

    def _score_part(self, texts: Sequence[str], *, op: str, busy_wait: float) -> list[TokenScores]:
        lengths, payload = encode_texts(texts)
        header, data = self._request(
            {"op": op, "lengths": lengths, "wait_s": busy_wait}, payload,
            timeout=score_deadline_s(texts, busy_wait), limits=reply_limits(texts),
        )  # fmt: skip
        try:
            return decode_scores(header.get("counts"), data, texts=texts, scored=op == "score")
        except ProtocolError as error:
            self.close()
            raise WorkerUnavailable(str(error)) from error

    def close(self) -> None:
        """Close the connection; this client makes no other."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        self._broken = self._broken or "the connection was closed"

    def __enter__(self) -> WorkerClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        # A client dropped without close() (a one-off hello or status) closes its connection.
        if getattr(self, "_sock", None) is not None:
            self.close()

    def _connection(self, timeout: float) -> socket.socket:
        if self._sock is not None:
            return self._sock
        if self._broken is not None:
            raise WorkerUnavailable(self._broken)
        self._broken = "the first connection failed"  # one connection per client, whatever happens
        try:
            run = open_run_dir(self.path.parent)
        except FileNotFoundError as error:
            raise WorkerUnavailable("no worker folder", quiet=True) from error
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            with run:
                sock.settimeout(self.connect_timeout)
                sock.connect(run.entry(self.path.name))
        except (FileNotFoundError, ConnectionRefusedError) as error:
            sock.close()
            raise WorkerUnavailable("no worker listens", quiet=True) from error
        except OSError as error:
            sock.close()
            raise WorkerUnavailable(f"cannot connect: {error.strerror}") from error
        self._sock = sock
        try:
            pid = self._check_peer(sock)
            header, _ = self._exchange(sock, {"op": "hello"}, timeout=timeout, limits=(MAX_INFO_HEADER, 0))
            hello = Hello.parse(header)
            self._check_hello(hello, pid)
        except WorkerUnavailable:
            self.close()
            raise
        self._hello = hello
        self._broken = None
        return sock

    @staticmethod
    def _check_peer(sock: socket.socket) -> int:
        option = getattr(socket, "SO_PEERCRED", None)
        if option is None:
            raise WorkerUnavailable("this system cannot tell who serves the socket")
        pid, uid, _ = _PEERCRED.unpack(sock.getsockopt(socket.SOL_SOCKET, option, _PEERCRED.size))
        if uid != os.geteuid():
            raise WorkerUnavailable(f"the socket is served by another user (uid {uid})")
        return int(pid)

    @staticmethod
    def _check_hello(hello: Hello, pid: int) -> None:
        if hello.pid != pid:
            raise WorkerUnavailable("the worker names another process than the one serving the socket")
        try:
            running = os.path.realpath(f"/proc/{pid}/exe", strict=True)
        except OSError:
            running = hello.executable  # no /proc: the peer's word, still checked against ours
        if not hello.executable or hello.executable != running or running != os.path.realpath(sys.executable):
            raise WorkerUnavailable("the worker runs another executable than this smscan")

    def _request(
        self, header: dict[str, Any], payload: bytes = b"", *, timeout: float, limits: tuple[int, int]
    ) -> tuple[dict[str, Any], bytes]:
        return self._exchange(self._connection(HELLO_TIMEOUT_S), header, payload, timeout=timeout, limits=limits)

    def _exchange(
        self, sock: socket.socket, header: dict[str, Any], payload: bytes = b"", *, timeout: float, limits: tuple[int, int]
    ) -> tuple[dict[str, Any], bytes]:
        deadline = time.monotonic() + timeout
        try:
            sock.settimeout(timeout)
            send_message(sock, header, payload)
            reply = recv_message(sock, deadline=deadline, max_header=limits[0], max_payload=limits[1])
        except TimeoutError as error:
            self.close()
            raise WorkerUnavailable(f"no whole answer within {timeout:.0f} s") from error
        except ProtocolError as error:
            self.close()
            raise WorkerUnavailable(str(error)) from error
        except OSError as error:
            self.close()
            raise WorkerUnavailable(f"the connection failed: {error.strerror or type(error).__name__}") from error
        if reply is None:
            self.close()
            raise WorkerUnavailable("the worker closed the connection")
        if reply[0].get("ok") is not True:
            # The peer's own words are not repeated: they may be anything.
            raise WorkerUnavailable("busy" if reply[0].get("error") == "busy" else "the worker refused the request")
        return reply


class WorkerScorer:
    """The ``Scorer`` protocol through a worker, falling back to this process when it fails.

    Args:
        client: a client whose ``hello`` succeeded.
        hello: that hello.
        fallback: builds the in-process scorer; called at most once, on the first failure.
        notice: told, once, why the worker was ignored (default: one line on stderr).

    ``answered_by_worker`` is true once any scores came from the worker: the score cache above
    never stores those (only a process that ran the model writes it).

    Example:
        >>> scorer = connect_worker(settings, fallback=lambda: load_scorer())  # doctest: +SKIP
        >>> scorer.score_texts(["x = 1\\n"])[0].nll  # doctest: +SKIP
    """

    def __init__(
        self, client: WorkerClient, hello: Hello, *, fallback: Callable[[], Any], notice: Callable[[str], None] = ignored_notice
    ) -> None:
        self.client = client
        self.hello = hello
        self.fingerprint = hello.fingerprint
        self.settings = WorkerSettings.from_hello(hello.settings)
        self.fallback_reason: str | None = None
        self.answered_by_worker = False
        self.is_remote = True  # LazyScorer remembers no identity of ours
        self._fallback = fallback
        self._notice = notice
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
                scores = self.client.score(texts, op=op)
            except WorkerUnavailable as error:
                self.fallback_reason = str(error)
                self.client.close()
                self._notice(self.fallback_reason)
            else:
                self.answered_by_worker = self.answered_by_worker or op == "score"
                return scores
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
    notice: Callable[[str], None] = ignored_notice,
) -> WorkerScorer | None:
    """A scorer through the worker running for these settings, or None when there is none to use.

    Args:
        settings: the command's settings (model, device, dtype, threads pick the worker).
        fallback: builds the in-process scorer, for when the worker fails mid-command.
        dtype: the command's dtype override.
        environ: where the run dir and the model cache are.
        notice: told why a worker that is there was not used (default: one line on stderr).

    Returns:
        A ``WorkerScorer``, or None: no socket, a run dir that is not private, no answer within
        ``CONNECT_TIMEOUT_S``/``HELLO_TIMEOUT_S``, or a worker of another version or key.
    """
    folder = run_dir(environ)
    try:
        key = worker_key(settings, dtype=dtype, environ=environ)
        path = socket_path(folder, key)
        if not path.exists():  # no worker: one stat, nothing to say
            return None
    except (WorkerPlaceError, OSError):
        return None
    client = WorkerClient(path)
    try:
        hello = client.hello()
    except WorkerUnavailable as error:
        if not error.quiet:
            notice(str(error))
        return None
    except WorkerPlaceError as error:
        notice(str(error))
        return None
    from smscan import __version__

    if (hello.smscan, hello.protocol) != (__version__, PROTOCOL_VERSION):
        notice(f"it runs smscan {hello.smscan[:40]!r} (protocol {hello.protocol}), this is {__version__}")
    elif hello.key != key:
        notice("it serves other settings than its socket's name says")
    else:
        return WorkerScorer(client, hello, fallback=fallback, notice=notice)
    client.close()
    return None
