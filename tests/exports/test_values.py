"""Value-aware masking: values masked whole, their repeats, code structure held stricter."""

from __future__ import annotations

import itertools
import json
import re

import numpy as np
import pytest

from smscan.sources.labels import LabelledText
from smscan.calibration.value_points import ValueCalibration, calibrate_values
from smscan.engine.spans import char_spans
from smscan.engine.masking import MaskRule, mask_group
from smscan.judge.value_units import is_letter_id, is_random_letters, value_units
from smscan.judge.values import (
    RepeatIndex,
    TextValues,
    ValueRule,
    repeatable_parts,
    value_spans,
)
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
    layouts = [TextValues.of(t, s, a) for t, s, a in zip(texts, scores, allowed)]
    return value_spans(scores, allowed, [[(0, len(t))] for t in texts], rule, values=layouts, repeats=RepeatIndex(texts))


# Code structure held strictly (no raw window reaches 12 nats here); values at randomness 1.5.
VALUES_ONLY = ValueRule(MaskRule(window=4, threshold=12.0), value_threshold=1.5)


def test_a_token_surprising_in_its_middle_is_masked_whole() -> None:
    text = f'import os\nAPI_TOKEN = "{TOKEN}"\nprint(API_TOKEN)\n'
    scores = chunked(text, MIDDLE)
    (paper,) = mask_group([scores], [np.ones(len(scores), dtype=bool)], MaskRule(window=4, threshold=5.0))
    start = text.index(TOKEN)
    raw = char_spans(paper, scores.char_starts, scores.char_ends)
    # The paper's windows reach the middle of the value, not its ends.
    assert sum(max(0, min(b, start + 32) - max(a, start)) for a, b in raw) < 32
    # Randomness: (4 * 9 + 4 * 1) nats / (sqrt(32) * ln 62) = 1.71.
    assert TextValues.of(text, scores, np.ones(len(scores), dtype=bool)).scores.max() == pytest.approx(1.7135, abs=1e-3)
    (spans,) = spans_of([text], [scores], VALUES_ONLY)
    assert spans == [(start, start + 32)]  # the whole value and nothing else: the code stays


def test_a_masked_value_masks_its_exact_repeats_in_the_group() -> None:
    first = f'TOKEN = "{TOKEN}"\nOWNER = "jdoe77@corp.io"\n'
    again = f"# rotated {TOKEN} last week, ask jdoe77\nx = 1\n"  # predictable here: NLL 1 throughout
    other = f"y = 'x{TOKEN}'\n"  # a longer value holding it is another value
    texts = [first, again, other]
    found = spans_of(texts, [chunked(first, {**MIDDLE, "jdoe": 20.0}), chunked(again), chunked(other)], VALUES_ONLY)
    token, handle = again.index(TOKEN), again.index("jdoe77")
    # The token's repeat, and the masked email's local part (the same person's handle).
    assert found[1] == [(token, token + 32), (handle, handle + 6)]
    assert found[2] == []


def test_code_structure_is_held_to_the_stricter_rule() -> None:
    text = "def run(self):\n    return self.go()\n"
    # Surprising keywords and identifiers: raw windows over 'return self' score 9.25.
    scores = chunked(text, {"retu": 12.0, "rn": 12.0, "self": 12.0, "go": 12.0})
    strict = spans_of([text], [scores], ValueRule(MaskRule(threshold=11.0), value_threshold=10.0))[0]
    assert strict == []
    paper = spans_of([text], [scores], ValueRule(MaskRule(threshold=5.0), value_threshold=10.0))[0]
    assert paper and "return" in text[paper[0][0] : paper[-1][1]]


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


def test_an_all_capitals_id_is_a_value_and_masked_whole_where_it_is_surprising() -> None:
    text = 'WORKSPACE = "WEAKFYMSKB"\n# runs in workspace WEAKFYMSKB\nprint(README, STRICT)\n'
    # A letters-only id is a value wherever it stands; constants and words in capitals are not.
    assert [text[a:b] for a, b in value_units(text)] == ["WEAKFYMSKB", "WEAKFYMSKB"]
    # Surprising in the assignment (randomness (9 + 9 + 1) / (sqrt(10) ln 26) = 1.84), predicted
    # (1 nat a chunk) in the comment: the first is masked whole, the second as its repeat.
    scores = chunked(text, {"WEAK": 9.0, "FYMS": 9.0})
    (spans,) = spans_of([text], [scores], VALUES_ONLY)
    first, second = text.index("WEAKFYMSKB"), text.rindex("WEAKFYMSKB")
    assert spans == [(first, first + 10), (second, second + 10)]
    # Predicted everywhere: an id is judged by its randomness like any other value.
    assert spans_of([text], [chunked(text)], VALUES_ONLY) == [[]]


def test_a_name_part_is_masked_by_its_masked_email_and_an_ordinary_word_is_not() -> None:
    first = 'CONTACT = "dmitri.novak53@corp.io"\nHELP = "support@corp.io"\n'
    # Predictable here (NLL 1 throughout): the handle as a person's name, and a plain word.
    again = "# maintained by dmitri.novak, ask support\nsupport = 1\n"
    surprising = {"dmit": 20.0, "nova": 20.0, "supp": 20.0}
    found = spans_of([first, again], [chunked(first, surprising), chunked(again)], VALUES_ONLY)
    handle = again.index("dmitri.novak")
    assert [first[a:b] for a, b in found[0]] == ["dmitri.novak53@corp.io", "support@corp.io"]
    # The email's name part is the same person; `support` repeats as an ordinary word.
    assert found[1] == [(handle, handle + len("dmitri.novak"))]


def test_repeatable_parts_keep_names_with_separators_and_drop_plain_words() -> None:
    assert repeatable_parts("tomas_kow123") == ("tomas_kow123", "tomas_kow")
    assert repeatable_parts("jdoe77@corp.io") == ("jdoe77@corp.io", "jdoe77")
    assert repeatable_parts("anna.quinn@corp.io") == ("anna.quinn@corp.io", "anna.quinn")
    assert repeatable_parts("admin@corp.io") == ("admin@corp.io",)
    assert repeatable_parts("WEAKFYMSKB") == ("WEAKFYMSKB",)


@pytest.mark.parametrize(
    ("word", "is_id"),
    [("WEAKFYMSKB", True), ("QXPTRWZ", True), ("README", False), ("WORKSPACE", False), ("PYTHONPATH", False),
     ("DEBUG", False), ("WEAKFYmskb", False), ("WEAK_FYMSKB", False)],
)
def test_is_letter_id_tells_random_capitals_from_words(word: str, is_id: bool) -> None:
    assert is_letter_id(word) is is_id


def test_a_prefixed_lowercase_letter_id_in_prose_is_masked_whole_and_long_words_are_not() -> None:
    text = "## Setup\n\nNote: runs in workspace ws-iqsqfapghp.\nCall getattribute on iterrows output.\n"
    # The id drew letters only; long ordinary words (code or prose) stay code structure.
    assert [text[a:b] for a, b in value_units(text)] == ["ws-iqsqfapghp"]
    # Surprising in its middle and as surprising as the rare words: only the id is a value, and
    # it is masked whole, prefix and ends included ((1 + 9 + 9 + 1) / (sqrt(13) ln 34) = 1.57).
    scores = chunked(text, {"iqsq": 9.0, "fapg": 9.0, "geta": 9.0, "ttri": 9.0, "iter": 9.0, "rows": 9.0})
    (spans,) = spans_of([text], [scores], VALUES_ONLY)
    start = text.index("ws-iqsqfapghp")
    assert spans == [(start, start + len("ws-iqsqfapghp"))]


@pytest.mark.parametrize(
    ("word", "is_id"),
    [("ws-iqsqfapghp", True), ("acct_qzvnkwpdx", True), ("iqsqfapghp", True), ("getattribute", False),
     ("iterrows", False), ("non-interactive", False), ("werkzeug", False), ("kwargs", False),
     ("XXXXXXXXXXXX", False), ("ws-iqsq", False), ("prefix-iqsqfapghp", False)],
)
def test_is_random_letters_tells_letter_ids_from_words(word: str, is_id: bool) -> None:
    assert is_random_letters(word) is is_id


def test_value_rule_refuses_bad_values() -> None:
    with pytest.raises(ValueError, match="value_threshold"):
        ValueRule(MaskRule(), value_threshold=float("nan"))
    with pytest.raises(ValueError, match="min_repeat_chars"):
        ValueRule(MaskRule(), min_repeat_chars=0)


def _documents(count: int) -> tuple[list[LabelledText], list[TokenScores]]:
    documents, scores = [], []
    for index in range(count):
        value = f"acct{index:02d}x9Q"
        text = f"def load():\n    ACCOUNT = '{value}'\n    return ACCOUNT\n# owner acct{index:02d}x9Q\n"
        spans = tuple((m.start(), m.end()) for m in re.finditer(re.escape(value), text))
        documents.append(LabelledText(f"d{index}", text, spans, group=f"g{index}"))
        # The value's first chunk is surprising, more so in some documents than others;
        # 'load' is surprising code structure (its windows score 8.25 nats).
        scores.append(chunked(text, {value[:4]: 6.0 + index % 4, "load": 30.0}))
    return documents, scores


def test_calibration_reports_curve_and_spread_and_lands_on_the_recall() -> None:
    documents, scores = _documents(8)
    entry = calibrate_values(documents, scores, rule=MaskRule(window=4), criterion="recall:0.95", folds=4)
    assert entry["rule"]["masking"] == "values" and entry["criterion"] == "recall:0.95"
    assert entry["validation"]["token"]["tpr"] == 1.0  # every value, with its comment repeat
    # 'load' is masked by the code rule at 6, 7 and 8 nats: the stricter 10 is chosen.
    assert entry["threshold"] == 10.0 and entry["validation"]["token"]["fpr"] == 0.0
    assert [row["threshold"] for row in entry["code_thresholds"]] == [6.0, 7.0, 8.0, 10.0, 12.0]
    curve = entry["curve"]
    assert [p["value_threshold"] for p in curve] == sorted(p["value_threshold"] for p in curve)
    assert all(a["tpr"] >= b["tpr"] and a["fpr"] >= b["fpr"] for a, b in itertools.pairwise(curve))
    assert curve[0]["tpr"] == 1.0 and curve[-1]["tpr"] < 1.0
    cv = entry["cross_validation"]
    assert cv["folds"] == 4 and len(cv["per_fold"]) == 4
    assert set(cv["spread"]) == {"tpr_mean", "tpr_std", "tpr_min", "fpr_mean", "fpr_std", "fpr_max"}
    assert cv["spread"]["tpr_min"] <= cv["spread"]["tpr_mean"] <= 1.0
    landing = entry["landing"]
    assert landing["asked"] == 0.95 and landing["margin"] == cv["overshoot"]
    # The value threshold sits the margin below the validation choice for recall 0.95.
    below = round(entry["operating_points"]["SM95"]["value_threshold"] - landing["margin"], 6)
    assert entry["rule"]["value_threshold"] <= below + 1e-6
    calibration = ValueCalibration(documents, scores, ValueRule(MaskRule(window=4, threshold=entry["threshold"])))
    assert calibration.confusion(entry["rule"]["value_threshold"]).tpr == entry["validation"]["token"]["tpr"]


def test_landing_lowers_the_value_threshold_by_the_worst_folds_overshoot() -> None:
    from smscan.calibration.value_points import _landing

    # One repository's identities needed 2.7 where the threshold chosen without them was 3.35.
    cross_validation = {"tpr": 0.92, "spread": {"tpr_min": 0.75}, "overshoot": 0.65}
    landing = _landing("recall:0.95", cross_validation)
    assert landing == {"asked": 0.95, "cross_validated_tpr": 0.92, "worst_fold_tpr": 0.75, "margin": 0.65}
    assert _landing("best-f1", cross_validation) == {}


def test_cross_validation_records_each_folds_overshoot() -> None:
    from smscan.calibration.value_points import cross_validate_values

    documents, scores = _documents(8)
    cv = cross_validate_values(documents, scores, rule=MaskRule(window=4), criterion="recall:0.95", folds=4)
    for fold in cv["per_fold"]:
        # A fold that reached the recall needed no lower threshold; one that missed it did.
        assert fold["overshoot"] == 0.0 if fold["tpr"] >= 0.95 else fold["overshoot"] > 0.0
        gap = max(0.0, fold["value_threshold"] - fold["needed_value_threshold"])
        assert fold["overshoot"] == pytest.approx(gap, abs=1e-5)
    assert cv["overshoot"] == max(f["overshoot"] for f in cv["per_fold"])


def _export(cli, tmp_path, name: str, *args: str) -> dict:
    assert cli.main(["export", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / name), *args]) == 0
    return json.loads((tmp_path / name).read_text())


def test_cli_default_masks_values_whole_and_masking_paper_keeps_the_window_rule(tmp_path, cli, capsys) -> None:
    from smscan.rules.thresholds_file import write_entry
    from tests.scorers import RandomWordScorer

    # A calibrated value-aware entry for the stand-in model: code rule at 6 nats (stricter than the
    # key's windows, 3.75), values at randomness 0.5 (the key: 12 / (sqrt(24) ln 62) = 0.59).
    entry = {"fingerprint": RandomWordScorer.fingerprint, "threshold": 6.0,
             "rule": {"window": 4, "consensus": 1, "propagate": True, "masking": "values", "value_threshold": 0.5}}
    write_entry(tmp_path / "t.json", "surprise", entry)
    key = "aZ3kQ9xL2mP8vR4tY7wB1nC6"
    text = f"token = '{key}'\nprint(token)\n"
    (tmp_path / "in.jsonl").write_text(json.dumps({"text": text}) + "\n")
    start = text.index(key)
    values = _export(cli, tmp_path, "values.jsonl", "--thresholds", str(tmp_path / "t.json"))
    assert values["smscan"]["masked_spans"] == [[start, start + len(key)]]
    assert values["smscan"]["rule"]["surprise"]["masking"] == "values"
    assert "credential findings are not masked" in capsys.readouterr().err  # not calibrated for the stand-in
    paper = _export(cli, tmp_path, "paper.jsonl", "--thresholds", str(tmp_path / "t.json"), "--masking", "paper", "--threshold", "3")
    ((a, b),) = paper["smscan"]["masked_spans"]
    # The paper's windows mask the neighbours of the key too (window-shaped, not value-shaped).
    assert a < start and b > start + len(key)
    assert paper["smscan"]["rule"]["kinds"] == ["surprise"] and paper["smscan"]["rule"]["surprise"]["masking"] == "paper"
    redacted = _export(cli, tmp_path, "redact.jsonl", "--thresholds", str(tmp_path / "t.json"), "--mode", "redact")
    assert key not in json.dumps(redacted) and "token = '<MASKED>'" in json.dumps(redacted)


@pytest.mark.model
def test_real_model_default_export_masks_a_32_character_token_whole(tmp_path, capsys) -> None:
    from smscan.cli import main

    # The example: a 32-character random token in a small Python file, all defaults.
    text = f'import requests\n\nAPI_TOKEN = "{TOKEN}"\n\n\ndef fetch(url):\n    return requests.get(url)\n'
    (tmp_path / "in.jsonl").write_text(json.dumps({"text": text}) + "\n")
    assert main(["export", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "out.jsonl"), "--device", "cpu"]) == 0
    record = json.loads((tmp_path / "out.jsonl").read_text())
    start = text.index(TOKEN)
    masked = np.zeros(len(text), dtype=bool)
    for a, b, *_ in record["smscan"]["masked_spans"]:
        masked[a:b] = True
    assert masked[start : start + 32].all()
    assert record["smscan"]["rule"]["kinds"] == ["surprise", "credential"]
    assert main(["export", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "r.jsonl"), "--device", "cpu", "--mode", "redact"]) == 0
    released = (tmp_path / "r.jsonl").read_text()
    assert not any(TOKEN[i : i + 6] in released for i in range(27))


def test_cli_calibrate_prints_curve_and_spread_and_export_reads_the_point(tmp_path, cli, capsys) -> None:
    rows = []
    for index in range(6):
        key = f"Zq8x{index}Pk3Lm9Rv2Yc7Hn4B"
        text = f"import os\napi_key = '{key}'\nother = 'plain words {index}'\n"
        start = text.index(key)
        rows.append({"text": text, "path": f"pkg{index}/a.py", "spans": [{"start": start, "end": start + len(key)}]})
    (tmp_path / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    thresholds = tmp_path / "t.json"
    assert cli.main(["calibrate", "--kind", "surprise", "--labels", str(tmp_path / "labels.jsonl"), "--target-recall", "0.95",
                 "--folds", "3", "-o", str(thresholds), "--score-cache", str(tmp_path / "cache")]) == 0
    out = capsys.readouterr().out
    assert "values whole at randomness" in out and "spread over folds: coverage" in out
    assert "validation curve (value threshold:coverage/collateral)" in out
    entry = json.loads(thresholds.read_text())["kinds"]["surprise"]
    # The keys alone: value-aware masking reaches every key with no collateral at all.
    assert entry["validation"]["token"]["tpr"] == 1.0 and entry["validation"]["token"]["fpr"] == 0.0
    assert entry["cross_validation"]["folds"] == 3 and entry["landing"]["asked"] == 0.95
    assert ("landing: value threshold lowered by" in out) == bool(entry["landing"]["margin"])
    text = "x = 1\napi_key = 'Zq8x0Pk3Lm9Rv2Yc7Hn4B'\n"
    (tmp_path / "in.jsonl").write_text(json.dumps({"text": text}) + "\n")
    record = _export(cli, tmp_path, "o.jsonl", "--thresholds", str(thresholds), "--operating-point", "SM50")
    surprise = record["smscan"]["rule"]["surprise"]
    assert surprise["value_threshold"] == entry["operating_points"]["SM50"]["value_threshold"]
    assert [text[a:b] for a, b, *_ in record["smscan"]["masked_spans"]] == ["Zq8x0Pk3Lm9Rv2Yc7Hn4B"]


@pytest.mark.parametrize("command", ["export", "calibrate"])
def test_an_unknown_masking_is_one_usage_error(tmp_path, cli, capsys, command: str) -> None:
    (tmp_path / "in.jsonl").write_text(json.dumps({"text": "x = 1\n"}) + "\n")
    args = {"export": ["export", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "o.jsonl")],
            "calibrate": ["calibrate", "--kind", "surprise", "--labels", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "t.json")]}
    assert cli.main([*args[command], "--masking", "window"]) == 2
    err = capsys.readouterr().err
    assert "--masking must be values or paper, got 'window'" in err and err.count("\n") == 1 and "Traceback" not in err
