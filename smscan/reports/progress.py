"""Scan progress on stderr: bytes of text done, with a measured rate, an ETA and the current file.

It advances per forward pass of the model (``smscan.model.passes``), not per batch of files, so
a slow batch still moves. On a terminal it is one line redrawn in place (at most ten times a
second) and erased at the end; elsewhere (CI logs, a pipe) it is a plain line every
``interval`` seconds, no ANSI codes, and a closing summary when any line was printed. It never
writes to stdout, so ``--format json`` and ``-o`` leave the report alone.

A scan feeds it through four calls::

    batch(documents, texts_per_document)   a batch of documents is about to be scored
    forward_pass(notice)                   the scorer finished one forward pass of it
    item_done(item)                        a Document or Skip is handled
    close()                                the scan ended (also on an error or Ctrl-C)

Within a batch, the share of its tokens already fed stands for the share of its bytes done:
passes cost about the same per token, whatever file they come from.
"""

from __future__ import annotations

import shutil
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Protocol, TextIO

from smscan.records import Document, Skip
from smscan.reports.progress_text import format_bytes, format_duration, printable
from smscan.reports.stderr_display import StderrDisplay, is_terminal, write_quietly

INTERVAL_SECONDS = 5.0  # between plain lines outside a terminal
_REDRAW_SECONDS = 0.1  # between redraws on a terminal
_RATE_WINDOW_SECONDS = 30.0  # the rate is measured over the last this many seconds


class PassNotice(Protocol):
    """What ``forward_pass`` reads of a ``smscan.model.passes.ForwardPass``."""

    @property
    def texts(self) -> tuple[int, ...]: ...

    @property
    def tokens(self) -> int: ...

    @property
    def done(self) -> int: ...

    @property
    def total(self) -> int: ...


class ScanProgress(StderrDisplay):
    """Progress of one scan (see the module docstring).

    Args:
        stream: where lines go (stderr).
        documents: the documents the scan will score, for the totals.
        terminal: redraw one line in place; None asks ``stream.isatty()``.
        label: the first word of each line.
        interval: seconds between plain lines outside a terminal.
        clock: seconds, monotonic (tests pass their own).

    Example:
        >>> with ScanProgress(sys.stderr, documents=docs) as progress:  # doctest: +SKIP
        ...     scan(items, scorer, rule, on_item=progress.item_done, on_batch=progress.batch)
    """

    def __init__(
        self,
        stream: TextIO,
        *,
        documents: Sequence[Document],
        terminal: bool | None = None,
        label: str = "scanning",
        interval: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.terminal = is_terminal(stream) if terminal is None else terminal
        self.label = label
        self.interval = INTERVAL_SECONDS if interval is None else interval
        self.clock = clock
        self.total_bytes = sum(_size(document) for document in documents)
        self.total_files = len(documents)
        self.files_done = 0
        self.done_bytes = 0  # bytes of the documents handled
        self.completed = 0.0  # bytes shown: done_bytes plus the estimate within the batch
        self.tokens = 0
        self.current = ""
        self.started = clock()
        self._batch_base = 0
        self._batch_bytes = 0
        self._owners: list[str] = []  # the file of each text of the batch's scorer call
        self._samples: deque[tuple[float, float, int]] = deque([(self.started, 0.0, 0)])
        self._last_output = self.started if not self.terminal else float("-inf")
        self._lines = 0
        self._drawn = False

    # -- what the scan calls ---------------------------------------------------------------

    def batch(self, documents: Sequence[Document], texts_per_document: Sequence[int]) -> None:
        """A batch of ``documents`` is about to be scored, ``texts_per_document[i]`` texts each."""
        self._batch_base = self.done_bytes
        self._batch_bytes = sum(_size(document) for document in documents)
        self._owners = [document.path for document, count in zip(documents, texts_per_document) for _ in range(count)]
        if documents:
            self.current = documents[0].path

    def forward_pass(self, notice: PassNotice) -> None:
        """One forward pass of the batch's scorer call finished."""
        self.tokens += notice.tokens
        if notice.total > 0:
            share = min(notice.done / notice.total, 1.0)
            self.completed = max(self.completed, self._batch_base + self._batch_bytes * share)
        if notice.texts and notice.texts[0] < len(self._owners):
            self.current = self._owners[notice.texts[0]]
        self._tick()

    def item_done(self, item: Document | Skip) -> None:
        """A document was scanned (or a skip counted)."""
        if isinstance(item, Document):
            self.files_done += 1
            self.done_bytes += _size(item)
            self.completed = max(self.completed, float(self.done_bytes))
        self._tick()
        if self.files_done == self.total_files and isinstance(item, Document):
            self._deciding()

    def _deciding(self) -> None:
        # Repeats and findings are decided over the whole group after the last file is scored:
        # seconds on a big repository, so say what runs instead of falling silent at 100%.
        text = f"{self.label} 100%: all {self.files_done} files scored; deciding findings (repeats, allow comments, baseline)"
        if self.terminal and self._drawn:
            width = shutil.get_terminal_size((100, 24)).columns - 1
            self._write("\r" + text[:width] + "\x1b[K")
        elif not self.terminal and self._lines:
            self._write(text + "\n")
            self._lines += 1
            self._last_output = self.clock()

    def close(self) -> None:
        """Erase the terminal line, or end a logged run with a summary line."""
        if self.terminal and self._drawn:
            self._write("\r\x1b[K")  # never raises: a closed stderr must not hide the real error
        elif not self.terminal and self._lines:
            seconds = self.clock() - self.started
            self._write(
                f"{self.label} done: {self.files_done} files, {format_bytes(self.done_bytes)} in {format_duration(seconds)}\n"
            )

    # -- the line --------------------------------------------------------------------------

    def line(self) -> str:
        """The progress line as it would be printed now (no ANSI codes)."""
        now = self.clock()
        parts = [f"{self.label} {self._percent():3d}%", f"{format_bytes(self.completed)} of {format_bytes(self.total_bytes)}",
                 f"{self.files_done}/{self.total_files} files"]
        rate, token_rate = self._rates(now)
        if rate is not None:
            parts.append(f"{format_bytes(rate)}/s, {token_rate:,.0f} tokens/s")
            if rate > 0:
                parts.append(f"ETA {format_duration(max(self.total_bytes - self.completed, 0.0) / rate)}")
        text = ", ".join(parts)
        return f"{text}: {printable(self.current)}" if self.current else text

    def _percent(self) -> int:
        return int(100 * self.completed / self.total_bytes) if self.total_bytes else 100

    def _rates(self, now: float) -> tuple[float | None, float]:
        # Measured over the last _RATE_WINDOW_SECONDS, so the ETA follows the current speed.
        self._samples.append((now, self.completed, self.tokens))
        while len(self._samples) > 2 and now - self._samples[1][0] >= _RATE_WINDOW_SECONDS:
            self._samples.popleft()
        start, done, tokens = self._samples[0]
        span = now - start
        if span < 0.5 or self.completed <= 0:
            return None, 0.0
        return (self.completed - done) / span, (self.tokens - tokens) / span

    def _tick(self) -> None:
        now = self.clock()
        if self.terminal:
            if now - self._last_output >= _REDRAW_SECONDS:
                width = shutil.get_terminal_size((100, 24)).columns - 1
                self._write("\r" + self.line()[:width] + "\x1b[K")
                self._drawn = True
                self._last_output = now
        elif now - self._last_output >= self.interval:
            self._write(self.line() + "\n")
            self._lines += 1
            self._last_output = now


class StageProgress(StderrDisplay):
    """Progress of a job in named stages (``smscan model pull``): one line per stage, with sizes
    and a measured rate for the stages that count bytes.

    On a terminal a stage's line is redrawn in place and kept when the next stage starts;
    elsewhere a plain line is printed when a stage starts, every ``interval`` seconds while it
    moves, and when it completes.

    Args:
        stream: where lines go (stderr).
        labels: stage name -> what the line says.
        byte_stages: stages whose counts are bytes (the others count steps).
        terminal: redraw in place; None asks ``stream.isatty()``.
        interval: seconds between plain lines outside a terminal.
        clock: seconds, monotonic.
    """

    def __init__(
        self,
        stream: TextIO,
        *,
        labels: dict[str, str],
        byte_stages: frozenset[str] = frozenset(),
        terminal: bool | None = None,
        interval: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.labels = labels
        self.byte_stages = byte_stages
        self.terminal = is_terminal(stream) if terminal is None else terminal
        self.interval = INTERVAL_SECONDS if interval is None else interval
        self.clock = clock
        self.stages: list[str] = []  # in the order they ran
        self._started = 0.0
        self._first = 0
        self._last_output = float("-inf")
        self._drawn = False

    def update(self, stage: str, done: int, total: int | None) -> None:
        """A ``ProgressFn`` (``smscan.model.pull_stages``): ``stage`` reached ``done`` of ``total``."""
        now = self.clock()
        starting = not self.stages or self.stages[-1] != stage
        if starting:
            self._end_line()
            self.stages.append(stage)
            self._started, self._first = now, done
        finished = total is not None and done >= total
        text = self.line(stage, done, total, now)
        if self.terminal:
            if starting or finished or now - self._last_output >= _REDRAW_SECONDS:
                self._write("\r" + text + "\x1b[K")
                self._drawn, self._last_output = True, now
        elif starting or finished or now - self._last_output >= self.interval:
            self._write(text + "\n")
            self._last_output = now

    def line(self, stage: str, done: int, total: int | None, now: float) -> str:
        """A stage's line: its label, then sizes and rate for a byte stage."""
        label = self.labels.get(stage, stage)
        if stage not in self.byte_stages or (done == 0 and not total):
            return f"{label} ..." if total is None or done < total else f"{label}: done"
        size = f"{format_bytes(done)} of {format_bytes(total)}" if total else format_bytes(done)
        span = now - self._started
        rate = f", {format_bytes((done - self._first) / span)}/s" if span >= 0.5 and done > self._first else ""
        return f"{label}: {size}{rate}"

    def close(self) -> None:
        """End the last line (a terminal line is kept, as a record of what ran)."""
        self._end_line()

    def _end_line(self) -> None:
        if self.terminal and self._drawn:
            self._write("\n")
            self._drawn = False


class PlainLines:
    """A plain line at most every ``interval`` seconds, for logs (an export outside a terminal).

    Args:
        stream: where lines go (stderr).
        interval: seconds between lines; the first comes one interval after the start.
        clock: seconds, monotonic.
    """

    def __init__(self, stream: TextIO, *, interval: float | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.interval = INTERVAL_SECONDS if interval is None else interval
        self.clock = clock
        self.started = self._last = clock()

    def maybe(self, make_line: Callable[[float], str]) -> None:
        """Print ``make_line(seconds since the start)`` when the interval has passed."""
        now = self.clock()
        if now - self._last >= self.interval:
            self._last = now
            write_quietly(self.stream, make_line(now - self.started) + "\n")


def _size(document: Document) -> int:
    return len(document.text.encode("utf-8", "surrogatepass"))
