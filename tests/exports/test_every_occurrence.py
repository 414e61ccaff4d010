"""No value left half-learnable: a value the export masks (at least half) anywhere in its group is
masked whole at every occurrence in the group (smscan/judge/values.py, mask_every_occurrence; applied per group in smscan/exports/masked.py)."""

from __future__ import annotations

from smscan.engine.masking import MaskRule
from smscan.exports.masked import export_groups
from smscan.exports.plan import ExportPlan
from smscan.judge.values import mask_every_occurrence
from smscan.records import DatasetRecord
from tests.fakes import FakeScorer

HOST = "db-25.northwind.internal"


def test_a_value_a_detector_masked_is_masked_at_its_other_occurrences_with_that_kind() -> None:
    texts = [f'password = "{HOST}x9"\n', f"log in with {HOST}x9 today\n", f"not {HOST}x9y here\n"]
    start = texts[0].index(HOST)
    units = [[(start, start + len(HOST) + 2)], [], []]
    found = [[(start, start + len(HOST) + 2, "credential")], [], []]
    out = mask_every_occurrence(texts, units, found, [[(0, len(t))] for t in texts])
    at = texts[1].index(HOST)
    assert out[1] == [(at, at + len(HOST) + 2, "credential")]
    assert out[2] == []  # inside a longer word it is another value


def test_a_value_half_masked_is_masked_whole_and_one_masked_less_is_left() -> None:
    text = f'a = "{HOST}"\nb = "{HOST[:10]}zz"\nsee {HOST}\n'
    first = text.index(HOST)
    second = text.index(HOST[:10] + "zz")
    units = [[(first, first + len(HOST)), (second, second + 12)]]
    # The first value 12 of 24 characters masked (half): whole, and its repeat; the second 5 of 12: left.
    found = [[(first, first + 12, "surprise"), (second, second + 5, "surprise")]]
    (out,) = mask_every_occurrence([text], units, found, [[(0, len(text))]])
    repeat = text.rindex(HOST)
    assert (first, first + len(HOST), "surprise") in out and (repeat, repeat + len(HOST), "surprise") in out
    assert not any(a <= second + 5 < b for a, b, _ in out)


def test_nothing_is_masked_outside_the_supervised_intervals() -> None:
    texts = [f'k = "{HOST}"\n', f"user: {HOST}\n"]
    start = texts[0].index(HOST)
    out = mask_every_occurrence(texts, [[(start, start + len(HOST))], []], [[(start, start + len(HOST), "surprise")], []],
                                [[(0, len(texts[0]))], [(0, 4)]])
    assert out[1] == []


def _records(texts: list[str]) -> list[DatasetRecord]:
    return [DatasetRecord(i, {"text": t}, "text", (t,), (), (True,), "repo") for i, t in enumerate(texts)]


def test_the_export_masks_in_prose_a_value_its_code_windows_masked_in_a_setting() -> None:
    # The quoted setting is surprising (its windows reach 8.25 nats); the same hostname in prose is
    # predictable (NLL 1), and it is not random enough to be a value on its own (value threshold 50).
    texts = [f'import os\nDB_HOST = "{HOST}"\nx = 1\n', f"# ssh into {HOST} to debug\n"]
    scorer = FakeScorer({f'"{HOST}"': 30.0})
    plan = ExportPlan(MaskRule(window=4, threshold=6.0), value_threshold=50.0)
    (group,) = list(export_groups(_records(texts), scorer, plan, model={}))
    spans = [[tuple(s[:2]) for s in record["smscan"]["masked_spans"]] for record in group.records]
    at = texts[1].index(HOST)
    assert (at, at + len(HOST)) in spans[1]
    plan_without_values = ExportPlan(MaskRule(window=4, threshold=6.0))  # the paper's rule alone is left as it was
    (paper,) = list(export_groups(_records(texts), scorer, plan_without_values, model={}))
    assert paper.records[1]["smscan"]["masked_spans"] == []
