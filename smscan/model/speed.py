"""A quick throughput measurement of a scorer on a short code sample (for `smscan model info`)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from smscan.model.scorer import Scorer

SAMPLE_CODE = '''\
import json
from pathlib import Path


class Inventory:
    """Items on hand, loaded from and saved to a JSON file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.items: dict[str, int] = {}

    def load(self) -> None:
        if self.path.exists():
            self.items = json.loads(self.path.read_text(encoding="utf-8"))

    def add(self, name: str, count: int = 1) -> int:
        self.items[name] = self.items.get(name, 0) + count
        return self.items[name]

    def save(self) -> None:
        self.path.write_text(json.dumps(self.items, indent=2, sort_keys=True), encoding="utf-8")
'''


@dataclass(frozen=True, slots=True)
class Throughput:
    """Tokens scored and the seconds it took (after one warm-up pass)."""

    tokens: int
    seconds: float

    @property
    def tokens_per_second(self) -> float:
        """Tokens per second."""
        return self.tokens / self.seconds if self.seconds > 0 else float("inf")


def measure_throughput(scorer: Scorer, *, text: str = SAMPLE_CODE, repeats: int = 2) -> Throughput:
    """Score ``text`` once to warm up, then ``repeats`` times, timing the latter.

    Args:
        scorer: the scorer to measure.
        text: what to score (default: a ~230-token Python class).
        repeats: timed passes.

    Returns:
        Tokens scored in the timed passes and the seconds they took.
    """
    scorer.score_texts([text])
    started = time.perf_counter()
    tokens = sum(len(scorer.score_texts([text])[0]) for _ in range(repeats))
    return Throughput(tokens, time.perf_counter() - started)
