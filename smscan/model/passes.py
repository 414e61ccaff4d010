"""Forward-pass notices: how a long ``score_texts`` call says how far it got while it runs.

A scorer call may run many forward passes (a batch of files, a huge file's chunks). After each
one, the scorer calls :func:`report_pass`; whoever listens (a progress display, through
:func:`listening`) learns which of the call's texts the pass covered and how many of the call's
tokens are scored so far. Nothing listens by default, and a notice costs one lookup.

A layer that hands a subset of its texts to the scorer below it (the score cache scores only
the texts it lacks) wraps that call in :func:`relabelled`, so listeners always see indices into
the texts they handed over.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ForwardPass:
    """One forward pass of a ``score_texts`` call.

    Attributes:
        texts: indices (into the call's texts) of the texts whose chunks this pass scored.
        tokens: tokens fed in this pass.
        done: tokens fed so far in this call, this pass included.
        total: tokens the whole call feeds.
    """

    texts: tuple[int, ...]
    tokens: int
    done: int
    total: int


Listener = Callable[[ForwardPass], None]
_listener: ContextVar[Listener | None] = ContextVar("smscan_forward_pass_listener", default=None)


def report_pass(forward: ForwardPass) -> None:
    """Tell the listener, if any, about a finished forward pass (called by scorers)."""
    listener = _listener.get()
    if listener is not None:
        listener(forward)


def is_listened_to() -> bool:
    """Whether a listener is set (scorers may skip building notices nobody reads)."""
    return _listener.get() is not None


@contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """Send every forward pass of scorer calls made within the block to ``listener``.

    Example:
        >>> with listening(lambda p: print(p.done, "of", p.total)):  # doctest: +SKIP
        ...     scorer.score_texts(texts)
    """
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)


@contextmanager
def relabelled(indices: Sequence[int]) -> Iterator[None]:
    """Within the block, text ``i`` of a scorer call is reported as ``indices[i]``."""
    outer = _listener.get()
    if outer is None:
        yield
        return
    mapping = list(indices)

    def forward(notice: ForwardPass) -> None:
        outer(ForwardPass(tuple(mapping[i] for i in notice.texts), notice.tokens, notice.done, notice.total))

    token = _listener.set(forward)
    try:
        yield
    finally:
        _listener.reset(token)
