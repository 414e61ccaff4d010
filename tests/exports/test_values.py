"""Value-aware masking: values masked whole, their repeats, code structure held stricter."""

from __future__ import annotations

import re

import numpy as np
import pytest

from smscan.calibration.labels import LabelledText
from smscan.exports.rule import MaskRule, mask_group
from smscan.exports.value_points import ValueCalibration, calibrate_values
from smscan.exports.value_units import value_units
from smscan.exports.values import RepeatIndex, TextValues, ValueRule, value_spans
from smscan.engine.spans import char_spans
from smscan.records import TokenScores

TOKEN = "q7Xk2mP9vR4tW8zL3nB6cJ1hF5dG0sYa"  # 32 characters
_CHUNK = re.compile(r"\w{1,4}|\s+|[^\w\s]")


def chunked(text: str, nll_of: dict[str, float] | None = None) -> TokenScores:
    """Tokens of up to 4 word characters; NLL 1 except chunks named in ``nll_of``; first NaN."""
    found = list(_CHUNK.finditer(text))
    nll = np.array([(nll_of or {}).get(m.group(), 1.0) for m in found], dtype=np.float64)
    nll[0] = np.nan
    return TokenScores(
        np.array([hash(m.group()) % 50000 for m in found], dtype=np.int64),
        np.array([m.start() for m in found], dtype=np.int64),
        np.array([m.end() for m in found], dtype=np.int64),
        nll,
    )


# Only the middle of the token is surprising: the model predicts its first and last chunks.
MIDDLE = {"2mP9": 9.0, "vR4t": 9.0, "W8zL": 9.0, "3nB6": 9.0}


def spans_of(texts: list[str], scores: list[TokenScores], rule: ValueRule) -> list[list[tuple[int, int]]]:
    allowed = [np.ones(len(s), dtype=bool) for s in scores]
    layouts = [TextValues.of(t, s, a, value_window=rule.value_window) for t, s, a in zip(texts, scores, allowed)]
    return value_spans(scores, allowed, [[(0, len(t))] for t in texts], rule, values=layouts, repeats=RepeatIndex(texts))


def test_a_token_surprising_in_its_middle_is_masked_whole() -> None:
    text = f'import os\nAPI_TOKEN = "{TOKEN}"\nprint(API_TOKEN)\n'
    scores = chunked(text, MIDDLE)
    rule = MaskRule(window=4, threshold=5.0)
    (paper,) = mask_group([scores], [np.ones(len(scores), dtype=bool)], rule)
    start = text.index(TOKEN)
    raw = char_spans(paper, scores.char_starts, scores.char_ends)
    # The paper's windows reach the middle of the value, not its ends.
    assert sum(max(0, min(b, start + 32) - max(a, start)) for a, b in raw) < 32
    (spans,) = spans_of([text], [scores], ValueRule(rule, code_margin=3.0))
    assert (start, start + 32) in spans
    assert all(text[a:b] == TOKEN for a, b in spans)  # nothing else: the code around it stays


def test_a_masked_value_masks_its_exact_repeats_in_the_group() -> None:
    first = f'TOKEN = "{TOKEN}"\n'
    again = f"# rotated {TOKEN} last week\nx = 1\n"  # the repeat is predictable: NLL 1 throughout
    other = f"y = 'x{TOKEN}'\n"  # a longer value holding it is another value
    texts = [first, again, other]
    found = spans_of(texts, [chunked(first, MIDDLE), chunked(again), chunked(other)], ValueRule(MaskRule(threshold=5.0), code_margin=3.0))
    start = again.index(TOKEN)
    assert found[1] == [(start, start + 32)]
    assert found[2] == []


def test_code_structure_is_held_to_the_stricter_rule() -> None:
    text = "def run(self):\n    return self.go()\n"
    # Surprising keywords and identifiers: raw windows over 'return self' score 9.25.
    scores = chunked(text, {"retu": 12.0, "rn": 12.0, "self": 12.0, "go": 12.0})
    strict = spans_of([text], [scores], ValueRule(MaskRule(threshold=5.0), code_margin=6.0))[0]
    assert strict == []
    plain = spans_of([text], [scores], ValueRule(MaskRule(threshold=5.0), code_margin=0.0))[0]
    assert plain and "return" in text[plain[0][0] : plain[-1][1]]


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ('API_TOKEN = "x9f2"  # ask jdoe42\n', ["x9f2", "jdoe42"]),
        ("user: anna.kowalski\nemail: a.k@corp.io\n", ["anna.kowalski", "a.k@corp.io"]),
        ('log("logged in as alice_w7 today")\n', ["alice_w7"]),
        ("x = foo.bar(3, y)\nn = 42\n", ["42"]),
        ("codes = ['ABCD-1234', 'EF56-GH78']\n", ["ABCD-1234", "EF56-GH78"]),
    ],
)
def test_value_units_find_values_and_leave_code_structure(text: str, values: list[str]) -> None:
    # Plain words and ordinary identifiers (ask, logged, foo, API_TOKEN) are code structure.
    assert [text[a:b] for a, b in value_units(text)] == values


def test_value_rule_refuses_bad_values() -> None:
    with pytest.raises(ValueError, match="code_margin"):
        ValueRule(MaskRule(), code_margin=-1.0)
    with pytest.raises(ValueError, match="value_window"):
        ValueRule(MaskRule(), value_window=0)


def _documents(count: int) -> tuple[list[LabelledText], list[TokenScores]]:
    documents, scores = [], []
    for index in range(count):
        value = f"acct{index:02d}x9Q"
        text = f"def load():\n    ACCOUNT = '{value}'\n    return ACCOUNT\n# owner acct{index:02d}x9Q\n"
        spans = tuple((m.start(), m.end()) for m in re.finditer(re.escape(value), text))
        documents.append(LabelledText(f"d{index}", text, spans, group=f"g{index}"))
        # The value's first chunk is surprising, more so in some documents than others; its
        # repeat in the comment is predictable; 'load' is surprising code structure.
        scores.append(chunked(text, {value[:4]: 6.0 + index % 4, "load": 14.0}))
    return documents, scores


def test_calibration_reports_curve_and_spread_and_lands_on_the_recall() -> None:
    documents, scores = _documents(8)
    entry = calibrate_values(documents, scores, rule=MaskRule(window=4), criterion="recall:0.95", folds=4)
    assert entry["rule"]["masking"] == "values"
    assert entry["validation"]["token"]["tpr"] >= 0.95
    # Repeats come with their value: the predictable comment copies are masked too.
    assert entry["validation"]["token"]["tpr"] == 1.0
    # 'load' (window mean 4.25) would be masked at the same threshold without a margin: a margin is chosen.
    assert entry["rule"]["code_margin"] > 0 and entry["validation"]["token"]["fpr"] == 0.0
    curve = entry["curve"]
    assert [p["threshold"] for p in curve] == sorted(p["threshold"] for p in curve)
    assert all(a["tpr"] >= b["tpr"] and a["fpr"] >= b["fpr"] for a, b in zip(curve, curve[1:]))
    cv = entry["cross_validation"]
    assert cv["folds"] == 4 and len(cv["per_fold"]) == 4
    assert set(cv["spread"]) == {"tpr_mean", "tpr_std", "tpr_min", "fpr_mean", "fpr_std", "fpr_max"}
    assert cv["spread"]["tpr_min"] <= cv["spread"]["tpr_mean"] <= 1.0
    calibration = ValueCalibration(documents, scores, ValueRule(MaskRule(window=4), code_margin=entry["rule"]["code_margin"]))
    assert calibration.confusion(entry["threshold"]).tpr == entry["validation"]["token"]["tpr"]
