"""Help reads like git's and pre-commit's at 80 columns; `smscan --version`."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from smscan import __version__
from smscan.cli import main

COMMANDS = [
    ["repo"], ["staged"], ["diff"], ["files"], ["hook"], ["baseline"], ["install-hook"], ["explain"],
    ["calibrate"], ["eval"], ["export"], ["serve"], ["model", "info"], ["model", "pull"], ["cache", "info"],
]


@pytest.fixture(autouse=True)
def eighty_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")


def _help(args: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([*args, "--help"]) == 0
    return out.getvalue()


def test_the_command_list_is_one_short_line_per_command() -> None:
    text = _help([])
    listed = text.split("Commands:\n", 1)[1].splitlines()
    names = [line.split()[0] for line in listed if line.strip()]
    assert names == ["repo", "staged", "diff", "files", "hook", "baseline", "install-hook", "explain",
                     "calibrate", "eval", "export", "serve", "model", "cache"]
    assert len([line for line in listed if line.strip()]) == len(names)  # no line wraps
    assert all(len(line) <= 80 and not line.rstrip().endswith("...") for line in listed)


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_fits_80_columns_without_type_placeholders(command: list[str]) -> None:
    text = _help(command)
    assert all(len(line) <= 80 for line in text.splitlines()), text
    assert not re.search(r"<(bool|str|path|int|float|text)>", text), text
    assert "{" not in text.split("\n", 1)[0], text  # the usage line shows no {base}
    assert "╭" not in text  # plain text, as git and pre-commit print it


@pytest.mark.parametrize(
    ("command", "usage"),
    [
        (["diff"], "Usage: smscan diff [OPTIONS] BASE[...HEAD] [HEAD]"),
        (["files"], "Usage: smscan files [OPTIONS] FILES..."),
        (["hook"], "Usage: smscan hook [OPTIONS] [FILES...]"),
        (["repo"], "Usage: smscan repo [OPTIONS] [PATH]"),
        (["explain"], "Usage: smscan explain [OPTIONS] FILE[:LINE[-LINE]]"),
    ],
)
def test_arguments_show_as_their_names(command: list[str], usage: str) -> None:
    assert _help(command).splitlines()[0] == usage


def test_flags_take_no_placeholder_and_values_name_what_they_take() -> None:
    text = _help(["repo"])
    assert re.search(r"^  --no-cache +Score", text, re.MULTILINE)
    assert re.search(r"^  -f, --format text\|json\|sarif +Report format", text, re.MULTILINE)
    assert re.search(r"^  --thresholds FILE +Calibrated", text, re.MULTILINE)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"smscan {__version__}\n"


@pytest.mark.parametrize("command", [[], ["model"], ["cache"]], ids=lambda c: " ".join(c) or "smscan")
def test_no_command_prints_the_help_as_it_is(capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    assert main(command) == 2
    err = capsys.readouterr().err
    assert err.startswith("Usage: smscan") and "smscan: error" not in err
    listed = err.split("Commands:\n", 1)[1].splitlines()
    assert all(len(line) <= 80 and not line.endswith("...") for line in listed)


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_reports_carry_the_version_that_made_them(cli, tmp_path, fmt: str) -> None:
    import json

    (tmp_path / "a.py").write_text("x = 1\n")
    result = cli("repo", str(tmp_path), "--format", fmt, "--kinds", "surprise", "--threshold", "3")
    report = json.loads(result.out)
    version = report["tool"]["version"] if fmt == "json" else report["runs"][0]["tool"]["driver"]["version"]
    assert (result.code, version) == (0, __version__)
