"""What a scan reports is decided once (smscan/decide/decisions.py): scan, baseline and explain agree.

The fixture has a dead block of two lines and, in a second function, a dead line that also holds a
credential: the scan reports the block and the credential, not that line's dead code; `smscan
baseline` records exactly the two findings the scan reports (not three), a scan with that baseline
reports nothing and calls no entry stale, and `explain` marks the hidden dead-code finding as not
reported.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from smscan.decide.baseline import Baseline
from smscan.decide.decisions import decide, without_superseded
from smscan.records import Document, Finding, Position, ScanResult
from tests.cli_runner import Cli
from tests.conftest import commit_files

SECRET = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"
DEAD = (
    'def connect(retries):\n    return retries\n    print("unreachable")\n    print("twice")\n\n\n'
    f'def token():\n    return 1\n    token = "{SECRET}"\n'
)


@pytest.fixture
def project(git_repo: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli) -> Path:
    commit_files(git_repo, {"dead.py": DEAD})
    thresholds = {
        "format": "smscan-thresholds", "version": 1,
        "kinds": {
            "credential": {"fingerprint": cli.scorer.fingerprint, "threshold": 3.0,
                           "rule": {"statistic": "window", "secret_bonus": 2.0, "token_penalty": 2.0}},
            "dead-code": {"fingerprint": cli.scorer.fingerprint, "rule": {"evidence_bonus": 2.0}, "threshold": 2.8},
        },
    }
    (git_repo.parent / "thresholds.json").write_text(json.dumps(thresholds))
    monkeypatch.chdir(git_repo)
    monkeypatch.delenv("CI", raising=False)
    return git_repo


def scan_json(cli: Cli, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    capsys.readouterr()
    cli.main(["repo", ".", "--format", "json", "--thresholds", "../thresholds.json", "--no-cache", *extra])
    return json.loads(capsys.readouterr().out)


def test_scan_baseline_and_explain_agree_on_a_dead_line_holding_a_credential(
    cli: Cli, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = scan_json(cli, capsys)
    assert sorted((f["kind"], f["start"]["line"]) for f in report["findings"]) == [("credential", 9), ("dead-code", 3)]

    assert cli.main(["baseline", ".", "-o", "../baseline.json", "--thresholds", "../thresholds.json", "--no-cache"]) == 0
    entries = json.loads((project.parent / "baseline.json").read_text())["entries"]
    assert sorted(e["kind"] for e in entries) == ["credential", "dead-code"]  # 2, as the scan showed, not 3

    with_baseline = scan_json(cli, capsys, "--baseline", "../baseline.json")
    assert with_baseline["findings"] == []
    assert with_baseline["suppressed"]["baseline"]["accepted"] == 2
    assert with_baseline["suppressed"]["baseline"]["stale"] == []

    capsys.readouterr()
    assert cli.main(["explain", "dead.py:3-9", "--thresholds", "../thresholds.json", "--no-cache", "--no-redact"]) == 0
    out = capsys.readouterr().out
    assert "9:5-9:39  dead-code  score 4.00 vs threshold 2.80: not reported" in out and "not reported: the credential finding on its line" in out
    assert "3:5-4:19  dead-code  score 3.00 vs threshold 2.80: reported" in out


def finding(kind: str, line: int, fingerprint: str, columns: tuple[int, int] = (1, 9)) -> Finding:
    return Finding("a.py", kind, 0, 1, Position(line, columns[0]), Position(line, columns[1]), 9.0, 3.0, fingerprint)


def test_a_dead_block_reaching_past_a_credential_line_stays_whole() -> None:
    block = dataclasses.replace(finding("dead-code", 3, "d"), end=Position(4, 20))
    found = [finding("credential", 4, "c", (14, 38)), block, finding("dead-code", 4, "e", (1, 40))]
    # The block covers line 3 too, so it is kept whole; the one-line finding on line 4 is hidden.
    assert [f.fingerprint for f in without_superseded(found)] == ["c", "d"]


def test_an_allowed_credential_no_longer_hides_its_lines_dead_code() -> None:
    # The directive lies inside the dead-code span (the whole line), so it allows only the credential.
    lines = {"a.py": {1: "k = 'value'  # smscan: ignore"}}
    found = [finding("credential", 1, "c", (6, 11)), finding("dead-code", 1, "d", (1, 30))]
    result = ScanResult(findings=found, lines=lines)
    suppressed = decide(result, [], kinds=None)
    assert [f.kind for f in result.findings] == ["dead-code"] and suppressed.inline == 1


def test_a_credential_accepted_by_the_baseline_still_hides_its_lines_dead_code() -> None:
    found = [finding("credential", 1, "c"), finding("dead-code", 1, "d"), finding("dead-code", 2, "e")]
    values = {"c": "secret", "d": "k = secret", "e": "x = 1"}
    baseline = Baseline.new()
    only_credential = baseline.with_findings([found[0]], values)
    result = ScanResult(findings=list(found), lines={}, values=values)
    suppressed = decide(result, [Document("a.py", "")], kinds=None, baseline=("b.json", only_credential))
    assert [(f.kind, f.start.line) for f in result.findings] == [("dead-code", 2)]
    assert suppressed.accepted == 1 and suppressed.stale == ()


def test_an_old_baseline_holding_the_hidden_dead_code_has_no_stale_entry() -> None:
    found = [finding("credential", 1, "c"), finding("dead-code", 1, "d")]
    values = {"c": "secret", "d": "k = secret"}
    both = Baseline.new().with_findings(found, values)
    result = ScanResult(findings=list(found), lines={}, values=values)
    suppressed = decide(result, [Document("a.py", "")], kinds=None, baseline=("b.json", both))
    assert result.findings == [] and suppressed.stale == ()


def test_the_kinds_filter_comes_first() -> None:
    result = ScanResult(findings=[finding("credential", 1, "c"), finding("dead-code", 1, "d")], lines={})
    decide(result, [], kinds=("dead-code",))
    assert [f.kind for f in result.findings] == ["dead-code"]
