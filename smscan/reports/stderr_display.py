"""What every progress display on stderr shares: is it a terminal, writes that never fail the run,
and a ``with`` block that closes the display however the block ends."""

from __future__ import annotations

from types import TracebackType
from typing import TextIO, TypeVar

_Display = TypeVar("_Display", bound="StderrDisplay")


class StderrDisplay:
    """A display writing to ``stream``; subclasses say what ``close`` ends."""

    stream: TextIO

    def close(self) -> None:
        """End the display (erase or keep its last line)."""
        raise NotImplementedError

    def __enter__(self: _Display) -> _Display:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def _write(self, text: str) -> None:
        write_quietly(self.stream, text)


def write_quietly(stream: TextIO, text: str) -> None:
    """Write and flush ``text``; a closed or broken stderr must not fail the scan."""
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError):
        pass


def is_terminal(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal (False for anything that cannot say)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
