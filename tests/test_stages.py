"""The stages a scan, an export and the Ray engine share (smscan/judge/stages.py)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from smscan.errors import SourceError
from smscan.exports.masked import export_groups
from smscan.exports.plan import ExportPlan
from smscan.exports.ray_read import group_chunks
from smscan.engine.masking import MaskRule
from smscan.judge.scan import scan
from smscan.records import DatasetRecord, Document, Rejected, Skip, TokenScores
from smscan.sources.datasets import records_from_texts
from smscan.judge.stages import (
    BATCH_CHARS,
    BATCH_ITEMS,
    buffer_groups,
    contiguous,
    score_batches,
)
from tests.scorers import RandomWordScorer

KEY = "aZ3kQ9xL2mP8vR4tY7wB1nC6"


class CallRecorder(RandomWordScorer):
    """Records the texts of each ``score_texts`` call separately."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[str]] = []

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]:
        self.calls.append(list(texts))
        return super().score_texts(texts)


class Texts:
    def __init__(self, text: str) -> None:
        self.to_score = [text]


def test_a_batch_closes_at_the_item_count_or_the_character_budget_and_unscored_items_count_for_neither() -> None:
    items: list[str | None] = ["a"] * (BATCH_ITEMS - 1) + [None, None, "b", "c"]
    scorer = CallRecorder()
    batches = list(score_batches(
        items, scorer, size_of=lambda i: None if i is None else len(i), plan=lambda b: [Texts(t) for t in b if t]
    ))
    assert [len(b) for b in batches] == [BATCH_ITEMS + 2, 1]  # the two Nones ride in the first batch
    assert [len(call) for call in scorer.calls] == [BATCH_ITEMS, 1]
    assert [entry.scores for entry in batches[0] if entry.item is None] == [[], []]

    big = ["x" * (BATCH_CHARS // 2)] * 3
    scorer = CallRecorder()
    list(score_batches(big, scorer, size_of=len, plan=lambda b: [Texts(t) for t in b]))
    assert [len(call) for call in scorer.calls] == [2, 1]


def test_a_batch_of_only_unscored_items_calls_no_scorer() -> None:
    scorer = CallRecorder()
    [batch] = list(score_batches([None, None], scorer, size_of=lambda _: None, plan=lambda b: []))
    assert len(batch) == 2 and scorer.calls == []


def test_keyless_items_join_the_open_group_and_a_reappearing_key_is_refused() -> None:
    def key(item: str) -> str | None:
        return None if item == "-" else item[0]

    assert list(buffer_groups(["-", "a1", "a2", "-", "b1", "-"], key)) == [["-", "a1", "a2", "-"], ["b1", "-"]]
    assert list(buffer_groups(["-", "-"], key)) == [["-", "-"]]
    with pytest.raises(SourceError, match="a2"):
        list(contiguous(["a1", "b1", "a2"], key, lambda item: SourceError(item)))


def test_a_scan_and_an_export_of_the_same_texts_ask_the_scorer_the_same_questions() -> None:
    texts = [f"v{i} = '{KEY if i % 5 == 0 else 'plain'}'\n" for i in range(40)]
    rule = MaskRule(window=4, threshold=3.0)
    scan_scorer, export_scorer = CallRecorder(), CallRecorder()
    documents: list[Document | Skip] = [Document(f"f{i}.txt", t, group="g") for i, t in enumerate(texts)]
    documents.insert(3, Skip("logo.png", "binary"))
    result = scan(documents, scan_scorer, rule)
    records: list[DatasetRecord | Rejected] = list(records_from_texts(texts, groups=["g"] * len(texts)))
    records.insert(3, Rejected(3, "not json", "{"))
    [group] = list(export_groups(records, export_scorer, ExportPlan(rule), model={}))
    assert scan_scorer.calls == export_scorer.calls and len(scan_scorer.calls) == 3
    masked = {n for n, r in enumerate(group.records) if r["smscan"]["masked_spans"]}
    assert masked == {int(f.path[1:-4]) for f in result.findings} == set(range(0, 40, 5))
    assert len(group.rejected) == 1 and result.stats.skipped["binary"] == 1


def test_the_ray_chunks_are_the_export_groups() -> None:
    records = records_from_texts(["a", "b", "c", "d"], groups=["x", "x", "y", "z"])
    items: list[DatasetRecord | Rejected] = [Rejected(0, "bad", "{"), *records]
    chunks = list(group_chunks(items, check_contiguous=True))
    outputs = list(export_groups(items, RandomWordScorer(), ExportPlan(MaskRule(threshold=3.0)), model={}))
    assert [len(c) for c in chunks] == [3, 1, 1] and len(outputs) == len(chunks)
    assert [o.consumed for o in outputs] == [max(i.sequence for i in c) + 1 for c in chunks]
