"""Every scanning mode produces every format, and no format shows a flagged value by default."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from smscan import __version__
from tests.cli_runner import Cli
from tests.conftest import commit_files, stage_files
from tests.scorers import TEST_CONFIG

SECRET = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"
SCHEMA = json.loads((Path(__file__).parents[1] / "data" / "sarif-schema-2.1.0.json").read_text("utf-8"))
BASE = "".join(f"value_{i} = {i}\n" for i in range(1, 10))
WITH_SECRET = BASE.replace("value_6 = 6", f"api_key = '{SECRET}'")

# mode -> (arguments, whether the secret is committed (else only staged))
MODES = {
    "repo": (["repo", "."], True),
    "files": (["files", "a.py"], True),
    "diff": (["diff", "HEAD~1"], True),
    "staged": (["staged"], False),
    "hook": (["hook", "a.py"], False),
}


@pytest.fixture
def config(tmp_path: Path) -> list[str]:
    path = tmp_path / "smscan-test.toml"
    path.write_text(TEST_CONFIG)
    return ["--config", str(path)]


@pytest.fixture
def scanned_repo(git_repo: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli) -> Path:
    monkeypatch.chdir(git_repo)
    monkeypatch.delenv("CI", raising=False)
    return git_repo


def prepare(repo: Path, committed: bool) -> None:
    commit_files(repo, {"a.py": BASE})
    if committed:
        commit_files(repo, {"a.py": WITH_SECRET}, message="add a key")
    else:
        stage_files(repo, {"a.py": WITH_SECRET})


def check_report(fmt: str, text: str) -> None:
    if fmt == "json":
        report = json.loads(text)
        assert [(f["path"], f["start"]["line"]) for f in report["findings"]] == [("a.py", 6)]
        assert report["findings"][0]["preview"].endswith(" chars]")
    elif fmt == "sarif":
        log = json.loads(text)
        jsonschema.Draft4Validator(SCHEMA).validate(log)
        [result] = log["runs"][0]["results"]
        assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 6
    else:
        assert "a.py" in text and " chars]" in text and "summary" in text


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
@pytest.mark.parametrize("mode", sorted(MODES))
def test_every_mode_writes_every_format_redacted(
    cli: Cli, scanned_repo: Path, config: list[str], capsys: pytest.CaptureFixture[str], mode: str, fmt: str
) -> None:
    args, committed = MODES[mode]
    prepare(scanned_repo, committed)
    code = cli.main([*args, "--format", fmt, *config])
    captured = capsys.readouterr()
    out = captured.out
    assert code == 1, captured.err
    assert SECRET not in out
    check_report(fmt, out)


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_reports_written_to_a_file_are_redacted_and_folders_created(
    cli: Cli, scanned_repo: Path, config: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path, fmt: str
) -> None:
    prepare(scanned_repo, True)
    output = tmp_path / "reports" / "nested" / f"smscan.{fmt}"
    assert cli.main(["repo", ".", "--format", fmt, "-o", str(output), *config]) == 1
    text = output.read_text("utf-8")
    assert SECRET not in text
    check_report(fmt, text)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_no_redact_shows_the_value(
    cli: Cli, scanned_repo: Path, config: list[str], capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    prepare(scanned_repo, True)
    assert cli.main(["repo", ".", "--format", fmt, "--no-redact", *config]) == 1
    assert SECRET in capsys.readouterr().out


@pytest.mark.parametrize(("environ", "shown"), [({}, True), ({"CI": "true"}, False)])
def test_a_terminal_shows_values_except_in_ci(
    cli: Cli, scanned_repo: Path, config: list[str], capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, environ: dict[str, str], shown: bool,
) -> None:
    prepare(scanned_repo, True)
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich treats stdout as a terminal
    monkeypatch.delenv("NO_COLOR", raising=False)
    cli.environ.update(environ)  # the environment the command sees (Services.environ)
    assert cli.main(["repo", ".", *config]) == 1
    assert (SECRET in capsys.readouterr().out) is shown


def test_quiet_prints_only_the_summary(
    cli: Cli, scanned_repo: Path, config: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    prepare(scanned_repo, True)
    assert cli.main(["repo", ".", "--quiet", *config]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"summary (smscan {__version__})\n") and "a.py" not in out and "\x1b[" not in out
