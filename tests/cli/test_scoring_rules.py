"""Scoring rules through settings, the CLI, saved thresholds and the worker key (tiny real model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smscan.rules.thresholds_file import find_entry, packaged_thresholds, split_scoring_rule
from smscan.cli import main
from smscan.config.settings import Settings, load_settings
from smscan.errors import ConfigError, ThresholdsError
from smscan.config.instructions import PURPOSES, instructions_digest, resolve_instructions
from smscan.model.load import load_scorer
from smscan.model.prompted import PromptedScorer
from smscan.scoring.worker_address import worker_key
from tests.cli_runner import Cli
from tests.conftest import commit_files, write_key_labels
from tests.fakes import build_tiny_model

SECRET_FILE = "import os\n\nAPI_KEY = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'\nprint(API_KEY)\n"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> object:
    folder = build_tiny_model(tmp_path_factory.mktemp("tiny"))
    return load_scorer(str(folder), device="cpu", dtype="fp32", cache_dir=tmp_path_factory.mktemp("cache"))


@pytest.fixture
def tiny_loader(tiny: object, cli: Cli) -> object:
    """Every command ``cli.main`` runs loads the tiny model (the chain still wraps it in the scoring rule)."""
    cli.scorer = tiny  # type: ignore[assignment]
    return tiny


@pytest.mark.parametrize(
    ("rule", "given", "expected"),
    [
        ("unprompted", (), ()),
        ("prompted", (), (PURPOSES["credentials"].compliant,)),
        ("contrast", ("dead-code",), (PURPOSES["dead-code"].violating, PURPOSES["dead-code"].compliant)),
        ("prompted", ("Keep ordinary code.",), ("Keep ordinary code.",)),
        ("contrast", ("Keep secrets.", "Remove secrets."), ("Keep secrets.", "Remove secrets.")),
    ],
)
def test_instructions_resolve_to_texts_in_pass_order(rule: str, given: tuple[str, ...], expected: tuple[str, ...]) -> None:
    assert resolve_instructions(rule, given) == expected


@pytest.mark.parametrize(
    ("rule", "given", "message"),
    [
        ("unprompted", ("credentials",), "not unprompted"),
        ("contrast", ("only one custom text",), "two instruction texts"),
        ("prompted", ("a", "b"), "one instruction text"),
        ("contrast", ("a", " "), "two instruction texts"),
        ("local", (), "scoring_rule must be one of"),
    ],
)
def test_bad_instructions_are_refused(rule: str, given: tuple[str, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        resolve_instructions(rule, given)


def test_config_file_sets_the_rule_and_flags_beat_it(tmp_path: Path) -> None:
    (tmp_path / ".smscan.toml").write_text('scoring_rule = "contrast"\ninstructions = ["personal-data"]\n', encoding="utf-8")
    settings = load_settings(tmp_path)
    assert (settings.scoring_rule, settings.instructions) == ("contrast", ("personal-data",))
    flagged = load_settings(tmp_path, overrides={"scoring_rule": "prompted", "instructions": ("Keep code.",)})
    assert (flagged.scoring_rule, flagged.instructions) == ("prompted", ("Keep code.",))
    (tmp_path / ".smscan.toml").write_text('scoring_rule = "contrast"\ninstructions = ["a", "b", "c"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="instructions for scoring_rule contrast"):
        load_settings(tmp_path)


def test_only_a_contrast_takes_a_negative_threshold() -> None:
    assert Settings(scoring_rule="contrast", threshold=-0.5).threshold == -0.5
    with pytest.raises(ValueError, match="between 0 and 100"):
        Settings(scoring_rule="prompted", threshold=-0.5)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scoring-rule", "local"], "scoring_rule must be one of"),
        (["--instructions", "credentials"], "not unprompted"),
        (["--scoring-rule", "contrast", "--instructions", "just one text"], "two instruction texts"),
    ],
)
def test_bad_rule_flags_exit_2_with_one_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code = main(["repo", str(tmp_path), *args])
    captured = capsys.readouterr()
    assert code == 2 and message in captured.err
    assert "Traceback" not in captured.err + captured.out and len(captured.err.strip().splitlines()) == 1


def test_worker_key_names_the_rule_and_instructions() -> None:
    keys = {
        worker_key(Settings()),
        worker_key(Settings(scoring_rule="prompted")),
        worker_key(Settings(scoring_rule="contrast")),
        worker_key(Settings(scoring_rule="contrast", instructions=("dead-code",))),
    }
    assert len(keys) == 4


def _entry_file(path: Path, fingerprint: str) -> Path:
    data = packaged_thresholds()
    for entry in data["kinds"].values():
        entry["fingerprint"] = fingerprint
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_thresholds_of_one_rule_are_refused_under_another(tmp_path: Path) -> None:
    weights = "sha256:0123456789abcdef"
    contrast = f"{weights}+contrast-{instructions_digest('contrast', ['a', 'b'])}"
    files = [("t.json", json.loads(_entry_file(tmp_path / "t.json", contrast).read_text()))]
    assert find_entry(files, "credential", fingerprint=contrast, model="m").fingerprint == contrast
    assert split_scoring_rule(contrast) == (weights, contrast.split("+")[-1])
    with pytest.raises(ThresholdsError, match="the contrast scoring rule .* but this command scores with unprompted"):
        find_entry(files, "credential", fingerprint=weights, model="m")
    other = f"{weights}+contrast-{instructions_digest('contrast', ['b', 'a'])}"
    with pytest.raises(ThresholdsError, match="with other instructions"):
        find_entry(files, "credential", fingerprint=other, model="m")
    plain = [("p.json", json.loads(_entry_file(tmp_path / "p.json", weights).read_text()))]
    with pytest.raises(ThresholdsError, match="the unprompted scoring rule .* scores with prompted"):
        find_entry(plain, "credential", fingerprint=f"{weights}+prompted-{'0' * 12}", model="m")


def test_a_scan_refuses_unprompted_thresholds_under_contrast_and_uses_its_own(
    git_repo: Path, tiny_loader: object, cli: Cli, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    commit_files(git_repo, {"app.py": SECRET_FILE})
    args = ["repo", str(git_repo), "--format", "json"]
    unprompted = _entry_file(tmp_path / "plain.json", tiny_loader.fingerprint)  # type: ignore[attr-defined]
    assert cli.main([*args, "--thresholds", str(unprompted)]) in (0, 1)
    capsys.readouterr()
    code = cli.main([*args, "--thresholds", str(unprompted), "--scoring-rule", "contrast"])
    err = capsys.readouterr().err
    assert code == 2 and "calibrated under the unprompted scoring rule" in err and "contrast" in err
    fingerprint = PromptedScorer(tiny_loader, "contrast", resolve_instructions("contrast", ())).fingerprint
    own = _entry_file(tmp_path / "contrast.json", fingerprint)
    assert cli.main([*args, "--thresholds", str(own), "--scoring-rule", "contrast"]) in (0, 1)
    report = json.loads(capsys.readouterr().out)
    assert report["model"]["fingerprint"] == fingerprint
    code = cli.main([*args, "--thresholds", str(own), "--scoring-rule", "contrast", "--instructions", "dead-code"])
    assert code == 2 and "other instructions" in capsys.readouterr().err


def test_explain_shows_both_passes_of_a_contrast(
    tmp_path: Path, tiny_loader: object, cli: Cli, capsys: pytest.CaptureFixture[str]
) -> None:
    from smscan.engine.passes import contrast_windows

    path = tmp_path / "app.py"
    path.write_text(SECRET_FILE, encoding="utf-8")
    code = cli.main(["explain", str(path), "--kinds", "surprise", "--threshold", "1", "--scoring-rule", "contrast"])
    out = capsys.readouterr().out
    assert code == 0 and "Contrast: both passes per window" in out
    scorer = PromptedScorer(tiny_loader, "contrast", resolve_instructions("contrast", ()))
    [passes] = scorer.score_passes([SECRET_FILE])
    every = contrast_windows(SECRET_FILE, passes, window=4, first_line=1, last_line=4, top=1000)
    expected = {(w.line, f"{w.violating:.2f}", f"{w.compliant:.2f}", f"{w.contrast:+.2f}") for w in every}
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in out.splitlines() if line.count("│") == 6]
    shown = {(int(r[0]), r[2], r[3], r[4]) for r in rows if r[0].isdigit()}
    assert len(shown) >= 5 and shown <= expected  # both passes and their difference, per window
    assert all(r[1].endswith("chars]") for r in rows if r[0].isdigit())  # window text redacted off a terminal


def test_a_started_worker_is_told_the_rule_a_flag_chose() -> None:
    from smscan.scoring.worker_spawn import serve_argv

    argv = serve_argv(Settings(scoring_rule="contrast", instructions=("keep it", "drop it")), idle_timeout=60)
    assert argv[argv.index("--scoring-rule") + 1] == "contrast"
    assert [argv[i + 1] for i, arg in enumerate(argv) if arg == "--instructions"] == ["keep it", "drop it"]
    assert "--scoring-rule" not in serve_argv(Settings(), idle_timeout=60)


def test_export_scores_under_the_rule_locally_and_ray_refuses_it(
    tmp_path: Path, tiny_loader: object, cli: Cli, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps({"text": SECRET_FILE}) + "\n", encoding="utf-8")
    (tmp_path / ".smscan.toml").write_text('scoring_rule = "contrast"\n', encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert cli.main(["export", str(data), "-o", str(out), "--threshold", "1"]) == 0
    capsys.readouterr()
    written = out.read_text(encoding="utf-8") + "".join(p.read_text(encoding="utf-8") for p in tmp_path.glob("out*.json"))
    fingerprint = PromptedScorer(tiny_loader, "contrast", resolve_instructions("contrast", ())).fingerprint
    assert fingerprint in written
    code = cli.main(["export", str(data), "-o", str(tmp_path / "ray.jsonl"), "--engine", "ray"])
    err = capsys.readouterr().err
    assert code == 2 and "--engine ray scores unprompted only" in err and "Traceback" not in err


def test_calibrate_under_a_rule_then_eval_under_it_only(
    tmp_path: Path, tiny_loader: object, cli: Cli, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    keys = ["sk_live_4eC39HqLyjWDarjtT1zdp7dc", "ghp_Zr8KqY2vLw0Xb5NcT7uHs3Jd9PfA1mGe", "AKIAQ7ZK4M2X8V3N6PLR"]
    labels = write_key_labels(tmp_path / "labels.jsonl", keys)
    thresholds = tmp_path / "thresholds.json"
    rule = ["--scoring-rule", "prompted", "--instructions", "personal-data"]
    assert cli.main(["calibrate", "--kind", "credential", "--labels", str(labels), "-o", str(thresholds), *rule]) == 0
    fingerprint = json.loads(thresholds.read_text(encoding="utf-8"))["kinds"]["credential"]["fingerprint"]
    assert split_scoring_rule(fingerprint)[1].startswith("prompted-")
    capsys.readouterr()
    evaluate = ["eval", "--kind", "credential", "--labels", str(labels), "--thresholds", str(thresholds), "--format", "json"]
    assert cli.main([*evaluate, *rule]) == 0
    assert "tpr" in json.loads(capsys.readouterr().out)["char"]
    assert cli.main(evaluate) == 2  # the same thresholds without the rule
    assert "calibrated under the prompted scoring rule" in capsys.readouterr().err


def test_the_chain_remembers_each_rule_s_identity_apart(tmp_path: Path) -> None:
    from smscan.scoring.chain import build_scorer

    folder = build_tiny_model(tmp_path / "tiny")
    environ = {"SMSCAN_SCORE_CACHE": str(tmp_path / "scores"), "SMSCAN_CACHE": str(tmp_path / "root")}
    requests = {
        build_scorer(Settings(model=str(folder), worker="off", **rule), environ=environ).scorer._request  # type: ignore[arg-type]
        for rule in ({}, {"scoring_rule": "prompted"}, {"scoring_rule": "contrast"},
                     {"scoring_rule": "contrast", "instructions": ("dead-code",)})
    }
    assert len(requests) == 4 and None not in requests
