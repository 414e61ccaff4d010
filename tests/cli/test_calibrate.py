"""calibrate, eval, and a scan with the thresholds they made, through `main` with the fake scorer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_runner import Cli
from tests.conftest import write_key_labels
from tests.scorers import RandomWordScorer, make_repeats_predictable

KEYS = ["q8Zt3kPx0wLm9Rv2Yc7Hn4Bd", "Lm9Rv2q8Zt3kPx0wHn4BdYc7", "Hn4Bd0wLm9Rv2q8Zt3kPxYc7"]


@pytest.fixture
def labels(tmp_path: Path) -> Path:
    return write_key_labels(tmp_path / "labels.jsonl", KEYS, category="token")


def test_calibrate_then_eval_then_scan(
    tmp_path: Path, labels: Path, cli: Cli, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    thresholds = tmp_path / "thresholds.json"
    cache = ["--score-cache", str(tmp_path / "cache")]

    assert cli.main(["calibrate", "--kind", "credential", "--labels", str(labels), "-o", str(thresholds), *cache]) == 0

    entry = json.loads(thresholds.read_text())["kinds"]["credential"]
    # The key: one token of NLL 12 over 24 characters (0.5 nats/char) plus the secret-name bonus 1.
    assert entry["threshold"] == 1.5
    assert entry["fingerprint"] == RandomWordScorer.fingerprint
    assert entry["validation"]["char"]["f1"] == 1.0
    assert entry["examples"] == 4
    assert entry["command"].startswith("smscan calibrate --kind credential")
    capsys.readouterr()

    assert cli.main(["eval", "--kind", "credential", "--labels", str(labels), "--thresholds", str(thresholds),
                 "--format", "json", *cache]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["char"]["tpr"] == 1.0 and result["char"]["fp"] == 0
    assert result["per_category_recall"] == {"token": 1.0}

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "settings.py").write_text(f'TOKEN = "{KEYS[0]}"\n')
    code = cli.main(["repo", str(tmp_path / "src"), "--kinds", "credential", "--thresholds", str(thresholds), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    assert [(f["kind"], f["char_start"], f["char_end"]) for f in report["findings"]] == [("credential", 9, 33)]
    assert report["rule"]["kinds"] == ["credential"]
    assert report["rule"]["credential"]["threshold"] == 1.5


def test_a_thresholds_file_for_another_model_is_refused(
    tmp_path: Path, labels: Path, cli: Cli, capsys: pytest.CaptureFixture[str]
) -> None:
    thresholds = tmp_path / "t.json"
    thresholds.write_text(json.dumps({"format": "smscan-thresholds", "version": 1, "kinds": {
        "credential": {"fingerprint": "sha256:someothermodel", "rule": {}, "threshold": 5.0}}}))
    (tmp_path / "a.py").write_text("x = 1\n")

    code = cli.main(["repo", str(tmp_path), "--thresholds", str(thresholds), "--kinds", "credential"])

    err = capsys.readouterr().err
    assert code == 2
    assert "sha256:someothermodel" in err and RandomWordScorer.fingerprint in err
    assert "smscan calibrate --kind credential" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--kind", "secrets"], "--kind must be one of credential, dead-code"),
        (["--kind", "credential"], "exactly one of --labels FILE and --synthetic PATH"),
        (["--kind", "credential", "--best-f1", "--target-recall", "0.9", "--labels", "x"], "at most one of"),
        (["--kind", "credential", "--target-recall", "1.5", "--labels", "x"], "unknown criterion"),
    ],
)
def test_bad_calibrate_arguments(
    tmp_path: Path, args: list[str], message: str, cli: Cli, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["calibrate", *args, "-o", str(tmp_path / "t.json")]) == 2
    assert message in capsys.readouterr().err


def test_dead_code_labels_are_refused_for_the_credential_kind(
    tmp_path: Path, cli: Cli, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "dead.jsonl"
    labels.write_text(json.dumps({"code": "def f():\n    return 1\n", "poisoned_lines": [2]}) + "\n")

    assert cli.main(["calibrate", "--kind", "credential", "--labels", str(labels), "-o", str(tmp_path / "t.json")]) == 2
    assert "needs credential rows" in capsys.readouterr().err


# --kind surprise: the raw masking threshold of `smscan export`, chosen with the whole procedure.


def test_calibrate_surprise_saves_an_entry_that_export_reads(
    tmp_path: Path, labels: Path, cli: Cli, capsys: pytest.CaptureFixture[str]
) -> None:
    import hashlib

    thresholds = tmp_path / "thresholds.json"
    cache = ["--score-cache", str(tmp_path / "cache")]
    assert cli.main(["calibrate", "--kind", "credential", "--labels", str(labels), "-o", str(thresholds), *cache]) == 0
    code = cli.main(["calibrate", "--kind", "surprise", "--labels", str(labels), "--operating-point", "SM90",
                 "--masking", "paper", "-o", str(thresholds), *cache])
    out = capsys.readouterr().out
    assert code == 0, out

    kinds = json.loads(thresholds.read_text())["kinds"]
    assert set(kinds) == {"credential", "surprise"}  # the detector entry is kept
    entry = kinds["surprise"]
    # Windows holding a key (one token of NLL 12, three of 1) average 3.75; every other window 1.
    assert entry["threshold"] == 3.75 and entry["criterion"] == "recall:0.9"
    assert entry["rule"] == {"kind": "surprise", "ranking": "global", "window": 4, "consensus": 1, "propagate": True}
    assert entry["unit"] == "token" and entry["validation"]["token"]["tpr"] == 1.0
    assert entry["fingerprint"] == RandomWordScorer.fingerprint
    assert entry["labels_sha256"] == hashlib.sha256(labels.read_bytes()).hexdigest()
    assert entry["command"].startswith("smscan calibrate --kind surprise --labels")
    assert "--target-recall 0.9 --window 4 --consensus 1 --propagate" in entry["command"]
    assert entry["examples"] == 4 and entry["positive_units"] == 3
    assert {"date", "smscan_version", "cross_validation"} <= set(entry)
    assert "surprise: threshold 3.7500 nats (recall:0.9" in out and "target coverage 1.000" in out

    source = tmp_path / "in.jsonl"
    text = f"x = 1\napi_key = '{KEYS[0]}'\ny = 2\n"
    source.write_text(json.dumps({"text": text}) + "\n")
    assert cli.main(["export", str(source), "-o", str(tmp_path / "out.jsonl"), "--thresholds", str(thresholds),
                 "--operating-point", "SM90"]) == 0
    record = json.loads((tmp_path / "out.jsonl").read_text())
    assert record["smscan"]["rule"]["surprise"]["threshold"] == 3.75
    assert any(KEYS[0] in text[a:b] for a, b in record["smscan"]["masked_spans"])


def test_calibrate_surprise_rule_options_reach_the_entry_and_the_export(
    tmp_path: Path, labels: Path, cli: Cli, capsys: pytest.CaptureFixture[str]
) -> None:
    thresholds = tmp_path / "t.json"
    assert cli.main(["calibrate", "--kind", "surprise", "--labels", str(labels), "--best-f1", "--window", "2",
                 "--consensus", "2", "--no-propagate", "--folds", "2", "--masking", "paper", "-o", str(thresholds),
                 "--score-cache", str(tmp_path / "cache")]) == 0
    entry = json.loads(thresholds.read_text())["kinds"]["surprise"]
    assert entry["rule"] == {"kind": "surprise", "ranking": "global", "window": 2, "consensus": 2, "propagate": False}
    # Two-token windows holding a key average 6.5; with consensus 2 only the key itself is masked.
    assert entry["threshold"] == 6.5 and entry["validation"]["token"]["fp"] == 0
    assert entry["cross_validation"]["folds"] == 2
    source = tmp_path / "in.jsonl"
    text = f"x = 1\napi_key = '{KEYS[1]}'\n"
    source.write_text(json.dumps({"text": text}) + "\n")
    assert cli.main(["export", str(source), "-o", str(tmp_path / "o.jsonl"), "--thresholds", str(thresholds),
                 "--masking", "paper"]) == 0
    record = json.loads((tmp_path / "o.jsonl").read_text())
    assert record["smscan"]["rule"]["surprise"] == {
        "kind": "surprise", "ranking": "global", "window": 2, "threshold": 6.5, "consensus": 2, "propagate": False,
        "masking": "paper"}
    assert [text[a:b] for a, b in record["smscan"]["masked_spans"]] == [KEYS[1]]


def test_calibrate_surprise_with_propagation_in_the_loop_masks_less_collateral(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The key is surprising where it first appears; its repeats are predictable (NLL 1) and are
    # masked only by propagating the first occurrence's mask.
    make_repeats_predictable(cli.scorer, monkeypatch)
    rows = []
    for index in range(3):
        text = f"import os\n# file {index}\nkey = '{KEYS[0]}'\nother = 'plain words'\n"
        start = text.index(KEYS[0])
        rows.append({"text": text, "path": f"pkg/f{index}.py", "spans": [{"start": start, "end": start + len(KEYS[0])}]})
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))

    entries = {}
    for flag in ("--propagate", "--no-propagate"):
        out = tmp_path / f"{flag.strip('-')}.json"
        args = ["calibrate", "--kind", "surprise", "--labels", str(labels), "--target-recall", "0.95", flag,
                "--folds", "0", "--masking", "paper", "-o", str(out), "--score-cache", str(tmp_path / "cache")]
        assert cli.main(args) == 0
        entries[flag] = json.loads(out.read_text())["kinds"]["surprise"]
    with_loop, without = entries["--propagate"], entries["--no-propagate"]
    assert with_loop["threshold"] == 3.75 and with_loop["validation"]["token"]["tpr"] == 1.0
    # Without propagation only a threshold of 1 (every window) reaches the repeats.
    assert without["threshold"] == 1.0 and without["validation"]["token"]["tpr"] == 1.0
    assert with_loop["validation"]["token"]["fpr"] < 0.5 < without["validation"]["token"]["fpr"]
    assert "cross_validation" not in with_loop


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--kind", "surprise", "--consensus", "9"], "consensus must be 1..window (4), got 9"),
        (["--kind", "surprise", "--window", "0"], "window must be 1..256"),
        (["--kind", "credential", "--window", "2"], "--window: rule options of --kind surprise"),
        (["--kind", "dead-code", "--no-propagate"], "--propagate: rule options of --kind surprise"),
        (["--kind", "surprise", "--plot", "p.png"], "does not combine with --kind surprise"),
        (["--kind", "surprise", "--target-recall", "2"], "unknown criterion"),
        (["--kind", "surprise", "--folds", "1"], "--folds must be at least 2 (or 0: no estimate), got 1"),
        (["--kind", "credential", "--folds", "0"], "--folds must be at least 2, got 0"),
    ],
)
def test_bad_surprise_arguments(
    tmp_path: Path, labels: Path, args: list[str], message: str, cli: Cli,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["calibrate", *args, "--labels", str(labels), "-o", str(tmp_path / "t.json")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1
    assert not (tmp_path / "t.json").exists()


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"code": "def f():\n    return 1\n    x = 2\n", "poisoned_lines": [3]}],
         "--kind surprise needs span rows (text or path, spans)"),
        ([{"text": "x = 1\n", "spans": []}], "the labels hold no target token"),
    ],
)
def test_surprise_labels_it_cannot_use_are_refused(
    tmp_path: Path, rows: list[dict], message: str, cli: Cli, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = tmp_path / "l.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert cli.main(["calibrate", "--kind", "surprise", "--labels", str(labels), "-o", str(tmp_path / "t.json"),
                 "--score-cache", str(tmp_path / "cache")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "t.json").exists()


def test_calibrate_surprise_on_synthetic_credentials(
    tmp_path: Path, cli: Cli, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for index in range(6):
        (project / f"m{index}.py").write_text(f"import os\n\n\ndef f{index}(x):\n    return x + {index}\n")
    thresholds = tmp_path / "t.json"
    code = cli.main(["calibrate", "--kind", "surprise", "--synthetic", str(project), "--seed", "3", "--folds", "0",
                 "-o", str(thresholds), "--score-cache", str(tmp_path / "cache")])
    assert code == 0, capsys.readouterr().err
    entry = json.loads(thresholds.read_text())["kinds"]["surprise"]
    assert entry["labels"] == f"synthetic:{project} seed 3" and entry["positive_units"] > 0
    assert entry["validation"]["token"]["tp"] > 0
    assert f"--synthetic {project} --seed 3" in entry["command"]


# Groups come from the rows, never from how the labels path is spelled.


def _inline_rows(count: int) -> list[dict]:
    """Rows with text and spans only (no path, id or group): each row is a group of its own."""
    rows = []
    for index in range(count):
        key = f"Zq8x{index}Pk3Lm9Rv2Yc7Hn"
        text = f"import os\napi_key = '{key}'\nother = 'plain words {index}'\n"
        start = text.index(key)
        rows.append({"text": text, "spans": [{"start": start, "end": start + len(key)}]})
    return rows


@pytest.mark.parametrize("kind", ["surprise", "credential"])
def test_the_labels_path_spelling_does_not_change_the_entry(
    tmp_path: Path, kind: str, cli: Cli, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in _inline_rows(10)))
    cache = ["--score-cache", str(tmp_path / "cache")]
    entries = {}
    absolute = str(tmp_path / "sub" / "labels.jsonl")
    for cwd, spelling in [("sub", "labels.jsonl"), (".", "sub/labels.jsonl"), (".", absolute)]:
        monkeypatch.chdir(tmp_path / cwd)
        output = tmp_path / f"t{len(entries)}.json"
        assert cli.main(["calibrate", "--kind", kind, "--labels", spelling, "-o", str(output), *cache]) == 0
        entry = json.loads(output.read_text())["kinds"][kind]
        entries[spelling] = {key: value for key, value in entry.items() if key not in ("labels", "command", "date")}
        assert "5-fold cross-validated" in capsys.readouterr().out

    first, *others = entries.values()
    assert all(other == first for other in others)
    assert first["cross_validation"]["folds"] == 5 and first["cross_validation"]["tpr"] == 1.0
    assert len(first["cross_validation"]["thresholds"]) == 5


@pytest.mark.parametrize("kind", ["surprise", "credential"])
def test_fewer_groups_than_folds_saves_the_folds_evaluated(
    tmp_path: Path, kind: str, labels: Path, cli: Cli, capsys: pytest.CaptureFixture[str],
) -> None:
    # The fixture's rows lie in four packages (pkg0, pkg1, pkg2 with a key each; pkg9 without).
    thresholds = tmp_path / "t.json"
    assert cli.main(["calibrate", "--kind", kind, "--labels", str(labels), "--folds", "5", "-o", str(thresholds),
                 "--score-cache", str(tmp_path / "cache")]) == 0
    cv = json.loads(thresholds.read_text())["kinds"][kind]["cross_validation"]
    assert cv["folds"] == 4 == len(cv["thresholds"])
    assert "4-fold cross-validated" in capsys.readouterr().out


@pytest.mark.parametrize(("kind", "hint"), [("surprise", "; --folds 0 saves no estimate"), ("credential", "")])
def test_a_single_group_has_no_cross_validated_estimate(
    tmp_path: Path, kind: str, hint: str, cli: Cli, capsys: pytest.CaptureFixture[str],
) -> None:
    rows = [{**row, "path": f"pkg/f{index}.py"} for index, row in enumerate(_inline_rows(4))]
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in rows))

    assert cli.main(["calibrate", "--kind", kind, "--labels", str(labels), "-o", str(tmp_path / "t.json"),
                 "--score-cache", str(tmp_path / "cache")]) == 2
    err = capsys.readouterr().err
    assert "no cross-validated estimate: the labelled rows form 1 group" in err
    assert err.rstrip().endswith(f"else each row on its own{hint}")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "t.json").exists()


def test_an_unreachable_max_fpr_is_a_usage_error(
    tmp_path: Path, labels: Path, cli: Cli, capsys: pytest.CaptureFixture[str],
) -> None:
    # Each 4-token window holding a key also holds three other tokens: collateral is never 0
    # under the paper's rule (value-aware masking masks the key alone).
    assert cli.main(["calibrate", "--kind", "surprise", "--masking", "paper", "--labels", str(labels), "--max-fpr", "0", "-o",
                 str(tmp_path / "t.json"), "--score-cache", str(tmp_path / "cache")]) == 2
    err = capsys.readouterr().err
    assert "no threshold keeps the collateral rate at or below 0.0: even the highest" in err
    assert "allow a larger --max-fpr" in err and err.count("\n") == 1 and "Traceback" not in err
