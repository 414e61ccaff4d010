"""One resolution of rules and thresholds for every command (flag > config > thresholds file >
packaged default), and the inconsistencies it replaced."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smscan.config.settings import Settings, load_settings
from smscan.errors import ThresholdsError
from smscan.engine.masking import MaskRule
from smscan.rules.flags import RuleFlags
from smscan.rules.resolve import resolve_detections, resolve_surprise
from tests.cli_runner import Cli
from tests.scorers import RandomWordScorer

KEY = "aZ3kQ9xL2mP8vR4tY7wB1nC6"


def write_thresholds(path: Path, fingerprint: str, *, threshold: float = 3.0, window: int = 4) -> Path:
    entry = {
        "fingerprint": fingerprint,
        "rule": {"kind": "surprise", "ranking": "global", "window": window, "consensus": 1, "propagate": True},
        "threshold": threshold,
        "operating_points": {"SM70": {"threshold": threshold + 1.0, "tpr": 0.7, "fpr": 0.01}},
    }
    path.write_text(json.dumps({"format": "smscan-thresholds", "version": 1, "kinds": {"surprise": entry}}))
    return path


def test_a_thresholds_entry_beats_defaults_but_not_config_or_flags(tmp_path: Path) -> None:
    write_thresholds(tmp_path / "t.json", "fp", threshold=3.0, window=8)
    configured = load_settings(tmp_path, overrides={"thresholds": "t.json"})
    resolved = resolve_surprise(configured, root=tmp_path, fingerprint="fp")
    assert (resolved.threshold, resolved.window, resolved.source) == (3.0, 8, str(tmp_path / "t.json"))

    (tmp_path / ".smscan.toml").write_text('thresholds = "t.json"\nthreshold = 5.5\n')
    from_config = resolve_surprise(load_settings(tmp_path), root=tmp_path, fingerprint="fp")
    assert (from_config.threshold, from_config.window, from_config.source) == (5.5, 8, "settings")

    flagged = resolve_surprise(load_settings(tmp_path), root=tmp_path, fingerprint="fp", flags=RuleFlags(threshold=4.25))
    assert (flagged.threshold, flagged.source) == (4.25, "--threshold")
    point = resolve_surprise(load_settings(tmp_path), root=tmp_path, fingerprint="fp", flags=RuleFlags(operating_point="SM70"))
    assert point.threshold == 4.0


def test_without_a_file_surprise_keeps_the_documented_default(tmp_path: Path) -> None:
    resolved = resolve_surprise(Settings(), root=tmp_path, fingerprint="another model")
    assert (resolved.threshold, resolved.window, resolved.source) == (6.0, 4, "settings")
    with pytest.raises(ThresholdsError, match="calibrated for model fingerprint sha256:"):
        resolve_surprise(Settings(), root=tmp_path, fingerprint="another model", flags=RuleFlags(operating_point="SM90"))


def test_a_named_file_made_for_another_model_is_refused(tmp_path: Path) -> None:
    write_thresholds(tmp_path / "t.json", "other")
    with pytest.raises(ThresholdsError, match="calibrated for model fingerprint other"):
        resolve_surprise(Settings(thresholds="t.json"), root=tmp_path, fingerprint="fp")
    with pytest.raises(ThresholdsError, match="calibrated for model fingerprint"):
        resolve_detections(Settings(), ("credential",), root=tmp_path, fingerprint="fp")


def test_scan_reads_the_configured_files_surprise_entry(
    tmp_path: Path, cli: Cli, capsys: pytest.CaptureFixture[str]
) -> None:
    # A random word's windows average 3.75 nats: found at the file's 3.0, not at the default 6.0.
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.py").write_text(f"token = '{KEY}'\nprint(token)\n")
    assert cli.main(["repo", str(project), "--kinds", "surprise", "--format", "json"]) == 0
    capsys.readouterr()
    # A config's paths stay inside the repository (README, "Security model").
    write_thresholds(project / "t.json", RandomWordScorer.fingerprint)
    (project / ".smscan.toml").write_text('thresholds = "t.json"\n')
    assert cli.main(["repo", str(project), "--kinds", "surprise", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["rule"]["surprise"]["threshold"] == 3.0


def test_export_reads_the_configured_files_surprise_entry_without_flags(
    tmp_path: Path, cli: Cli, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"text": f"token = '{KEY}'\n"}) + "\n")
    write_thresholds(tmp_path / "t.json", RandomWordScorer.fingerprint)
    (tmp_path / ".smscan.toml").write_text('thresholds = "t.json"\n')
    assert cli.main(["export", str(source), "-o", str(tmp_path / "out.jsonl")]) == 0, capsys.readouterr().err
    record = json.loads((tmp_path / "out.jsonl").read_text())
    assert record["smscan"]["rule"]["surprise"]["threshold"] == 3.0
    assert record["smscan"]["masked_spans"]


def test_eval_and_calibrate_load_the_configured_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], cli: Cli
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".smscan.toml").write_text('model = "my-org/my-model"\ndevice = "cpu"\ndtype = "fp32"\nthreads = 1\n')
    labels = tmp_path / "labels.jsonl"
    rows = [{"text": f"k{i} = '{KEY}'\n", "group": f"g{i}", "spans": [{"start": 6, "end": 6 + len(KEY)}]} for i in range(4)]
    labels.write_text("".join(json.dumps(row) + "\n" for row in rows))
    cli.main(["calibrate", "--kind", "credential", "--labels", str(labels), "--folds", "2", "-o", "t.json",
              "--score-cache", str(tmp_path / "scores")])
    cli.main(["eval", "--kind", "credential", "--labels", str(labels), "--threshold", "1",
              "--score-cache", str(tmp_path / "scores")])
    capsys.readouterr()
    asked = [{"model": spec, **options} for spec, options in cli.loads]
    assert [(a["model"], a["device"], a["dtype"], a["threads"]) for a in asked] == [("my-org/my-model", "cpu", "fp32", 1)] * 2


def test_eval_looks_thresholds_up_by_the_loaded_model_s_fingerprint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], cli: Cli
) -> None:
    # The config names a model the fake loader does not care about: the entry is found (or
    # refused) by the fingerprint of the model that loaded, never by the configured name.
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".smscan.toml").write_text('model = "my-org/my-model"\n')
    labels = tmp_path / "labels.jsonl"
    rows = [{"text": f"k{i} = '{KEY}'\n", "group": f"g{i}", "spans": [{"start": 6, "end": 6 + len(KEY)}]} for i in range(4)]
    labels.write_text("".join(json.dumps(row) + "\n" for row in rows))
    evaluate = ["eval", "--kind", "credential", "--labels", str(labels), "--format", "json", "--thresholds"]

    def credential_entry(path: Path, fingerprint: str) -> Path:
        entry = {"fingerprint": fingerprint, "rule": {}, "threshold": 1.0}
        path.write_text(json.dumps({"format": "smscan-thresholds", "version": 1, "kinds": {"credential": entry}}))
        return path

    assert cli.main([*evaluate, str(credential_entry(tmp_path / "own.json", RandomWordScorer.fingerprint))]) == 0
    assert json.loads(capsys.readouterr().out)["fingerprint"] == RandomWordScorer.fingerprint
    assert cli.main([*evaluate, str(credential_entry(tmp_path / "other.json", "sha256:othermodel"))]) == 2
    err = capsys.readouterr().err
    assert "sha256:othermodel" in err and RandomWordScorer.fingerprint in err and "my-org/my-model" in err


@pytest.mark.parametrize("window", [64, 200])
def test_scan_and_export_accept_the_same_windows(tmp_path: Path, window: int) -> None:
    assert Settings(window=window).window == MaskRule(window=window).window


def test_scan_and_export_refuse_the_same_windows() -> None:
    with pytest.raises(ValueError, match=r"window must be 1\.\.256") as from_settings:
        Settings(window=300)
    with pytest.raises(ValueError, match=r"window must be 1\.\.256") as from_rule:
        MaskRule(window=300)
    assert str(from_settings.value) == str(from_rule.value)


@pytest.mark.parametrize(
    ("rule", "config", "message"),
    [
        ({"window": "abc"}, "", "invalid literal for int()"),
        ({"ranking": "weird"}, "", "ranking must be global or local, got 'weird'"),
        ({"window": 1}, "consensus = 2\n", "consensus must be 1..window"),
    ],
)
@pytest.mark.parametrize("command", ["repo", "export"])
def test_a_saved_surprise_rule_no_rule_can_have_is_one_line_and_exit_2(
    tmp_path: Path, cli: Cli, capsys: pytest.CaptureFixture[str], rule: dict, config: str, message: str, command: str
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "a.py").write_text(f"token = '{KEY}'\n")
    thresholds = write_thresholds(project / "t.json", RandomWordScorer.fingerprint)
    data = json.loads(thresholds.read_text())
    data["kinds"]["surprise"]["rule"].update(rule)
    thresholds.write_text(json.dumps(data))
    (project / ".smscan.toml").write_text(f'thresholds = "t.json"\n{config}')
    source = project / "in.jsonl"
    source.write_text(json.dumps({"text": f"token = '{KEY}'\n"}) + "\n")
    argv = ["repo", str(project), "--kinds", "surprise"] if command == "repo" else [
        "export", str(source), "-o", str(project / "out.jsonl"), "--config", str(project / ".smscan.toml")]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"surprise rule ({thresholds})" in err and message in err
