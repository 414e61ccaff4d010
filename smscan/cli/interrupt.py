"""Ctrl-C as an exception smscan owns, so it reaches the app's one boundary with its message.

Typer turns a ``KeyboardInterrupt`` raised inside a command into a silent return of 130, which
would drop the line smscan prints and the hint a command adds (export: ``--resume``). While a
command runs, ``sigint_raises_interrupted`` makes SIGINT raise :class:`Interrupted` instead, a
``BaseException`` that is no ``KeyboardInterrupt``: ``finally`` blocks and context managers
still run on the way up (partial files closed, transactions rolled back), and Typer lets it pass.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class Interrupted(BaseException):  # noqa: N818 - named for what happened, like KeyboardInterrupt
    """Ctrl-C during a command; its message, when there is one, says how to continue."""


@contextmanager
def sigint_raises_interrupted() -> Iterator[None]:
    """Within the block, SIGINT raises :class:`Interrupted`.

    Left alone when SIGINT is not Python's default handler (ignored in a background job, or
    another handler installed by a host program) or off the main thread, where no handler can
    be set.
    """
    if threading.current_thread() is not threading.main_thread() or (
        signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise Interrupted()

    previous = signal.signal(signal.SIGINT, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
