"""Every input is checked before the model loads, and a bad value's message names its source.

Each case exits 2 with one line on stderr, no traceback, and no model load (``cli.loads``):
the order of calls, not the clock, shows that the check came first.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import write_files

LABELS = '{"code": "x = 1\\ny = 2\\n", "poisoned_lines": [2]}\n'


def _tree(tmp: Path, **extra: str) -> None:
    write_files(tmp, {"src/a.py": "x = 1\n", **extra})


CASES: list[tuple[str, Callable[[Path], None], list[str], str]] = [
    ("kinds flag", _tree, ["repo", "{tmp}", "--kinds", "password"], "--kinds: kinds must be one of"),
    ("dtype flag", _tree, ["repo", "{tmp}", "--dtype", "fp64"], "--dtype: dtype must be one of"),
    ("device flag", _tree, ["files", "{tmp}/src/a.py", "--device", "tpu"], "--device: device must be one of"),
    ("dtype key", lambda t: _tree(t, **{".smscan.toml": 'dtype = "fp64"\n'}), ["repo", "{tmp}"],
     "{tmp}/.smscan.toml key 'dtype': dtype must be one of"),
    ("kinds key in pyproject", lambda t: _tree(t, **{"pyproject.toml": '[tool.smscan]\nkinds = ["password"]\n'}),
     ["repo", "{tmp}"], "{tmp}/pyproject.toml [tool.smscan] key 'kinds': kinds must be one of"),
    ("flag against a key", lambda t: _tree(t, **{".smscan.toml": 'runtime = "torch"\n'}), ["repo", "{tmp}", "--dtype", "int8"],
     "--dtype: dtype int8 needs runtime ctranslate2"),
    ("thresholds flag", _tree, ["repo", "{tmp}", "--thresholds", "{tmp}/nosuch.json"],
     "--thresholds: {tmp}/nosuch.json: thresholds file not found"),
    ("thresholds key", lambda t: _tree(t, **{".smscan.toml": 'thresholds = "gone.json"\n'}), ["repo", "{tmp}"],
     "{tmp}/.smscan.toml key 'thresholds': {tmp}/gone.json: thresholds file not found"),
    ("bad thresholds file", lambda t: _tree(t, **{"t.json": "{"}), ["repo", "{tmp}", "--thresholds", "{tmp}/t.json"],
     "--thresholds: "),
    ("baseline flag", _tree, ["repo", "{tmp}", "--baseline", "{tmp}/nosuch.json"], "--baseline: {tmp}/nosuch.json: "),
    ("baseline key", lambda t: _tree(t, **{".smscan.toml": 'baseline = "b.json"\n', "b.json": "not json"}), ["repo", "{tmp}"],
     "{tmp}/.smscan.toml key 'baseline': {tmp}/b.json: not a baseline file"),
    ("explain thresholds", _tree, ["explain", "{tmp}/src/a.py", "--thresholds", "{tmp}/nosuch.json"], "--thresholds: "),
    ("export thresholds", _tree, ["export", "{tmp}/src", "-o", "{tmp}/out.jsonl", "--thresholds", "{tmp}/nosuch.json"],
     "--thresholds: "),
    ("eval thresholds", lambda t: _tree(t, **{"labels.jsonl": LABELS}),
     ["eval", "--kind", "dead-code", "--labels", "{tmp}/labels.jsonl", "--thresholds", "{tmp}/nosuch.json"], "--thresholds: "),
    ("eval dtype", lambda t: _tree(t, **{"labels.jsonl": LABELS}),
     ["eval", "--kind", "dead-code", "--labels", "{tmp}/labels.jsonl", "--dtype", "fp64"], "--dtype: dtype must be one of"),
    ("usage error", _tree, ["repo", "{tmp}", "--format", "xml"], "Invalid value for '--format'"),
]


@pytest.mark.parametrize(("setup", "args", "message"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_bad_input_fails_before_the_model_loads_and_names_its_source(
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, setup: Callable[[Path], None], args: list[str], message: str
) -> None:
    setup(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = cli(*(arg.replace("{tmp}", str(tmp_path)) for arg in args))
    assert result.code == 2, result.err
    assert len(result.err_lines) == 1, result.err
    assert "Traceback" not in result.err + result.out
    assert message.replace("{tmp}", str(tmp_path)) in result.err
    assert "defaults:" not in result.err
    assert cli.loads == []


def test_a_usage_error_says_where_help_is(cli) -> None:
    result = cli("repo", "--no-such-flag")
    assert result.code == 2 and len(result.err_lines) == 1
    assert "No such option" in result.err and "(see 'smscan repo --help')" in result.err


def test_a_library_parameter_is_named_by_its_flag(cli, tmp_path: Path) -> None:
    # RayCluster says "workers must be at least 1"; the CLI names the flag the user typed.
    pytest.importorskip("ray")
    write_files(tmp_path, {"in.jsonl": '{"text": "x"}\n'})
    result = cli("export", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "o.jsonl"), "--engine", "ray", "--workers", "0")
    assert result.code == 2 and result.err_lines == ["smscan: error: --workers must be at least 1, got 0"]


def test_the_library_names_an_override_it_was_not_told_about(tmp_path: Path) -> None:
    from smscan.config.settings import load_settings
    from smscan.errors import ConfigError

    with pytest.raises(ConfigError, match="^the value given for window: window must be 1..256"):
        load_settings(tmp_path, overrides={"window": 0}, environ={})
    with pytest.raises(ConfigError, match="^--window: window must be"):
        load_settings(tmp_path, overrides={"window": 0}, environ={}, origins={"window": "--window"})


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--placeholder", "no-equals-sign"], "--placeholder 'no-equals-sign': expected KIND=TEXT"),
        (["--tokenizer", "{tmp}/no-such-tokenizer"], "tokenizer {tmp}/no-such-tokenizer: cannot load it"),
    ],
)
def test_export_options_fail_before_the_model_loads(cli, tmp_path: Path, args: list[str], message: str) -> None:
    write_files(tmp_path, {"in.jsonl": '{"text": "x = 1"}\n'})
    result = cli("export", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "o.jsonl"),
                 *(arg.replace("{tmp}", str(tmp_path)) for arg in args))
    assert result.code == 2 and len(result.err_lines) == 1, result.err
    assert message.replace("{tmp}", str(tmp_path)) in result.err
    assert cli.loads == []


@pytest.mark.parametrize(
    ("how", "origin"),
    [
        ("env", "environment variable SMSCAN_MODEL"),
        ("config", "{tmp}/.smscan.toml key 'model'"),
        ("flag", "--model"),
    ],
)
def test_a_model_that_does_not_load_names_where_its_name_came_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str, origin: str
) -> None:
    from smscan.cli import main
    from smscan.cli.services import Services
    from smscan.errors import ModelError

    def missing(spec: str, **options: object) -> object:
        raise ModelError(f"model {spec!r}: no such folder or hub id")

    write_files(tmp_path, {"a.py": "x = 1\n"})
    import os

    args = ["repo", str(tmp_path), "--no-cache", "--kinds", "surprise"]
    environ = {key: value for key, value in os.environ.items() if key != "SMSCAN_MODEL"}
    if how == "env":
        environ["SMSCAN_MODEL"] = "org/nope"
    elif how == "config":
        write_files(tmp_path, {".smscan.toml": 'model = "org/nope"\n'})
    else:
        args += ["--model", "org/nope"]
    assert main(args, services=Services(environ=environ, load_model=missing)) == 2
    err = capsys.readouterr().err
    assert err == f"smscan: error: {origin.replace('{tmp}', str(tmp_path))}: model 'org/nope': no such folder or hub id\n"
