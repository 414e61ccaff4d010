"""Talk to a running worker: ``WorkerClient`` (requests) and ``WorkerScorer`` (the Scorer protocol).

``connect_worker`` is what ``model/chain.py`` calls. It costs a fresh process almost nothing when
no worker runs (one ``stat`` of the socket), and returns None, never an error, when the worker is
absent, stale, of another smscan or protocol version, serves other settings, or its folder is not
private. A ``WorkerScorer`` whose worker later fails (gone, busy beyond ``BUSY_WAIT_S``, garbage)
scores in this process from then on, loading the model on first need: the worker can slow a
command down, never fail it.

The connection and what it checks are ``worker_connection.py``; the scores in a reply must also
be finite and in range (``worker_protocol.py``). Any doubt is a one-line notice on stderr and
scoring in this process.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from smscan.config.settings import Settings
from smscan.errors import ModelError
from smscan.records import TokenScores
from smscan.scoring.worker_address import WorkerPlaceError, run_dir, socket_path, worker_key
from smscan.scoring.worker_connection import (
    Hello,
    WorkerConnection,
    WorkerUnavailable,
    ignored_notice,
)
from smscan.scoring.worker_protocol import PROTOCOL_VERSION, ProtocolError, decode_scores, encode_texts, reply_limits

__all__ = ["Hello", "WorkerClient", "WorkerScorer", "WorkerUnavailable", "connect_worker", "ignored_notice"]

# How long the worker may queue our batch behind another client's before we score it ourselves.
BUSY_WAIT_S = 3.0
# One deadline per score request, for the whole reply: a base, plus time for the text at a rate
# several times slower than a busy 2-core machine scores (~800 bytes/s), capped.
SCORE_BASE_S = 10.0
SCORE_BYTES_PER_S = 100.0
SCORE_MAX_S = 600.0
# Text per request: well under what a worker takes (``limits.ServerLimits.max_request_bytes``).
REQUEST_BYTES = 8 << 20


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


class WorkerClient(WorkerConnection):
    """A ``WorkerConnection`` that also scores and tokenizes texts (see its docstring)."""

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
