"""`smscan export` end to end with a stand-in scorer: records, chats, folders, groups, rejects,
redaction, downstream labels, atomic output and resume after a kill."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from smscan.rules.maskings import DEFAULT_VALUE_THRESHOLD
from tests.cli_runner import Cli
from tests.conftest import commit_files
from tests.scorers import RandomWordScorer, interrupt_scoring, make_repeats_predictable, score_each_planned_group

KEY = "aZ3kQ9xL2mP8vR4tY7wB1nC6"
KEY2 = "Zq81Lm0Pw7Rt5Ny3Kx9Bv2Hc"
RAW = ["--threshold", "3"]


def write_jsonl(path: Path, records: list[object]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def export(cli: Cli, args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(["export", *args])
    return code, capsys.readouterr().err


def test_text_records_get_their_masked_spans(tmp_path: Path, cli: Cli, capsys) -> None:
    records = [{"text": f"token = '{KEY}'\nprint(token)\n", "id": 1}, {"text": "x = 1\ny = 2\n", "id": 2}]
    source = write_jsonl(tmp_path / "in.jsonl", records)
    code, err = export(cli, [str(source), "-o", str(tmp_path / "out.jsonl"), *RAW], capsys)
    assert code == 0, err
    first, second = read_jsonl(tmp_path / "out.jsonl")
    assert {k: v for k, v in first.items() if k != "smscan"} == records[0]
    spans = first["smscan"]["masked_spans"]
    start = records[0]["text"].index(KEY)
    assert len(spans) == 1 and spans[0][0] <= start and spans[0][1] >= start + len(KEY)
    assert 0 < first["smscan"]["masked_fraction"] < 1
    assert first["smscan"]["rule"]["surprise"] == {
        "kind": "surprise", "ranking": "global", "window": 4, "threshold": 3.0, "consensus": 1, "propagate": True,
        "masking": "values", "value_threshold": DEFAULT_VALUE_THRESHOLD, "min_repeat_chars": 4,
    }
    assert first["smscan"]["model"]["fingerprint"] == RandomWordScorer.fingerprint
    assert second["smscan"]["masked_spans"] == [] and second["smscan"]["masked_fraction"] == 0.0
    assert not (tmp_path / "out.jsonl.rejects.jsonl").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out.jsonl"]


def test_text_field_and_code_point_offsets(tmp_path: Path, cli: Cli, capsys) -> None:
    text = f"# héllo wörld 😀\nsecret = '{KEY}'\n"
    source = write_jsonl(tmp_path / "in.jsonl", [{"code": text}])
    code, err = export(cli, [str(source), "-o", str(tmp_path / "out.jsonl"), "--text-field", "code", *RAW], capsys)
    assert code == 0, err
    ((start, end),) = read_jsonl(tmp_path / "out.jsonl")[0]["smscan"]["masked_spans"]
    assert KEY in text[start:end]


def test_chat_records_mask_only_assistant_messages(tmp_path: Path, cli: Cli, capsys) -> None:
    chat = {"messages": [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": f"my key is {KEY}, store it"},
        {"role": "assistant", "content": f"stored {KEY2} as requested"},
    ]}
    source = write_jsonl(tmp_path / "in.jsonl", [chat])
    code, err = export(cli, [str(source), "-o", str(tmp_path / "out.jsonl"), *RAW], capsys)
    assert code == 0, err
    (out,) = read_jsonl(tmp_path / "out.jsonl")
    assert out["messages"] == chat["messages"]
    spans = out["smscan"]["masked_spans"]
    assert spans and all(message == 2 for message, _, _ in spans)
    content = chat["messages"][2]["content"]
    assert any(KEY2 in content[a:b] for _, a, b in spans)
    code, err = export(cli, [str(source), "-o", str(tmp_path / "both.jsonl"), "--roles", "user,assistant", *RAW], capsys)
    assert {m for m, _, _ in read_jsonl(tmp_path / "both.jsonl")[0]["smscan"]["masked_spans"]} == {1, 2}


def test_a_repository_is_one_group_with_one_record_per_file(git_repo: Path, cli, tmp_path: Path, capsys) -> None:
    commit_files(git_repo, {"a.py": f"KEY = '{KEY}'\n", "b.py": f"use('{KEY}')\n", "c.bin": b"\x00\x01"})
    code, err = export(cli, [str(git_repo), "-o", str(tmp_path / "out.jsonl"), *RAW], capsys)
    assert code == 0, err
    records = read_jsonl(tmp_path / "out.jsonl")
    assert [r["path"] for r in records] == ["a.py", "b.py"]
    assert all(r["smscan"]["masked_spans"] for r in records)
    assert "skipped files: binary 1" in err


def test_propagation_runs_within_a_group_only(tmp_path: Path, cli: Cli, capsys, monkeypatch) -> None:
    # The value is surprising in its first occurrence only; its repeat is masked by propagation.
    scorer = cli.scorer
    make_repeats_predictable(scorer, monkeypatch)
    # Three texts (one text repeated would be scored once, its copies sharing the first's scores);
    # without propagation only the paper's rule leaves the repeat unmasked (value-aware masking
    # masks every occurrence of a value masked in its group).
    texts = [f"value = '{KEY}'\n", f"again = '{KEY}'\n", f"other = '{KEY}'\n"]
    records = [{"text": texts[0], "u": "a"}, {"text": texts[1], "u": "a"}, {"text": texts[2], "u": "b"}]
    source = write_jsonl(tmp_path / "in.jsonl", records)
    assert export(cli, [str(source), "-o", str(tmp_path / "o.jsonl"), "--group-by", "u", *RAW], capsys)[0] == 0
    spans = [r["smscan"]["masked_spans"] for r in read_jsonl(tmp_path / "o.jsonl")]
    assert spans[0] and spans[1] == spans[0] and spans[2] == []
    assert export(cli, [str(source), "-o", str(tmp_path / "n.jsonl"), "--group-by", "u", "--no-propagate", "--masking", "paper", *RAW], capsys)[0] == 0
    assert read_jsonl(tmp_path / "n.jsonl")[1]["smscan"]["masked_spans"] == []


def test_a_group_that_reappears_is_an_error_naming_it(tmp_path: Path, cli, capsys) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": "a", "u": "alice"}, {"text": "b", "u": "bob"}, {"text": "c", "u": "alice"}])
    code, err = export(cli, [str(source), "-o", str(tmp_path / "out.jsonl"), "--group-by", "u", *RAW], capsys)
    assert code == 2
    assert "group 'alice'" in err and "sort the input" in err and err.count("\n") == 1
    assert not (tmp_path / "out.jsonl").exists()


def test_rejected_records_are_counted_written_and_exit_1(tmp_path: Path, cli, capsys) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": "ok"}, "{broken", {"text": 3}, {"text": "fine"}])
    code, err = export(cli, [str(source), "-o", str(tmp_path / "out.jsonl"), *RAW], capsys)
    assert code == 1
    assert [r["text"] for r in read_jsonl(tmp_path / "out.jsonl")] == ["ok", "fine"]
    rejects = read_jsonl(tmp_path / "out.jsonl.rejects.jsonl")
    assert [(r["index"], r["record"]) for r in rejects] == [(1, "{broken"), (2, '{"text": 3}')]
    assert "rejected 2 records" in err and "not JSON: 1" in err


def test_redact_mode_replaces_spans_with_placeholders(tmp_path: Path, cli, capsys) -> None:
    text = f"a = '{KEY}'\nb = 2\n"
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": text}])
    code, err = export(cli, [str(source), "-o", str(tmp_path / "out.jsonl"), "--mode", "redact", "--window", "1", *RAW], capsys)
    assert code == 0, err
    (out,) = read_jsonl(tmp_path / "out.jsonl")
    assert out["text"] == "a = '<MASKED>'\nb = 2\n"
    assert out["smscan"]["masked_spans"] == [[5, 5 + len(KEY)]]
    export(cli, [str(source), "-o", str(tmp_path / "p.jsonl"), "--mode", "redact", "--window", "1", "--placeholder", "surprise=[X]", *RAW], capsys)
    assert read_jsonl(tmp_path / "p.jsonl")[0]["text"] == "a = '[X]'\nb = 2\n"


def test_tokenizer_adds_training_fields(tmp_path: Path, cli, tiny_model_dir: Path, capsys) -> None:
    chat = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": f"the key is {KEY} and more words"}]}
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": f"x = 1\ny = 2\nk = '{KEY}'\nz = 3\nw = 4\n"}, chat])
    code, err = export(cli, [str(source), "-o", str(tmp_path / "out.jsonl"), "--tokenizer", str(tiny_model_dir), *RAW], capsys)
    assert code == 0, err
    for record in read_jsonl(tmp_path / "out.jsonl"):
        assert len(record["input_ids"]) == len(record["labels"]) == len(record["attention_mask"])
        assert -100 in record["labels"] and any(label != -100 for label in record["labels"])


def test_local_ranking_and_consensus_flags(tmp_path: Path, cli, capsys) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": "x = 1\n" * 20 + f"k = '{KEY}'\n" + "y = 2\n" * 20}])
    code, err = export(cli, [str(source), "-o", str(tmp_path / "out.jsonl"), "--ranking", "local", "--rank-max", "5", "--consensus", "2"], capsys)
    assert code == 0, err
    (out,) = read_jsonl(tmp_path / "out.jsonl")
    assert out["smscan"]["rule"]["surprise"]["ranking"] == "local"
    assert out["smscan"]["rule"]["surprise"]["consensus"] == 2
    text = out["text"]
    assert any(KEY in text[a:b] for a, b in out["smscan"]["masked_spans"])


def _many(tmp_path: Path, count: int = 100) -> Path:
    records = [{"text": f"n = {i}\nkey = '{KEY if i % 3 else KEY2}'\n", "i": i} for i in range(count)]
    return write_jsonl(tmp_path / "in.jsonl", records)


def test_resume_after_an_interruption_loses_and_doubles_nothing(tmp_path: Path, cli, capsys, monkeypatch) -> None:
    source = _many(tmp_path)
    # Kept out of the score cache, so the interrupted export below really scores.
    assert export(cli, [str(source), "-o", str(tmp_path / "full.jsonl"), "--no-cache", *RAW], capsys)[0] == 0
    interrupt_scoring(cli.scorer, monkeypatch)
    out = tmp_path / "out.jsonl"
    assert export(cli, [str(source), "-o", str(out), *RAW], capsys)[0] == 130
    assert not out.exists()
    code, err = export(cli, [str(source), "-o", str(out), "--resume", *RAW], capsys)
    assert code == 0, err
    assert "resumed after 31 input records" in err
    assert out.read_bytes() == (tmp_path / "full.jsonl").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full.jsonl", "in.jsonl", "out.jsonl"]


def test_resume_with_other_options_is_refused(tmp_path: Path, cli, capsys, monkeypatch) -> None:
    source = _many(tmp_path, 40)
    score_each_planned_group(monkeypatch)
    monkeypatch.setattr(cli.scorer, "score_texts", lambda texts: (_ for _ in ()).throw(KeyboardInterrupt) if len(cli.scorer.texts) > 16 else RandomWordScorer.score_texts(cli.scorer, texts))
    assert export(cli, [str(source), "-o", str(tmp_path / "o.jsonl"), *RAW], capsys)[0] == 130
    code, err = export(cli, [str(source), "-o", str(tmp_path / "o.jsonl"), "--resume", "--threshold", "4"], capsys)
    assert code == 2 and "another input or other options" in err


_SLOW_EXPORT = """
import sys, time
sys.path.insert(0, {root!r})
from tests.scorers import install_fake_scorer
scorer = install_fake_scorer()
original = scorer.score_texts
def slow(texts):
    time.sleep({delay})
    return original(texts)
scorer.score_texts = slow
from smscan.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_kill_mid_run_then_resume_matches_an_uninterrupted_run(tmp_path: Path) -> None:
    source = _many(tmp_path, 160)
    root = str(Path(__file__).resolve().parents[2])
    script = tmp_path / "run.py"
    args = ["export", str(source), "--deterministic", *RAW]
    env = {**os.environ, "PYTHONPATH": root}
    script.write_text(_SLOW_EXPORT.format(root=root, delay=0.0))
    subprocess.run([sys.executable, str(script), *args, "-o", str(tmp_path / "full.jsonl")], check=True, env=env, capture_output=True)
    script.write_text(_SLOW_EXPORT.format(root=root, delay=0.4))
    out = tmp_path / "out.jsonl"
    process = subprocess.Popen([sys.executable, str(script), *args, "-o", str(out)], env=env, stderr=subprocess.DEVNULL)
    state = tmp_path / ".out.jsonl.state.json"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and not (state.exists() and json.loads(state.read_text() or "{}").get("done", 0) >= 32):
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert state.exists(), "the export wrote no progress before the deadline"
    assert not out.exists(), "the export finished before it was killed"
    done = json.loads(state.read_text())["done"]
    assert 0 < done < 160
    # Resume without the delay, in a fresh process, as a user would.
    script.write_text(_SLOW_EXPORT.format(root=root, delay=0.0))
    resumed = subprocess.run([sys.executable, str(script), *args, "-o", str(out), "--resume"], env=env, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    full = (tmp_path / "full.jsonl").read_text().splitlines()
    again = out.read_text().splitlines()
    assert [json.loads(r)["i"] for r in again] == list(range(160)), resumed.stderr
    assert again == full


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["{tmp}/missing.jsonl", "-o", "{tmp}/o.jsonl"], "no such file or folder"),
        (["{src}", "-o", "{tmp}/o.jsonl", "--mode", "blank"], "--mode must be mask or redact"),
        (["{src}", "-o", "{tmp}/o.jsonl", "--ranking", "median"], "--ranking must be global or local"),
        (["{src}", "-o", "{tmp}/o.jsonl", "--consensus", "9"], "consensus must be 1..window"),
        (["{src}", "-o", "{tmp}/o.jsonl", "--consensus", "0"], "consensus must be 1..window"),
        (["{src}", "-o", "{tmp}/o.jsonl", "--window", "0"], "window must be 1..256"),
        (["{src}", "-o", "{tmp}/o.jsonl", "--placeholder", "nothing"], "expected KIND=TEXT"),
        (["{src}", "-o", "{tmp}/o.jsonl", "--mode", "redact", "--tokenizer", "x"], "does not combine"),
        (["{src}", "-o", "{tmp}/o.jsonl", "--mode", "redact", "--labels", "{src}"], "--labels measures the masks of --mode mask"),
        (["{src}", "-o", "{tmp}"], "is a folder"),
        (["{src}", "-o", "{tmp}/o.jsonl", "--labels", "{tmp}/nope.jsonl"], "cannot read the labels"),
        (["{tmp}/in.jsonl.gz", "-o", "{tmp}/o.jsonl"], "compressed input is not read"),
        (["{src}", "-o", "{tmp}/o.jsonl", "--thresholds", "{tmp}/none.json"], "thresholds file not found"),
        (["{src}", "-o", "{tmp}/o.jsonl", "--operating-point", "SM90"], "the surprise threshold was calibrated for model fingerprint"),
    ],
)
def test_bad_input_exits_2_with_one_message(tmp_path: Path, cli, capsys, args: list[str], message: str) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": "x"}])
    (tmp_path / "in.jsonl.gz").write_bytes(b"\x1f\x8b\x08\x00")
    code, err = export(cli, [a.replace("{tmp}", str(tmp_path)).replace("{src}", str(source)) for a in args], capsys)
    assert code == 2, err
    assert message in err and "Traceback" not in err


def test_bad_labels_are_refused_before_anything_is_scored(tmp_path: Path, cli: Cli, capsys) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": "x = 1\n"}])
    (tmp_path / "labels.jsonl").write_text("{broken\n")
    code, err = export(cli, [str(source), "-o", str(tmp_path / "o.jsonl"), "--labels", str(tmp_path / "labels.jsonl")], capsys)
    assert code == 2 and "not valid JSON" in err
    assert cli.scorer.texts == [] and not (tmp_path / "o.jsonl").exists()


def test_parquet_input_exports_like_jsonl(tmp_path: Path, cli, capsys) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    records = [{"text": f"k = '{KEY}'\nx = 1\n", "id": 1}, {"text": "y = 2\n", "id": 2}]
    pq.write_table(pa.Table.from_pylist(records), tmp_path / "in.parquet")
    write_jsonl(tmp_path / "in.jsonl", records)
    assert export(cli, [str(tmp_path / "in.parquet"), "-o", str(tmp_path / "p.jsonl"), *RAW], capsys)[0] == 0
    assert export(cli, [str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "j.jsonl"), *RAW], capsys)[0] == 0
    assert read_jsonl(tmp_path / "p.jsonl") == read_jsonl(tmp_path / "j.jsonl")


def test_detector_kinds_mask_findings_and_redact_with_their_placeholder(tmp_path: Path, cli, capsys) -> None:
    from smscan.rules.thresholds_file import write_entry

    write_entry(tmp_path / "t.json", "credential", {"fingerprint": RandomWordScorer.fingerprint, "rule": {}, "threshold": 0.5})
    text = f"import os\n\nAPI_TOKEN = '{KEY}'\n"
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": text, "path": "settings.py"}])
    args = [str(source), "--kinds", "credential", "--thresholds", str(tmp_path / "t.json")]
    code, err = export(cli, [*args, "-o", str(tmp_path / "m.jsonl")], capsys)
    assert code == 0, err
    (record,) = read_jsonl(tmp_path / "m.jsonl")
    assert [text[a:b] for a, b in record["smscan"]["masked_spans"]] == [KEY]
    assert record["smscan"]["span_kinds"] == ["credential"]
    assert record["smscan"]["rule"]["kinds"] == ["credential"]
    code, err = export(cli, [*args, "-o", str(tmp_path / "r.jsonl"), "--mode", "redact"], capsys)
    assert read_jsonl(tmp_path / "r.jsonl")[0]["text"] == "import os\n\nAPI_TOKEN = '<CREDENTIAL>'\n"


def test_parquet_output_holds_the_same_records(tmp_path: Path, cli, capsys, monkeypatch) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    from smscan.exports import writer

    original = writer.jsonl_to_parquet
    # Batches of two rows: the first batch has no spans at all, so schemas must be unified.
    monkeypatch.setattr(writer, "jsonl_to_parquet", lambda s, t: original(s, t, batch_rows=2))
    records = [{"text": "x = 1\n", "id": 0}, {"text": "y = 2\n", "id": 1}, {"text": f"k = '{KEY}'\n", "id": 2}]
    source = write_jsonl(tmp_path / "in.jsonl", records)
    assert export(cli, [str(source), "-o", str(tmp_path / "out.parquet"), *RAW], capsys)[0] == 0
    assert export(cli, [str(source), "-o", str(tmp_path / "out.jsonl"), *RAW], capsys)[0] == 0
    rows = pq.read_table(tmp_path / "out.parquet").to_pylist()
    expected = read_jsonl(tmp_path / "out.jsonl")
    assert [r["smscan"]["masked_spans"] for r in rows] == [e["smscan"]["masked_spans"] for e in expected]
    assert [r["text"] for r in rows] == [e["text"] for e in expected]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "out.jsonl", "out.parquet"]
