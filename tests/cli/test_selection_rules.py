"""Window selection (global or local ranking) and consensus, resolved once for every command.

The fake model (``tests/scorers.py``) gives a random-looking word 12 nats and every other token
1, so its windows stand out among their neighbours: the local rule selects them without a
threshold in nats.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from smscan.engine.masking import MaskRule, mask_text
from smscan.records import TokenScores
from tests.conftest import write_files
from tests.scorers import RandomWordScorer
from tests.test_rules import KEY, write_thresholds

OTHER_KEY = "Qm7Vx2Lp9Rt4Wz8Nc3Kd6Hb"
TEXT = (
    "".join(f"value_{i} = compute(item_{i}, {i})\n" for i in range(12))
    + f"token = '{KEY}'\n"
    + "".join(f"other_{i} = compute(item_{i}, {i})\n" for i in range(12))
    + f"backup = '{OTHER_KEY}'\n"
    + "".join(f"last_{i} = compute(item_{i}, {i})\n" for i in range(6))
)
LOCAL = ["--ranking", "local", "--rank-max", "20", "--neighbours", "8"]


def scan_spans(cli, project: Path, *args: str) -> tuple[list[tuple[int, int]], dict]:
    result = cli("repo", str(project), "--kinds", "surprise", "--format", "json", *args)
    assert result.code in (0, 1), result.err
    report = json.loads(result.out)
    spans = sorted((f["char_start"], f["char_end"]) for f in report["findings"])
    return spans, report["rule"]["surprise"]


def export_spans(cli, tmp_path: Path, *args: str) -> tuple[list[tuple[int, int]], dict]:
    source, output = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text(json.dumps({"text": TEXT}) + "\n")
    result = cli("export", str(source), "-o", str(output), "--masking", "paper", *args)
    assert result.code == 0, result.err
    record = json.loads(output.read_text())
    return sorted(tuple(span) for span in record["smscan"]["masked_spans"]), record["smscan"]["rule"]["surprise"]


def test_a_scan_with_the_local_rule_selects_what_the_export_selects(cli, tmp_path: Path) -> None:
    write_files(tmp_path / "project", {"a.py": TEXT})
    scanned, rule = scan_spans(cli, tmp_path / "project", *LOCAL)
    exported, export_rule = export_spans(cli, tmp_path, *LOCAL)
    assert rule["rule"] == "local" and rule["rank_max"] == 20 and rule["neighbours"] == 8
    assert export_rule["ranking"] == "local" and export_rule["rank_max"] == 20
    assert scanned == exported
    # Both keys and little else: the local rule found them without a threshold in nats.
    masked = "".join(TEXT[start:end] for start, end in scanned)
    assert KEY in masked and OTHER_KEY in masked and len(masked) < 3 * (len(KEY) + len(OTHER_KEY))


def test_the_config_keys_select_as_the_flags_do(cli, tmp_path: Path) -> None:
    project = tmp_path / "project"
    write_files(project, {"a.py": TEXT})
    by_flags, _ = scan_spans(cli, project, *LOCAL)
    write_files(project, {".smscan.toml": 'ranking = "local"\nrank_max = 20\nneighbours = 8\n'})
    by_config, rule = scan_spans(cli, project)
    assert by_config == by_flags and rule["rule"] == "local"


def test_consensus_k_plus_one_never_selects_more_than_k_in_a_scan(cli, tmp_path: Path) -> None:
    write_files(tmp_path / "project", {"a.py": TEXT})
    masked = []
    for k in (1, 2, 3, 4):
        spans, rule = scan_spans(cli, tmp_path / "project", "--threshold", "3", "--consensus", str(k))
        assert rule["consensus"] == k
        masked.append({i for start, end in spans for i in range(start, end)})
    for looser, stricter in zip(masked, masked[1:]):
        assert stricter <= looser
    assert masked[0] > masked[-1] and KEY in TEXT[min(masked[-1]) :]


@pytest.mark.parametrize("ranking", ["global", "local"])
@pytest.mark.parametrize("seed", range(20))
def test_consensus_k_plus_one_masks_a_subset_of_k(ranking: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 80))
    nll = rng.gamma(2.0, 2.0, n)
    nll[rng.random(n) < 0.1] = np.nan
    scores = TokenScores(np.arange(n), np.arange(n), np.arange(n) + 1, nll)
    window = int(rng.integers(1, 7))
    allowed = np.ones(n, dtype=bool)
    masks = [
        mask_text(scores, allowed, MaskRule(window=window, threshold=4.0, ranking=ranking, rank_max=30.0, neighbours=4, consensus=k)).mask
        for k in range(1, window + 1)
    ]
    for looser, stricter in zip(masks, masks[1:]):
        assert not (stricter & ~looser).any()


def write_local_thresholds(path: Path, *, rank_max: float) -> Path:
    entry = {
        "fingerprint": RandomWordScorer.fingerprint,
        "rule": {"kind": "surprise", "ranking": "local", "window": 4, "neighbours": 8, "consensus": 1, "propagate": True},
        "threshold": rank_max,
    }
    path.write_text(json.dumps({"format": "smscan-thresholds", "version": 1, "kinds": {"surprise": entry}}))
    return path


def test_a_local_entry_sets_the_scan_rule_when_none_is_chosen(cli, tmp_path: Path) -> None:
    write_files(tmp_path / "project", {"a.py": TEXT})
    thresholds = write_local_thresholds(tmp_path / "t.json", rank_max=20.0)
    spans, rule = scan_spans(cli, tmp_path / "project", "--thresholds", str(thresholds))
    assert rule["rule"] == "local" and rule["rank_max"] == 20.0 and rule["neighbours"] == 8
    assert spans == scan_spans(cli, tmp_path / "project", *LOCAL)[0]


@pytest.mark.parametrize(
    ("entry", "chosen", "saved", "used"),
    [
        ("global", ["--ranking", "local"], "global", "local"),
        ("local", ["--ranking", "global"], "local", "global"),
    ],
)
def test_thresholds_of_one_selection_rule_are_refused_under_another(
    cli, tmp_path: Path, entry: str, chosen: list[str], saved: str, used: str
) -> None:
    write_files(tmp_path / "project", {"a.py": TEXT})
    if entry == "global":
        thresholds = write_thresholds(tmp_path / "t.json", RandomWordScorer.fingerprint, threshold=3.0)
    else:
        thresholds = write_local_thresholds(tmp_path / "t.json", rank_max=20.0)
    for command in (
        ["repo", str(tmp_path / "project"), "--kinds", "surprise"],
        ["export", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "out.jsonl"), "--masking", "paper"],
    ):
        (tmp_path / "in.jsonl").write_text(json.dumps({"text": TEXT}) + "\n")
        result = cli(*command, "--thresholds", str(thresholds), *chosen)
        assert result.code == 2, result.out + result.err
        assert len(result.err_lines) == 1 and "Traceback" not in result.err
        message = result.err_lines[0]
        assert f"calibrated with {saved} window selection" in message and f"selects {used}" in message
        assert "--ranking" in message and "smscan calibrate --kind surprise" in message


def test_a_ranking_chosen_in_the_config_is_named_in_the_refusal(cli, tmp_path: Path) -> None:
    project = tmp_path / "project"
    write_files(project, {"a.py": TEXT, ".smscan.toml": 'ranking = "local"\n'})
    thresholds = write_thresholds(tmp_path / "t.json", RandomWordScorer.fingerprint, threshold=3.0)
    result = cli("repo", str(project), "--kinds", "surprise", "--thresholds", str(thresholds))
    assert result.code == 2 and len(result.err_lines) == 1
    assert ".smscan.toml key 'ranking'" in result.err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ranking", "nearby"], "ranking must be one of global, local"),
        (["--ranking", "local", "--rank-max", "0"], "rank_max must be in (0, 100]"),
        (["--ranking", "local", "--neighbours", "0"], "neighbours must be"),
        (["--consensus", "9"], "consensus must be 1..window"),
    ],
)
def test_bad_selection_values_are_one_message_and_exit_2(cli, tmp_path: Path, args: list[str], message: str) -> None:
    write_files(tmp_path / "project", {"a.py": TEXT})
    result = cli("repo", str(tmp_path / "project"), "--kinds", "surprise", *args)
    assert result.code == 2 and len(result.err_lines) == 1 and "Traceback" not in result.err
    assert message in result.err and cli.loads == []


def write_labels(path: Path, count: int = 6) -> Path:
    rng = np.random.default_rng(3)
    alphabet = list("abcdefghjkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
    rows = []
    for index in range(count):
        key = "".join(rng.choice(alphabet, 18)) + "7a"
        text = (
            "".join(f"value_{i} = compute(item_{i}, {i})\n" for i in range(8))
            + f"token = '{key}'\n"
            + "".join(f"other_{i} = compute(item_{i}, {i})\n" for i in range(8))
        )
        start = text.index(key)
        rows.append({"text": text, "path": f"g{index % 3}/a{index}.py", "spans": [{"start": start, "end": start + len(key)}]})
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


@pytest.mark.parametrize("masking", ["paper", "values"])
def test_calibrate_saves_a_local_entry_that_eval_applies(cli, tmp_path: Path, monkeypatch, masking: str) -> None:
    monkeypatch.chdir(tmp_path)
    labels = write_labels(tmp_path / "labels.jsonl")
    thresholds = tmp_path / "t.json"
    result = cli("calibrate", "--kind", "surprise", "--labels", str(labels), "--masking", masking, "--ranking", "local",
                 "--neighbours", "8", "--target-recall", "0.9", "--folds", "0", "-o", str(thresholds),
                 "--score-cache", str(tmp_path / "cache"))
    assert result.code == 0, result.err
    assert "local ranking, rank_max" in result.out
    entry = json.loads(thresholds.read_text())["kinds"]["surprise"]
    assert entry["rule"]["ranking"] == "local" and entry["rule"]["neighbours"] == 8
    assert "--ranking local --neighbours 8" in entry["command"]
    assert 0 < entry["threshold"] <= 100 and entry["validation"]["token"]["tpr"] >= 0.9

    result = cli("eval", "--kind", "surprise", "--labels", str(labels), "--thresholds", str(thresholds),
                 "--format", "json", "--score-cache", str(tmp_path / "cache"))
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["ranking"] == "local" and report["threshold"] == entry["threshold"]
    assert report["rule"].get("masking", "paper") == masking
    # eval counts what calibrate counted: the same rule on the same labels.
    assert report["token"]["tpr"] == entry["validation"]["token"]["tpr"]
    assert report["token"]["fpr"] == entry["validation"]["token"]["fpr"]
    assert set(report["auroc_by_ranking"]) == {"global", "local"}

    result = cli("eval", "--kind", "surprise", "--labels", str(labels), "--thresholds", str(thresholds),
                 "--ranking", "global", "--score-cache", str(tmp_path / "cache"))
    assert result.code == 2 and len(result.err_lines) == 1 and "calibrated with local window selection" in result.err


def test_eval_reports_each_selection_rule_at_given_cutoffs(cli, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    labels = write_labels(tmp_path / "labels.jsonl")
    cache = ["--score-cache", str(tmp_path / "cache")]
    by_rule = {}
    for args in (["--threshold", "3"], ["--ranking", "local", "--rank-max", "20", "--neighbours", "8"]):
        result = cli("eval", "--kind", "surprise", "--labels", str(labels), "--format", "json", *args, *cache)
        assert result.code == 0, result.err
        report = json.loads(result.out)
        by_rule[report["ranking"]] = report
    assert by_rule["global"]["threshold"] == 3.0 and by_rule["local"]["threshold"] == 20.0
    # Every key is found by both rules here; the AUROCs of the two statistics are both reported.
    assert by_rule["global"]["token"]["tpr"] == 1.0 and by_rule["local"]["token"]["tpr"] == 1.0
    assert by_rule["global"]["auroc_by_ranking"] == by_rule["local"]["auroc_by_ranking"]
    text = cli("eval", "--kind", "surprise", "--labels", str(labels), "--ranking", "local", "--rank-max", "20", *cache)
    assert text.code == 0 and "local window selection at rank_max 20.0000" in text.out


def test_selection_flags_are_refused_for_a_detector_kind(cli, tmp_path: Path) -> None:
    labels = write_labels(tmp_path / "labels.jsonl")
    result = cli("eval", "--kind", "credential", "--labels", str(labels), "--ranking", "local")
    assert result.code == 2 and "--ranking: window selection options of --kind surprise" in result.err
    result = cli("calibrate", "--kind", "credential", "--labels", str(labels), "--ranking", "local", "-o", str(tmp_path / "t.json"))
    assert result.code == 2 and "--ranking: rule options of --kind surprise" in result.err


def test_explain_shows_the_local_selection(cli, tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text(TEXT)
    result = cli("explain", str(path), "--kinds", "surprise", *LOCAL)
    assert result.code == 0, result.err
    out = " ".join(result.out.split())
    assert "local ranking: windows ranked below 20 among 8 neighbours each side" in out
    assert "τ" not in out
    assert "ranks below rank_max among its neighbours" in out and " selected " in out


@pytest.mark.parametrize("command", ["repo", "export"])
@pytest.mark.parametrize(
    ("args", "named"),
    [([*LOCAL, "--threshold", "3"], "--threshold"), (["--ranking", "global", "--rank-max", "20"], "--rank-max")],
)
def test_a_cutoff_of_the_other_selection_rule_is_refused_not_ignored(
    cli, tmp_path: Path, command: str, args: list[str], named: str
) -> None:
    write_files(tmp_path / "project", {"a.py": TEXT})
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"text": TEXT}) + "\n")
    target = [str(tmp_path / "project"), "--kinds", "surprise"] if command == "repo" else [
        str(source), "-o", str(tmp_path / "out.jsonl"), "--masking", "paper"]
    result = cli(command, *target, *args)
    assert result.code == 2 and len(result.err_lines) == 1 and "Traceback" not in result.err
    assert f"{named} is the cutoff of" in result.err
    assert not (tmp_path / "out.jsonl").exists()
