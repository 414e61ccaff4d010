"""Streaming: memory does not grow with the number of records, and groups are flushed as they end."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

from smscan.exports.job import ExportSource, run_export
from smscan.exports.plan import ExportPlan
from smscan.engine.masking import MaskRule
from smscan.sources.datasets import RecordFormat
from tests.scorers import RandomWordScorer

KEY = "aZ3kQ9xL2mP8vR4tY7wB1nC6"


class ForgetfulScorer(RandomWordScorer):
    """Does not keep the texts it scored (the parent records them for other tests)."""

    def score_texts(self, texts):
        return [self._score(text) for text in texts]


def _peak(tmp_path: Path, count: int) -> int:
    source = tmp_path / f"in{count}.jsonl"
    with source.open("w") as handle:
        for i in range(count):
            handle.write(json.dumps({"text": f"n = {i}\nkey = '{KEY}'\n" * 8, "u": i // 4}) + "\n")
    tracemalloc.start()
    stats = run_export(
        ExportSource(source, RecordFormat(group_by="u")), ForgetfulScorer(), ExportPlan(MaskRule(threshold=3.0)),
        output=tmp_path / f"out{count}.jsonl", rejects=tmp_path / "r.jsonl", resume=False, options={},
        model={"fingerprint": "f"},
    )
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert stats.records == count
    return peak


def test_memory_stays_flat_as_the_input_grows(tmp_path: Path) -> None:
    small = _peak(tmp_path, 100)
    large = _peak(tmp_path, 800)
    assert large < 1.5 * small, (small, large)
