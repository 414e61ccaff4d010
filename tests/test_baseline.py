from __future__ import annotations

import json
from pathlib import Path

import pytest

from smscan.decide.baseline import (
    Baseline,
    BaselineEntry,
    dump_baseline,
    load_baseline,
    match_findings,
    normalise_path,
)
from smscan.errors import SmscanError
from smscan.records import Finding, Position

SALT = "0123456789abcdef0123456789abcdef"


def finding(path: str, value: str, line: int = 1, kind: str = "surprise") -> Finding:
    return Finding(path, kind, 0, len(value), Position(line, 1), Position(line, 1 + len(value)), 9.0, 6.0, f"{path}:{value}")


def values(*findings: Finding) -> dict[str, str]:
    return {f.fingerprint: f.fingerprint.split(":", 1)[1] for f in findings}


def test_round_trip_is_stable_sorted_and_has_no_lines_or_times(tmp_path: Path) -> None:
    found = [finding("b.py", "v2", line=30), finding("a.py", "v1", line=3)]
    baseline = Baseline.new(salt=SALT).with_findings(found, values(*found))
    text = dump_baseline(baseline)
    assert text == dump_baseline(Baseline.new(salt=SALT).with_findings(found[::-1], values(*found)))
    data = json.loads(text)
    assert set(data) == {"smscan_baseline", "salt", "entries"}
    assert [e["path"] for e in data["entries"]] == ["a.py", "b.py"]
    assert all(set(e) == {"kind", "path", "hash"} for e in data["entries"])
    assert "v1" not in text
    assert len(text.splitlines()) == 4 + len(found) + 2  # one entry a line
    (tmp_path / "b.json").write_text(text)
    assert load_baseline(tmp_path / "b.json") == baseline


def test_moved_lines_still_match_and_new_values_are_new() -> None:
    old = finding("a.py", "secret-1", line=3)
    baseline = Baseline.new(salt=SALT).with_findings([old], values(old))
    moved = finding("./a.py", "secret-1", line=40)
    new_on_old_line = finding("a.py", "secret-2", line=3)
    other_file = finding("b.py", "secret-1", line=3)
    other_kind = finding("a.py", "secret-1", kind="credential")
    found = [moved, new_on_old_line, other_file, other_kind]
    match = match_findings(baseline, found, values(*found))
    assert match.new == [new_on_old_line, other_file, other_kind]
    assert match.accepted == 1


def test_salt_makes_hashes_differ_between_baselines() -> None:
    f = finding("a.py", "v")
    first = Baseline.new().with_findings([f], values(f))
    second = Baseline.new().with_findings([f], values(f))
    assert first.salt != second.salt
    assert first.entries != second.entries


def test_stale_entries_only_where_the_file_was_scanned_whole() -> None:
    a, b = finding("a.py", "gone"), finding("b.py", "also gone")
    baseline = Baseline.new(salt=SALT).with_findings([a, b], values(a, b))
    match = match_findings(baseline, [], {}, wholly_scanned=["a.py"])
    assert [e.path for e in match.stale] == ["a.py"]


@pytest.mark.parametrize(
    ("path", "normal"),
    [("./a/b.py", "a/b.py"), ("a\\b.py", "a/b.py"), ("a/../b.py", "b.py"), ("cafe\u0301.py", "caf\u00e9.py")],
)
def test_normalise_path(path: str, normal: str) -> None:
    assert normalise_path(path) == normal


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "baseline file not found"),
        ("{", "not valid JSON"),
        ('{"version": 1}', "not an smscan baseline"),
        ('{"smscan_baseline": 1, "salt": "xyz", "entries": []}', "'salt' must be 32 hex digits"),
        (f'{{"smscan_baseline": 1, "salt": "{SALT}", "entries": {{}}}}', "'entries' must be a list"),
        (f'{{"smscan_baseline": 1, "salt": "{SALT}", "entries": [{{"kind": "k"}}]}}', r"entries\[0\] must have"),
        (
            f'{{"smscan_baseline": 1, "salt": "{SALT}", "entries": [{{"kind": "k", "path": "p", "hash": "00"}}]}}',
            "'hash' must be 64 hex digits",
        ),
    ],
)
def test_bad_baselines_name_file_and_problem(tmp_path: Path, content: str | None, message: str) -> None:
    path = tmp_path / "b.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(SmscanError, match=message):
        load_baseline(path)


def test_entries_order_by_path_kind_hash() -> None:
    assert sorted([BaselineEntry("b", "k", "1"), BaselineEntry("a", "z", "2")])[0].path == "a"
