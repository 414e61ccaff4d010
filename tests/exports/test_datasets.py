"""Dataset records: JSONL text and chat records, groups, and rejects with reasons."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smscan.sources.datasets import DatasetRecord, RecordFormat, Rejected, iter_dataset, parse_record


def write_jsonl(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_text_and_chat_records(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "d.jsonl", [
        json.dumps({"text": "a = 1"}),
        json.dumps({"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "x"}]}),
    ])
    text, chat = list(iter_dataset(path, RecordFormat()))
    assert isinstance(text, DatasetRecord) and text.texts == ("a = 1",) and not text.is_chat
    assert isinstance(chat, DatasetRecord) and chat.is_chat
    assert chat.texts == ("q", "x") and chat.supervised == (False, True)
    assert (text.group, chat.group) == ("0", "1")


def test_text_field_and_group_by(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "d.jsonl", [json.dumps({"code": "x", "user": 7})])
    (record,) = iter_dataset(path, RecordFormat(text_field="code", group_by="user"))
    assert isinstance(record, DatasetRecord) and record.texts == ("x",) and record.group == "7"


@pytest.mark.parametrize(
    ("line", "fmt", "reason"),
    [
        ("{oops", RecordFormat(), "not JSON"),
        ("[1, 2]", RecordFormat(), "not a JSON object (list)"),
        ('{"body": "x"}', RecordFormat(), "no field 'text'"),
        ('{"text": 5}', RecordFormat(), "field 'text' is int, expected string"),
        ('{"text": null}', RecordFormat(), "field 'text' is null, expected string"),
        ('{"text": "x"}', RecordFormat(group_by="user"), "no group field 'user'"),
        ('{"text": "x", "user": [1]}', RecordFormat(group_by="user"), "group field 'user' is list"),
        ('{"messages": "hi"}', RecordFormat(), "field 'messages' is str"),
        ('{"messages": [{"role": "user", "content": 3}]}', RecordFormat(), "message 0 'content' is int"),
        ('{"messages": [{"content": "x"}]}', RecordFormat(), "message 0 has no string 'role'"),
    ],
)
def test_bad_records_are_rejected_with_a_reason(tmp_path: Path, line: str, fmt: RecordFormat, reason: str) -> None:
    path = write_jsonl(tmp_path / "d.jsonl", [line, json.dumps({"text": "ok", "user": "u"})])
    rejected, good = list(iter_dataset(path, fmt))
    assert isinstance(rejected, Rejected) and reason in rejected.reason
    assert rejected.raw == line and rejected.index == 0
    assert isinstance(good, DatasetRecord) and good.index == 1


def test_invalid_utf8_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"text": "\xff"}\n{"text": "ok"}\n')
    first, second = list(iter_dataset(path, RecordFormat()))
    assert isinstance(first, Rejected) and first.reason == "not UTF-8"
    assert isinstance(second, DatasetRecord)


def test_blank_lines_are_not_records(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "d.jsonl", ['{"text": "a"}', "", '{"text": "b"}'])
    assert [r.index for r in iter_dataset(path, RecordFormat())] == [0, 1]


def test_roles_choose_supervised_messages() -> None:
    data = {"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]}
    record = parse_record(data, 0, RecordFormat(roles=("user", "assistant")))
    assert isinstance(record, DatasetRecord) and record.supervised == (True, True)


def test_parquet_rows_are_records(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    table = pa.table({"text": ["a = 1", None, "b = 2"], "user": ["u", "u", "v"]})
    pq.write_table(table, tmp_path / "d.parquet")
    items = list(iter_dataset(tmp_path / "d.parquet", RecordFormat(group_by="user")))
    assert isinstance(items[0], DatasetRecord) and items[0].texts == ("a = 1",) and items[0].group == "u"
    assert isinstance(items[1], Rejected) and "field 'text' is null" in items[1].reason
    assert isinstance(items[2], DatasetRecord) and items[2].index == 2


def test_parquet_chats_are_records(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    messages = [[{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]]
    pq.write_table(pa.table({"messages": messages}), tmp_path / "c.parquet")
    (record,) = iter_dataset(tmp_path / "c.parquet", RecordFormat())
    assert isinstance(record, DatasetRecord) and record.is_chat and record.texts == ("q", "a")
