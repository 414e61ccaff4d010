from __future__ import annotations

import time

import pytest

from smscan.detectors.suppress import ALLOW_DIRECTIVE, drop_allowed, is_allowed
from smscan.records import Finding, Position

VALUE = "q8Zt3kPx0wLm9Rv2"


def finding_on(line: str, value: str = VALUE, line_number: int = 1) -> Finding:
    column = line.index(value) + 1
    start = Position(line_number, column)
    end = Position(line_number, column + len(value))
    return Finding("a.py", "surprise", 0, len(value), start, end, 9.0, 6.0, "fp")


@pytest.mark.parametrize(
    ("line", "allowed"),
    [
        (f"key = '{VALUE}'  # smscan: ignore", True),
        (f"key = '{VALUE}'  # SMSCAN:IGNORE because it is a test key", True),
        (f"const key = '{VALUE}'; // smscan: ignore", True),
        (f"key: {VALUE} # pragma: allowlist secret", True),
        (f"key = '{VALUE}' -- pragma: allowlist-secret", True),
        (f"<key>{VALUE}</key> <!-- gitleaks:allow -->", True),
        (f"/* smscan: ignore */ key = '{VALUE}'", True),
        (f"key = '{VALUE}'", False),
        (f"key = '{VALUE}'  # smscan: ignored? no: ignores", False),
        (f"key = '{VALUE}'  # gitleaks:allowlist", False),
    ],
)
def test_allow_directives_on_the_same_line(line: str, allowed: bool) -> None:
    assert is_allowed(finding_on(line), {1: line}) is allowed


def test_a_flagged_value_cannot_allow_itself() -> None:
    value = "smscan:ignore_q8Zt3kPx0wLm9Rv2"
    line = f"key = '{value}'"
    assert not is_allowed(finding_on(line, value), {1: line})


def test_a_directive_on_another_line_does_not_count() -> None:
    line = f"key = '{VALUE}'"
    assert not is_allowed(finding_on(line, line_number=2), {1: "# smscan: ignore", 2: line})


def test_drop_allowed_counts() -> None:
    kept_line, dropped_line = f"a = '{VALUE}'", f"b = '{VALUE}'  # smscan: ignore"
    kept = finding_on(kept_line)
    dropped = Finding("b.py", "surprise", 0, 1, finding_on(dropped_line).start, finding_on(dropped_line).end, 9.0, 6.0, "fp2")
    assert drop_allowed([kept, dropped], {"a.py": {1: kept_line}, "b.py": {1: dropped_line}}) == ([kept], 1)


@pytest.mark.parametrize("directive", ["SMSCAN: IGNORE", "\u017fmscan: ignore", "g\u0131tleaks:allow", "G\u0130TLEAKS:ALLOW", "Pragma: allowlist secret"])
def test_every_spelling_the_directive_pattern_accepts_is_honoured(directive: str) -> None:
    line = f"k = '{VALUE}'  # {directive}"
    assert ALLOW_DIRECTIVE.search(line) and is_allowed(finding_on(line), {1: line})


def test_many_findings_on_one_huge_line_are_checked_in_linear_time() -> None:
    """A 1 MB line with a thousand findings: the allow check once per line, not per finding
    (it took 80 ms a finding, 84 s for the file, in a scan of a big generated repository)."""
    line = "x = '" + "QUJ0" * 250_000 + "'"
    findings = [
        Finding("a.py", "surprise", i * 1000, i * 1000 + 20, Position(1, i * 1000 + 1), Position(1, i * 1000 + 21), 9.0, 6.0, f"fp{i}")
        for i in range(1000)
    ]
    started = time.perf_counter()
    kept, dropped = drop_allowed(findings, {"a.py": {1: line}})
    assert (len(kept), dropped) == (1000, 0)
    assert time.perf_counter() - started < 5.0  # the old check took over a minute
    allowed_line = line + "  # smscan: ignore"
    assert drop_allowed(findings, {"a.py": {1: allowed_line}}) == ([], 1000)
