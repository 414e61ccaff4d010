"""File names that are not UTF-8 (kept by Python as surrogate escapes, ``caf\\udce9.py``) and lone
surrogates in dataset text, through every writer: exports (JSONL, Parquet, rejects), reports
written to files and the verbose skip list. Each file written must be valid UTF-8 and read back.

The JSONL writer used to write such a name with ``surrogatepass``: bytes no UTF-8 reader accepts,
so the Parquet conversion of the same export crashed with a traceback.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli_runner import Cli
from tests.conftest import run_git
from tests.scorers import TEST_CONFIG

SECRET = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"
NAME = os.fsdecode(b"caf\xe9.py")  # 'caf\udce9.py'
BINARY_NAME = os.fsdecode(b"img\xff.png")


@pytest.fixture
def repo(git_repo: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli) -> Path:
    (git_repo / NAME).write_text(f"key = '{SECRET}'\n")
    (git_repo / BINARY_NAME).write_bytes(b"\x89PNG\0\0\0")
    (git_repo / "ok.py").write_text("x = 1\n")
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-qm", "names that are not UTF-8")
    monkeypatch.chdir(git_repo)
    return git_repo


def utf8_lines(path: Path) -> list[dict]:
    text = path.read_bytes().decode("utf-8")  # strict: the file is UTF-8
    return [json.loads(line) for line in text.splitlines()]


def test_export_to_jsonl_and_parquet(cli: Cli, repo: Path, tmp_path: Path, capsys) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    for name in ("out.jsonl", "out.parquet"):
        code = cli.main(["export", str(repo), "-o", str(tmp_path / name), "--kinds", "surprise", "--threshold", "3"])
        err = capsys.readouterr().err
        assert code == 0 and "Traceback" not in err, err
    records = utf8_lines(tmp_path / "out.jsonl")
    assert [r["path"] for r in records] == [NAME, "ok.py"]  # the exact name, as a JSON escape
    assert "caf\\udce9.py" in (tmp_path / "out.jsonl").read_text(encoding="utf-8")
    assert records[0]["smscan"]["masked_spans"]
    rows = pq.read_table(tmp_path / "out.parquet").to_pylist()
    assert [r["path"] for r in rows] == ["caf\ufffd.py", "ok.py"]  # Parquet strings are UTF-8
    assert [r["smscan"]["masked_spans"] for r in rows] == [r["smscan"]["masked_spans"] for r in records]


def test_lone_surrogates_in_dataset_records_and_rejects(tmp_path: Path, cli: Cli, capsys) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(
        json.dumps({"text": f"a \udc80 key = '{SECRET}'\n", "id": "\ud800"}) + "\n"
        + json.dumps({"text": 5, "note": "\udcff"}) + "\n",  # rejected: the text is not a string
        encoding="utf-8",
    )
    assert source.read_text(encoding="utf-8").isascii()  # json.dumps escapes them
    out = tmp_path / "out.jsonl"
    code = cli.main(["export", str(source), "-o", str(out), "--kinds", "surprise", "--threshold", "3"])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err, err  # one record rejected
    [record] = utf8_lines(out)
    assert record["text"].startswith("a \udc80 key") and record["id"] == "\ud800"
    assert record["smscan"]["masked_spans"]
    [reject] = utf8_lines(tmp_path / "out.jsonl.rejects.jsonl")
    assert json.loads(reject["record"])["note"] == "\udcff"


@pytest.mark.parametrize("report_format", ["text", "json", "sarif"])
def test_reports_written_to_files_and_the_skip_list(cli: Cli, repo: Path, tmp_path: Path, capsys, report_format: str) -> None:
    config = tmp_path / "c.toml"
    config.write_text(TEST_CONFIG)
    target = repo / f"report.{report_format}"
    code = cli.main(["repo", ".", "--config", str(config), "--format", report_format, "-o", str(target), "-v"])
    captured = capsys.readouterr()
    assert code == 1 and "Traceback" not in captured.out + captured.err, captured.err
    written = target.read_bytes().decode("utf-8")
    if report_format == "text":
        assert "caf\\xe9.py" in written and "binary" in written and "img\\xff.png" in written
    elif report_format == "json":
        assert [f["path"] for f in json.loads(written)["findings"]] == [NAME]
    else:
        [result] = json.loads(written)["runs"][0]["results"]
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "caf%E9.py"


def test_explain_names_the_file_escaped(cli: Cli, repo: Path, tmp_path: Path, capsys) -> None:
    config = tmp_path / "c.toml"
    config.write_text(TEST_CONFIG)
    code = cli.main(["explain", "--config", str(config), NAME])
    captured = capsys.readouterr()
    assert code == 0 and "caf\\xe9.py" in captured.out and "Traceback" not in captured.err
