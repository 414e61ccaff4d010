"""Commands take the model, the environment and the streams from the injected Services."""

from __future__ import annotations

import io
import json
from pathlib import Path

from smscan.cli import main
from smscan.cli.services import Services
from tests.conftest import write_files
from tests.scorers import THRESHOLD_ARGS, RandomWordScorer

SECRET = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"


def test_a_scan_uses_the_injected_model_behind_the_real_score_cache(cli, tmp_path: Path) -> None:
    write_files(tmp_path, {"a.py": f"x = 1\nkey = '{SECRET}'\n"})
    first = cli("repo", str(tmp_path), "--format", "json", *THRESHOLD_ARGS)
    assert first.code == 1, first.err
    assert [f["path"] for f in json.loads(first.out)["findings"]] == ["a.py"]
    assert [spec for spec, _ in cli.loads] == ["default"]
    # The second scan is answered by the score cache in front of the injected model.
    scored = len(cli.scorer.texts)
    second = cli("repo", str(tmp_path), "--format", "json", *THRESHOLD_ARGS)
    assert (second.code, len(cli.scorer.texts)) == (1, scored)


def test_the_model_comes_from_the_injected_environment(cli, tmp_path: Path) -> None:
    write_files(tmp_path, {"a.py": "x = 1\n"})
    cli.environ["SMSCAN_MODEL"] = "org/other-model"
    result = cli("repo", str(tmp_path), "--no-cache", *THRESHOLD_ARGS)
    assert result.code == 0, result.err
    assert [spec for spec, _ in cli.loads] == ["org/other-model"]


def test_device_and_dtype_reach_the_loader(cli, tmp_path: Path) -> None:
    write_files(tmp_path, {"a.py": "x = 1\n"})
    assert cli("repo", str(tmp_path), "--no-cache", "--device", "cpu", "--dtype", "fp32", *THRESHOLD_ARGS).code == 0
    [(_, options)] = cli.loads
    assert (options["device"], options["dtype"]) == ("cpu", "fp32")


def test_reports_go_to_the_injected_stdout(tmp_path: Path) -> None:
    write_files(tmp_path, {"a.py": f"key = '{SECRET}'\n"})
    out, scorer = io.StringIO(), RandomWordScorer()
    services = Services(environ={}, load_model=lambda *args, **kwargs: scorer, stdout=out, stderr=io.StringIO())
    assert main(["repo", str(tmp_path), "--no-cache", "--format", "sarif", *THRESHOLD_ARGS], services=services) == 1
    assert json.loads(out.getvalue())["runs"][0]["results"]
    assert scorer.texts  # the injected model scored the file
