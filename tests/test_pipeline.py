"""The pipeline runs raw Surprise Masking and the detectors on one scoring of each text."""

from __future__ import annotations

from smscan.decide.decisions import without_superseded
from smscan.detectors import make_detector
from smscan.engine.masking import MaskRule as SurpriseRule
from smscan.judge.scan import scan
from smscan.records import Detection
from smscan.records import Document, Skip
from tests.scorers import RandomWordScorer

KEY = "Zq8xP1sV9kL2mN4bT7wR"  # looks random to RandomWordScorer: NLL 12 on its one token
# The paper's window statistic with whole-nat evidence: scores that are easy to follow by hand.
WINDOW = {"statistic": "window", "secret_bonus": 2.0, "token_penalty": 2.0}


def test_credential_findings_report_the_whole_value() -> None:
    text = f'import os\nAPI_KEY = "{KEY}"\nname = "plain"\n'
    detection = Detection(make_detector("credential", WINDOW), threshold=5.0, source="test")

    result = scan([Document("a.py", text)], RandomWordScorer(), None, detections=[detection])

    (finding,) = result.findings
    assert finding.kind == "credential"
    assert text[finding.char_start : finding.char_end] == KEY
    assert (finding.start.line, finding.start.column) == (2, 12)
    # The window holding the key: (12 + 1 + 1 + 1) / 4 = 3.75, plus the secret-name bonus 2.
    assert finding.score == 5.75
    assert finding.threshold == 5.0
    assert finding.details["place"] == "string"
    assert result.values[finding.fingerprint] == KEY


def test_raw_surprise_and_detectors_share_one_scoring() -> None:
    scorer = RandomWordScorer()
    text = f'token = "{KEY}"\n'
    rule = SurpriseRule(window=4, threshold=3.0)
    detection = Detection(make_detector("credential", WINDOW), threshold=5.0)

    result = scan([Document("a.yaml", text), Skip("b.bin", "binary")], scorer, rule, detections=[detection])

    assert sorted(f.kind for f in result.findings) == ["credential", "surprise"]
    assert scorer.texts == [text]
    assert result.stats.skipped["binary"] == 1


def test_a_value_copied_into_another_file_of_the_group_is_reported_there_too() -> None:
    # In b.py the key sits where it scores too low on its own; a.py's score carries over.
    detection = Detection(make_detector("credential", WINDOW), threshold=5.0)
    documents = [
        Document("a.py", f'secret = "{KEY}"\n', group="repo"),
        Document("b.py", f'value = "{KEY}"\n', group="repo"),
    ]

    result = scan(documents, RandomWordScorer(), None, detections=[detection])

    assert [(f.path, f.details.get("propagated", False)) for f in result.findings] == [
        ("a.py", False),
        ("b.py", True),
    ]


def test_dead_code_is_looked_for_in_code_files_only() -> None:
    line = f"    if {KEY} < 0: pass"
    text = f"def f(x):\n{line}\n    return x\n"
    # The line: 10 tokens, one at NLL 12, nine at 1: mean 2.1 (plain line SM, no corrections).
    rule = {"evidence_bonus": 0.0, "min_context": 1, "shrink": 0.0, "python_lines": "all"}
    detection = Detection(make_detector("dead-code", rule), threshold=2.0)

    result = scan(
        [Document("m.py", text), Document("notes.md", text)], RandomWordScorer(), None, detections=[detection]
    )

    (finding,) = result.findings
    assert finding.path == "m.py" and finding.kind == "dead-code" and finding.start.line == 2
    assert text[finding.char_start : finding.char_end] == line.strip()


def test_changed_lines_limit_detector_findings() -> None:
    text = f'a = "{KEY}"\nb = 1\nc = "{KEY[::-1]}"\n'
    detection = Detection(make_detector("credential", WINDOW), threshold=3.0)

    result = scan(
        [Document("a.py", text, changed_lines=((3, 3),))], RandomWordScorer(), None, detections=[detection]
    )

    assert [f.start.line for f in result.findings] == [3]


def test_a_line_holding_a_credential_is_not_also_reported_as_dead_code() -> None:
    # Both lines are surprising dead code to the plain line rule; only the first holds a credential.
    text = f'def f(x):\n    api_key = "{KEY}"\n    if {KEY[::-1]} < 0: pass\n    return x\n'
    credential = Detection(make_detector("credential", WINDOW), threshold=5.0)
    dead_code = Detection(make_detector("dead-code", {"evidence_bonus": 0.0, "min_context": 1, "shrink": 0.0, "python_lines": "all"}), threshold=2.0)

    found = scan([Document("m.py", text)], RandomWordScorer(), None, detections=[credential, dead_code]).findings
    reported = without_superseded(found)
    # The scan keeps both (a baseline must hold both); the report shows the credential only.
    assert sorted((f.kind, f.start.line) for f in found) == [("credential", 2), ("dead-code", 2), ("dead-code", 3)]
    assert sorted((f.kind, f.start.line) for f in reported) == [("credential", 2), ("dead-code", 3)]
    # Once the credential is accepted (baseline, allow comment), the line's dead code is reported.
    accepted = [f for f in found if f.kind != "credential"]
    assert without_superseded(accepted) == accepted
