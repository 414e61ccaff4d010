"""Report formats come from one registry: a new format is a writer and an entry, no CLI change."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from smscan.errors import SmscanError
from smscan.reports.formats import FORMATS, Report, ReportFormat, report_format
from tests.conftest import write_files
from tests.scorers import THRESHOLD_ARGS

SECRET = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"


def _count(report: Report, console: Console) -> None:
    console.file.write(f"{len(report.result.findings)} findings, values shown: {report.show_values}\n")


def test_a_registered_format_is_a_cli_choice(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(FORMATS, "count", ReportFormat(_count, machine=True))
    write_files(tmp_path, {"a.py": f"key = '{SECRET}'\n"})
    result = cli("repo", str(tmp_path), "--format", "count", *THRESHOLD_ARGS)
    assert (result.code, result.out) == (1, "1 findings, values shown: False\n")
    shown = cli("repo", str(tmp_path), "--format", "count", "--no-redact", *THRESHOLD_ARGS)
    assert shown.out == "1 findings, values shown: True\n"


def test_a_registered_format_writes_to_output_files(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(FORMATS, "count", ReportFormat(_count, machine=True))
    write_files(tmp_path, {"src/a.py": f"key = '{SECRET}'\n"})
    result = cli("repo", str(tmp_path / "src"), "--format", "count", "-o", str(tmp_path / "r.txt"), *THRESHOLD_ARGS)
    assert (result.code, result.out) == (1, "")
    assert (tmp_path / "r.txt").read_text() == "1 findings, values shown: False\n"


def test_an_unknown_format_names_the_known_ones() -> None:
    with pytest.raises(SmscanError, match="unknown report format 'xml'; known formats: text, json, sarif"):
        report_format("xml")
