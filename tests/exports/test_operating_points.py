"""Surprise calibration with consensus and duplicate propagation in the loop."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from smscan.sources.labels import LabelledText
from smscan.rules.thresholds_file import write_entry
from smscan.cli import main
from smscan.errors import SmscanError
from smscan.calibration.operating_points import calibrate_surprise, cross_validate_surprise
from smscan.engine.masking import MaskRule
from smscan.calibration.surprise_calibration import SurpriseCalibration
from smscan.records import TokenScores
from tests.scorers import RandomWordScorer


def chars(text: str, nll: list[float]) -> TokenScores:
    """One token per character, token id = code point."""
    n = len(text)
    return TokenScores(np.array([ord(c) for c in text]), np.arange(n), np.arange(n) + 1, np.array(nll, dtype=float))


# The secret "QZ" is surprising where it first appears and predictable where it repeats.
FIRST = "ab=QZ;cd"
REPEAT = "ef=QZ;gh"
NLL_FIRST = [np.nan, 1, 1, 9, 9, 1, 1, 1]
NLL_REPEAT = [np.nan, 1, 1, 2, 2, 1, 1, 1]


def labelled(text: str, group: str) -> LabelledText:
    return LabelledText(name=f"{group}/x", text=text, spans=((3, 5),), group=group)


def test_propagation_in_the_loop_reaches_full_recall_at_a_high_threshold() -> None:
    documents = [labelled(FIRST, "g"), labelled(REPEAT, "g")]
    scores = [chars(FIRST, NLL_FIRST), chars(REPEAT, NLL_REPEAT)]
    with_propagation = SurpriseCalibration(documents, scores, MaskRule(window=2))
    without = SurpriseCalibration(documents, scores, MaskRule(window=2, propagate=False))
    high = with_propagation.threshold_for_recall(1.0)
    low = without.threshold_for_recall(1.0)
    assert high == 9.0 and low == 2.0
    assert with_propagation.confusion(high).fp < without.confusion(low).fp


def test_recall_falls_as_the_threshold_rises() -> None:
    rng = np.random.default_rng(0)
    texts = ["".join(rng.choice(list("abcdQZ"), 30)) for _ in range(6)]
    documents = [LabelledText(f"g{i % 2}/d", t, spans=((5, 12),), group=f"g{i % 2}") for i, t in enumerate(texts)]
    scores = [chars(t, [np.nan, *rng.uniform(0, 10, 29)]) for t in texts]
    calibration = SurpriseCalibration(documents, scores, MaskRule(window=3, consensus=2))
    recalls = [calibration.confusion(t).tpr for t in calibration.candidates]
    assert all(a >= b for a, b in zip(recalls, recalls[1:]))


def test_entry_has_operating_points() -> None:
    documents = [labelled(FIRST, "g"), labelled(REPEAT, "g")]
    scores = [chars(FIRST, NLL_FIRST), chars(REPEAT, NLL_REPEAT)]
    entry = calibrate_surprise(documents, scores, rule=MaskRule(window=2), criterion="SM95", folds=0)
    assert entry["threshold"] == 9.0 and entry["criterion"] == "recall:0.95"
    assert set(entry["operating_points"]) == {"SM50", "SM70", "SM90", "SM95", "best-f1"}
    assert entry["rule"] == {"kind": "surprise", "ranking": "global", "window": 2, "consensus": 1, "propagate": True}
    assert entry["validation"]["token"]["tpr"] == 1.0


def test_export_reads_a_surprise_operating_point(tmp_path: Path, cli, capsys) -> None:
    entry = {"fingerprint": RandomWordScorer.fingerprint, "rule": {"window": 2, "consensus": 1, "propagate": True},
             "threshold": 50.0, "operating_points": {"SM90": {"threshold": 3.0}}}
    write_entry(tmp_path / "t.json", "surprise", entry)
    key = "aZ3kQ9xL2mP8vR4tY7wB1nC6"
    (tmp_path / "in.jsonl").write_text(json.dumps({"text": f"k = '{key}'\n"}) + "\n")
    args = ["export", str(tmp_path / "in.jsonl"), "--thresholds", str(tmp_path / "t.json")]
    assert cli.main([*args, "-o", str(tmp_path / "a.jsonl"), "--operating-point", "SM90"]) == 0
    (record,) = [json.loads(line) for line in (tmp_path / "a.jsonl").read_text().splitlines()]
    assert record["smscan"]["rule"]["surprise"]["threshold"] == 3.0
    assert record["smscan"]["rule"]["surprise"]["window"] == 2 and record["smscan"]["masked_spans"]
    assert cli.main([*args, "-o", str(tmp_path / "b.jsonl")]) == 0
    assert json.loads((tmp_path / "b.jsonl").read_text())["smscan"]["masked_spans"] == []


def test_calibrated_operating_point_reproduces_its_coverage_in_an_export(
    tmp_path: Path, tiny_model_dir: Path, capsys, monkeypatch
) -> None:
    # A real (tiny, random-init) reference model end to end: the coverage and collateral that
    # calibrate saved for SM90 are what an export at SM90 masks on the same texts.
    monkeypatch.setenv("SMSCAN_CACHE_DIR", str(tmp_path / "cache"))
    rng = np.random.default_rng(1)
    alphabet = list("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
    rows = []
    for index in range(6):
        key = "".join(rng.choice(alphabet, 20))
        text = f"import os\n\ndef main():\n    token = '{key}'\n    return token\n# end {index}\n"
        start = text.index(key)
        rows.append({"text": text, "path": f"g{index}/main.py", "spans": [{"start": start, "end": start + len(key)}]})
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "in.jsonl").write_text("".join(json.dumps({"text": r["text"]}) + "\n" for r in rows))
    model = ["--model", str(tiny_model_dir), "--device", "cpu", "--dtype", "fp32"]
    thresholds = tmp_path / "t.json"

    assert main(["calibrate", "--kind", "surprise", "--labels", str(labels), "--operating-point", "SM90",
                 "-o", str(thresholds), *model]) == 0
    entry = json.loads(thresholds.read_text())["kinds"]["surprise"]
    capsys.readouterr()
    assert main(["export", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "out.jsonl"), "--thresholds",
                 str(thresholds), "--operating-point", "SM90", "--labels", str(labels), "--deterministic", *model]) == 0
    report = json.loads(capsys.readouterr().out)

    point = entry["operating_points"]["SM90"]
    assert point["tpr"] >= 0.9
    assert report["matched_texts"] == 6
    assert report["reference_tokens"]["target_coverage"] == pytest.approx(point["tpr"], abs=1e-4)
    assert report["reference_tokens"]["collateral_rate"] == pytest.approx(point["fpr"], abs=1e-6)
    assert report["reference_tokens"]["targets"] == entry["positive_units"]


def _random_set(seed: int) -> tuple[list[LabelledText], list[TokenScores]]:
    rng = np.random.default_rng(seed)
    texts = ["".join(rng.choice(list("abcdQZ"), 40)) for _ in range(8)]
    documents = [LabelledText(f"g{i % 3}/d{i}", t, spans=((10, 16), (30, 33)), group=f"g{i % 3}") for i, t in enumerate(texts)]
    scores = [chars(t, [np.nan, *rng.uniform(0, 10, 39)]) for t in texts]
    return documents, scores


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("propagate", [True, False])
def test_bisection_finds_what_a_full_scan_of_the_candidates_finds(seed: int, propagate: bool) -> None:
    documents, scores = _random_set(seed)
    calibration = SurpriseCalibration(documents, scores, MaskRule(window=3, consensus=2, propagate=propagate))
    counts = {float(t): calibration.confusion(t) for t in calibration.candidates}
    for recall in (0.3, 0.7, 0.95):
        reaching = [t for t, c in counts.items() if c.tpr >= recall]
        assert calibration.threshold_for_recall(recall) == max(reaching)
    for fpr in (0.05, 0.2, 0.5):
        within = [t for t, c in counts.items() if c.fpr <= fpr]
        assert calibration.threshold_for_fpr(fpr) == min(within)
        assert calibration.threshold_for(f"fpr:{fpr}") == min(within)


def test_cross_validation_chooses_on_the_other_groups_and_counts_the_held_out_one() -> None:
    # Group a's secret scores 9, group b's 5; each fold's threshold (recall 1 on the other group)
    # misses b's secret (tau 9) or takes a's plus collateral (tau 5).
    a_text, b_text = "xy=QZ;uvwxyzab", "mn=QZ;opqrstcd"
    a_nll = [np.nan, 1, 1, 9, 9, 1, 1, 1, 1, 1, 1, 1, 1, 1]
    b_nll = [np.nan, 1, 1, 5, 5, 1, 6, 6, 1, 1, 1, 1, 1, 1]
    documents = [labelled(a_text, "a"), labelled(b_text, "b")]
    scores = [chars(a_text, a_nll), chars(b_text, b_nll)]
    rule = MaskRule(window=2, propagate=False)
    result = cross_validate_surprise(documents, scores, rule=rule, criterion="recall:1.0", folds=2)
    assert sorted(result["thresholds"]) == [5.0, 9.0]
    # Held out: a at tau 5 masks its secret and the '=' and ';' around it (windows 1+9 average 5);
    # b at tau 9 masks nothing. 2 of 4 targets, 2 of 24 other tokens.
    assert result["tpr"] == 0.5 and result["fpr"] == round(2 / 24, 6)
    whole = calibrate_surprise(documents, scores, rule=rule, criterion="recall:1.0", folds=2)
    assert whole["threshold"] == 5.0 and whole["cross_validation"] == result
    # In sample, tau 5 finds both secrets, and in b also masks the 6-6 pair.
    assert whole["validation"]["token"]["tpr"] == 1.0 and whole["validation"]["token"]["fp"] == 4


def test_cross_validation_counts_the_folds_it_evaluated() -> None:
    documents, scores = _random_set(0)  # three groups
    result = cross_validate_surprise(documents, scores, rule=MaskRule(window=3), criterion="recall:0.5", folds=5)
    assert result["folds"] == 3 and len(result["thresholds"]) == 3


def test_cross_validation_of_a_single_group_is_an_error() -> None:
    documents, scores = _random_set(0)
    one_group = [LabelledText(d.name, d.text, spans=d.spans, group="pkg") for d in documents]
    with pytest.raises(SmscanError, match="the labelled rows form 1 group.*--folds 0 saves no estimate"):
        calibrate_surprise(one_group, scores, rule=MaskRule(window=3), criterion="recall:0.5", folds=5)
    entry = calibrate_surprise(one_group, scores, rule=MaskRule(window=3), criterion="recall:0.5", folds=0)
    assert "cross_validation" not in entry


# A target token whose window scores 5.0000004, and an unlabelled one just below it at 5.0000001.
CLOSE_TEXT = "abcdefgh"
CLOSE_NLL = [np.nan, 1, 1, 5.0000004, 1, 5.0000001, 1, 1]


def test_a_saved_fpr_threshold_keeps_its_bound() -> None:
    # Rounded down to 1e-6 (5.0), the threshold would also select the unlabelled token.
    documents = [LabelledText("g/x", CLOSE_TEXT, spans=((3, 4),), group="g")]
    scores = [chars(CLOSE_TEXT, CLOSE_NLL)]
    rule = MaskRule(window=1, propagate=False)
    entry = calibrate_surprise(documents, scores, rule=rule, criterion="fpr:0", folds=0)
    assert entry["threshold"] == 5.0000004
    saved = SurpriseCalibration(documents, scores, rule).confusion(entry["threshold"])
    assert saved.fp == 0 == entry["validation"]["token"]["fp"] and saved.tp == 1
    for point in entry["operating_points"].values():
        assert SurpriseCalibration(documents, scores, rule).confusion(point["threshold"]).fp == point["fp"]


def test_a_saved_threshold_is_rounded_down_when_that_selects_the_same_windows() -> None:
    nll = [np.nan, 1, 1, 5.0000004, 1, 1, 1, 1]
    documents = [LabelledText("g/x", CLOSE_TEXT, spans=((3, 4),), group="g")]
    entry = calibrate_surprise(documents, [chars(CLOSE_TEXT, nll)], rule=MaskRule(window=1), criterion="fpr:0", folds=0)
    assert entry["threshold"] == 5.0 and entry["validation"]["token"]["fp"] == 0


def test_an_unreachable_collateral_rate_says_why() -> None:
    # Every 3-token window around the secret also covers a neighbour: fpr:0 cannot be met.
    documents, scores = _random_set(0)
    calibration = SurpriseCalibration(documents, scores, MaskRule(window=3))
    with pytest.raises(SmscanError, match=r"at or below 0.0: even the highest.* masks 0\.\d+ of non-target tokens"):
        calibration.threshold_for("fpr:0.0")
