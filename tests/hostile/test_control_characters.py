"""File names and code that carry terminal escapes, bidi overrides or NULs are shown, never obeyed.

The text report and explain print every path and snippet through smscan.reports.visible (piped
and on a terminal); JSON and SARIF escape the same characters and still decode to the exact path.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smscan.reports.visible import visible
from tests.cli_runner import Cli
from tests.conftest import commit_files
from tests.scorers import TEST_CONFIG

SECRET = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"
ESC_NAME = "esc\x1b[31mred.py"
BIDI_NAME = "bidi\u202egnp.py"
# Raw characters that must never reach a terminal from scanned content.
RAW = ("\x1b[31m", "\u202e", "\u2066", "\x7f", "\x9b", "\u200b", "\x07")


@pytest.fixture
def repo(git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli) -> Path:
    commit_files(
        git_repo,
        {
            ESC_NAME: f"key = '{SECRET}'\n",
            BIDI_NAME: f"a = 1\nkey = '{SECRET}' \u2066# \u202ehidden\u2069\x07 \x9b2J \x7f z\u200bw\n",
        },
    )
    (tmp_path / "c.toml").write_text(TEST_CONFIG)
    monkeypatch.chdir(git_repo)
    return git_repo


def _run(cli: Cli, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = cli.main(list(args))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out + captured.err


@pytest.mark.parametrize("terminal", [False, True])
def test_the_text_report_shows_control_characters_as_escapes(
    cli: Cli, repo: Path, tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch, terminal: bool
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the whole line fits
    if terminal:
        monkeypatch.setenv("FORCE_COLOR", "1")  # rich then writes as to a terminal, with colour
    code, out = _run(cli, capsys, "repo", ".", "--config", str(tmp_path / "c.toml"), "--no-redact")
    assert code == 1
    for raw in RAW:
        assert raw not in out, repr(raw)
    assert visible(ESC_NAME) in out and visible(BIDI_NAME) in out
    assert "\\u2066" in out and "# \\u202ehidden\\u2069\\x07 \\x9b2J \\x7f z\\u200bw" in out
    assert ("\x1b[" in out) is terminal  # a terminal still gets rich's own styles


@pytest.mark.parametrize("report_format", ["json", "sarif"])
def test_json_and_sarif_escape_them_and_keep_the_exact_path(cli: Cli, repo: Path, tmp_path: Path, capsys, report_format: str) -> None:
    code, out = _run(cli, capsys, "repo", ".", "--config", str(tmp_path / "c.toml"), "--format", report_format)
    assert code == 1
    for raw in RAW:
        assert raw not in out, repr(raw)
    document = json.loads(out)
    paths = (
        {f["path"] for f in document["findings"]}
        if report_format == "json"
        else {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in document["runs"][0]["results"]}
    )
    if report_format == "json":
        assert paths == {ESC_NAME, BIDI_NAME}
    else:  # SARIF spells paths as URIs
        assert len(paths) == 2


def test_explain_shows_them_as_escapes(cli: Cli, repo: Path, tmp_path: Path, capsys) -> None:
    code, out = _run(cli, capsys, "explain", BIDI_NAME, "--config", str(tmp_path / "c.toml"), "--no-redact")
    assert code == 0
    for raw in RAW:
        assert raw not in out, repr(raw)
    assert visible(BIDI_NAME) in out and "\\u202ehidden" in out


def test_an_error_naming_such_a_file_shows_it_escaped(cli: Cli, repo: Path, capsys) -> None:
    code, out = _run(cli, capsys, "files", "missing\x1b]0;pwned\x07.py")
    assert code == 2 and "\x1b" not in out and "\x07" not in out and "missing\\x1b]0;pwned\\x07.py" in out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain/path é.py", "plain/path é.py"),
        ("a\tb\nc\rd", "a\\tb\\nc\\rd"),
        ("\x00\x7f\x9b", "\\x00\\x7f\\x9b"),
        ("\u202e\u2066\u200b\ufeff\u2028", "\\u202e\\u2066\\u200b\\ufeff\\u2028"),
        ("\udcff.py", "\\xff.py"),
        ("\U000e0041", "\\U000e0041"),
    ],
)
def test_visible(text: str, expected: str) -> None:
    assert visible(text) == expected
