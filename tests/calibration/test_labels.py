from __future__ import annotations

import json
from pathlib import Path

import pytest

from smscan.calibration.label_groups import label_shape
from smscan.sources.labels import read_labels
from smscan.errors import SmscanError


def write_jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_credential_rows_read_text_from_the_corpus_folder(tmp_path: Path) -> None:
    (tmp_path / "corpus" / "pkg").mkdir(parents=True)
    (tmp_path / "corpus" / "pkg" / "a.py").write_text("k = 'Zq8x'\n", encoding="utf-8")
    labels = write_jsonl(tmp_path / "labels.jsonl", [
        {"path": "pkg/a.py", "spans": [{"start": 5, "end": 9, "category": "token"}],
         "negatives": [{"start": 0, "end": 1, "category": "placeholder"}]},
        {"text": "inline", "spans": []},
    ])

    first, second = read_labels(labels)

    assert (first.text, first.spans, first.categories, first.group) == ("k = 'Zq8x'\n", ((5, 9),), ("token",), "pkg")
    assert first.negatives == ((0, 1, "placeholder"),)
    assert first.shape == "spans"
    assert second.text == "inline"


def test_dead_code_rows(tmp_path: Path) -> None:
    labels = write_jsonl(tmp_path / "d.jsonl", [
        {"id": "mbpp_1", "code": "def f():\n    return 1\n    x = 2\n", "poisoned_lines": [3], "attack": "fixed1"},
    ])

    (row,) = read_labels(labels)

    assert (row.name, row.lines, row.shape) == ("mbpp_1", (3,), "lines")


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"spans": []}, "expected 'spans' with 'text' or 'path'"),
        ({"text": "abc", "spans": [{"start": 2, "end": 9}]}, "outside the text"),
        ({"text": "abc", "spans": [{"start": "a", "end": 1}]}, "integer 'start' and 'end'"),
        ({"code": "x = 1\n", "poisoned_lines": [4]}, "outside the 1 lines"),
        ({"path": "missing.py", "spans": []}, "not found"),
    ],
)
def test_bad_rows_name_file_and_line(tmp_path: Path, row: dict[str, object], message: str) -> None:
    labels = write_jsonl(tmp_path / "l.jsonl", [row])

    with pytest.raises(SmscanError, match=message) as raised:
        read_labels(labels)

    assert "l.jsonl:1" in str(raised.value)


def test_a_row_is_grouped_by_itself_never_by_where_the_labels_lie(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "sub" / "corpus" / "pkg").mkdir(parents=True)
    (tmp_path / "sub" / "corpus" / "pkg" / "a.py").write_text("k = 1\n", encoding="utf-8")
    write_jsonl(tmp_path / "sub" / "labels.jsonl", [
        {"path": "pkg/a.py", "spans": []},
        {"text": "inline", "spans": [], "group": "team"},
        {"text": "inline", "spans": [], "path": "./lib/b.py"},
        {"text": "inline", "spans": []},
        {"text": "inline", "spans": [], "id": "case-7"},
        {"id": "mbpp_1", "code": "x = 1\n", "poisoned_lines": [1]},
        {"code": "x = 1\n", "poisoned_lines": [1]},
    ])
    spellings = {}
    monkeypatch.chdir(tmp_path / "sub")
    spellings["labels.jsonl"] = read_labels(Path("labels.jsonl"))
    monkeypatch.chdir(tmp_path)
    spellings["sub/labels.jsonl"] = read_labels(Path("sub/labels.jsonl"))
    spellings["absolute"] = read_labels(tmp_path / "sub" / "labels.jsonl")

    for rows in spellings.values():
        assert [row.group for row in rows] == ["pkg", "team", "lib", "line 4", "case-7", "mbpp_1", "line 7"]
    # A row with no path or id is named by file and line, for messages.
    assert spellings["sub/labels.jsonl"][3].name == "sub/labels.jsonl:4"


def test_each_kind_is_measured_on_the_rows_its_unit_counts(tmp_path: Path) -> None:
    # The shape comes from the detector registry (a detector's unit), so a command need not
    # branch on a kind id; the rows read_labels makes carry the same shapes.
    assert {kind: label_shape(kind) for kind in ("surprise", "credential", "dead-code")} == {
        "surprise": "spans", "credential": "spans", "dead-code": "lines",
    }
    rows = read_labels(write_jsonl(tmp_path / "labels.jsonl", [
        {"text": "k = 'Zq8x'", "spans": [{"start": 5, "end": 9}]},
        {"id": "m1", "code": "def f():\n    return 1\n", "poisoned_lines": [2]},
    ]))
    assert [row.shape for row in rows] == [label_shape("credential"), label_shape("dead-code")]
