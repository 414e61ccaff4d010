"""`smscan explain`: the heat map view (golden), its verdicts, target parsing and redaction."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from smscan.cli.explain import parse_target
from smscan.decide.explain import explain_document
from smscan.rules.resolve import Rules
from smscan.records import Document
from smscan.reports.explain import heat_style, render_explanation
from tests.cli_runner import Cli
from tests.reports.golden import assert_golden, output, plain_console
from tests.reports.scans import SECRET, fixture_rules
from tests.scorers import RandomWordScorer

OTHER = "Zx81Kq0pLm3Nr7Tv5Wc2Yb9"
EXAMPLE = f'''import os

api_key = "{SECRET}"
password = "<YOUR_PASSWORD>"
token = "{OTHER}"  # smscan: ignore


def connect(retries):
    return open_connection(api_key, retries)
    print("unreachable")
'''


def explain(first: int = 1, last: int = 10):
    surprise, detections = fixture_rules()
    document = Document("app/example.py", EXAMPLE, group="g")
    [scores] = RandomWordScorer().score_texts([EXAMPLE])
    return explain_document(
        document, scores, Rules(surprise, detections), window=4, threshold=3.0, consensus=1,
        first_line=first, last_line=last, model="random-word-scorer",
    )


@pytest.mark.parametrize(("name", "redact"), [("explain.txt", True), ("explain-no-redact.txt", False)])
def test_golden(name: str, redact: bool) -> None:
    console = plain_console(100)
    render_explanation(console, explain(), redact_values=redact)
    assert_golden(name, output(console))


def test_verdicts_read_the_scores_a_scan_reads() -> None:
    # A scan scores each candidate with a few lines of left context (the plan's pieces), not the
    # whole file, so the two differ near a threshold; a verdict must be what `repo` reports. Here
    # the scan's scores say the model predicts every token: nothing is reported, while the heat
    # map still draws the whole file's scores.
    surprise, detections = fixture_rules()
    document = Document("app/example.py", EXAMPLE, group="g")
    [scores] = RandomWordScorer().score_texts([EXAMPLE])
    predicted = replace(scores, nll=np.where(np.isnan(scores.nll), np.nan, 0.0))
    explanation = explain_document(
        document, scores, Rules(None, detections), window=4, threshold=3.0, consensus=1,
        first_line=1, last_line=10, model="random-word-scorer", scan_scores=predicted,
    )
    assert not any(v.reported for v in explanation.spans if v.kind == "credential")
    assert [t.nll for t in explanation.tokens] == pytest.approx(list(scores.nll), nan_ok=True)
    assert verdicts()[("credential", 3)][0] is True  # the same file judged from its own scores


def verdicts() -> dict[tuple[str, int], tuple[bool, tuple[str, ...]]]:
    return {(v.kind, v.line): (v.reported, v.reasons) for v in explain().spans}


def test_each_span_says_why() -> None:
    found = verdicts()
    assert found[("credential", 3)][0] is True
    reported, reasons = found[("credential", 4)]
    assert not reported and "placeholder rule" in reasons[0]
    reported, reasons = found[("credential", 5)]
    assert not reported and any("allow comment" in r for r in reasons)
    reported, reasons = found[("dead-code", 10)]
    assert reported and any("unreachable" in r for r in reasons)
    assert all(reasons for _, reasons in found.values())


def test_a_line_range_limits_the_view() -> None:
    explanation = explain(4, 4)
    assert explanation.spans and all(v.line <= 4 <= v.end_line for v in explanation.spans)
    line_start = EXAMPLE.index("password")
    line_end = EXAMPLE.index("\n", line_start)
    assert all(w.char_start < line_end and w.char_end > line_start for w in explanation.windows)


def test_the_heat_scale_is_monotonic() -> None:
    styles = [heat_style(v) for v in (0.5, 1.5, 3.0, 5.0, 7.0, 12.0)]
    assert len(set(styles)) == 6 and heat_style(float("nan")) == ""


@pytest.mark.parametrize(
    ("target", "expected"),
    [("a.py", ("a.py", None, None)), ("a.py:7", ("a.py", 7, 7)), ("dir/a.py:3-9", ("dir/a.py", 3, 9))],
)
def test_targets(target: str, expected: tuple[str, int | None, int | None]) -> None:
    path, first, last = parse_target(target)
    assert (str(path), first, last) == expected


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli) -> Path:
    (tmp_path / "example.py").write_text(EXAMPLE)
    thresholds = {
        "format": "smscan-thresholds", "version": 1,
        "kinds": {
            "credential": {"fingerprint": cli.scorer.fingerprint, "rule": {"rule": "credential-slots"}, "threshold": 3.0},
            "dead-code": {"fingerprint": cli.scorer.fingerprint, "rule": {"evidence_bonus": 2.0}, "threshold": 2.8},
        },
    }
    (tmp_path / "thresholds.json").write_text(json.dumps(thresholds))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CI", raising=False)
    return tmp_path


def test_the_command_redacts_when_not_a_terminal(cli: Cli, project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["explain", "example.py:3-5", "--thresholds", "thresholds.json"]) == 0
    out = capsys.readouterr().out
    assert SECRET not in out and OTHER not in out
    assert "credential" in out and "reported" in out and "legend" in out


def test_the_command_shows_values_with_no_redact(cli: Cli, project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["explain", "example.py", "--thresholds", "thresholds.json", "--no-redact"]) == 0
    assert SECRET in capsys.readouterr().out


@pytest.mark.parametrize("target", ["missing.py", "example.py:40-50", "example.py:5-2"])
def test_bad_targets_exit_2_with_one_message(cli: Cli, project: Path, capsys: pytest.CaptureFixture[str], target: str) -> None:
    assert cli.main(["explain", target, "--thresholds", "thresholds.json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("smscan: error:") and "Traceback" not in err


def test_a_dead_line_holding_a_reported_credential_is_explained_as_the_scan_decides() -> None:
    # The scan reports the credential and drops the same line's dead-code finding; explain agrees.
    text = f'def connect(retries):\n    return retries\n    token = "{SECRET}"\n'
    surprise, detections = fixture_rules()
    [scores] = RandomWordScorer().score_texts([text])
    explanation = explain_document(
        Document("app/dead.py", text, group="g"), scores, Rules(None, detections), window=4, threshold=3.0,
        consensus=1, first_line=1, last_line=3, model="random-word-scorer",
    )
    found = {(v.kind, v.line): (v.reported, v.reasons) for v in explanation.spans}
    assert found[("credential", 3)][0] is True
    reported, reasons = found[("dead-code", 3)]
    assert not reported and any("credential finding on its line is reported instead" in r for r in reasons)


def test_redaction_hides_a_sensitive_value_wherever_it_is_written_again() -> None:
    explanation = explain()
    repeated = explanation.text + f"# old key: {SECRET}\n"
    shown = replace(explanation, text=repeated, last_line=explanation.last_line + 1)
    console = plain_console(200)
    render_explanation(console, shown, redact_values=True)
    text = output(console)
    assert "# old key: " in text
    assert SECRET not in text and SECRET[:8] not in text
