from __future__ import annotations

import pytest

from smscan.detectors.suppress import drop_allowed, is_allowed
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
