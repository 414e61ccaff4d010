"""--two-pass: groups scattered through a JSONL input are exported as if the input were sorted by
group (order of first appearance), with propagation, rejects and resume as in the streaming mode."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from smscan.exports.two_pass import iter_two_pass
from smscan.sources.datasets import DatasetRecord, RecordFormat, Rejected
from tests.cli_runner import Cli
from tests.scorers import interrupt_scoring, make_repeats_predictable

KEY = "aZ3kQ9xL2mP8vR4tY7wB1nC6"
KEY2 = "Zq81Lm0Pw7Rt5Ny3Kx9Bv2Hc"
RAW = ["--threshold", "3"]

# Groups a, b, c interleaved; a reject (bad JSON) and a record without the group field among them.
SCATTERED = [
    {"text": f"key = '{KEY}'\n", "u": "a", "n": 0},
    {"text": f"other = '{KEY2}'\n", "u": "b", "n": 1},
    "{not json",
    {"text": f"again = '{KEY}'\n", "u": "a", "n": 3},
    {"text": "plain = 1\n", "u": "c", "n": 4},
    {"text": "no group here\n", "n": 5},
    {"text": f"repeat = '{KEY2}'\n", "u": "b", "n": 6},
    {"text": f"third = '{KEY}'\n", "u": "a", "n": 7},
]
# The same data made contiguous: groups in the order of their first record, records in input order.
CONTIGUOUS = [SCATTERED[i] for i in (0, 3, 7, 1, 6, 2, 4, 5)]


def write_jsonl(path: Path, records: list[object]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture
def repeats_are_predictable(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """A key is surprising where the scorer first sees it; later copies are masked only by propagation."""
    return make_repeats_predictable(cli.scorer, monkeypatch)


def test_iter_two_pass_yields_groups_together_with_input_indices_and_stream_order(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [*SCATTERED[:2], "", *SCATTERED[2:]])  # a blank line too
    items = list(iter_two_pass(source, RecordFormat(group_by="u")))
    assert [item.index for item in items] == [0, 3, 7, 1, 6, 2, 4, 5]
    assert [item.order for item in items] == list(range(8))
    assert [item.sequence for item in items] == list(range(8))
    assert isinstance(items[5], Rejected) and items[5].reason.startswith("not JSON")
    assert isinstance(items[7], Rejected) and items[7].reason == "no group field 'u'"
    assert [item.data["n"] for item in items if isinstance(item, DatasetRecord)] == [0, 3, 7, 1, 6, 4]


def test_two_pass_gives_the_records_of_the_contiguous_input(
    cli: Cli, tmp_path: Path, repeats_are_predictable: set[str], capsys
) -> None:
    scattered = write_jsonl(tmp_path / "scattered.jsonl", SCATTERED)
    contiguous = write_jsonl(tmp_path / "contiguous.jsonl", CONTIGUOUS)
    assert cli.main(["export", str(scattered), "-o", str(tmp_path / "two.jsonl"), "--group-by", "u", "--two-pass", *RAW]) == 1
    repeats_are_predictable.clear()
    assert cli.main(["export", str(contiguous), "-o", str(tmp_path / "one.jsonl"), "--group-by", "u", *RAW]) == 1

    two, one = read_jsonl(tmp_path / "two.jsonl"), read_jsonl(tmp_path / "one.jsonl")
    assert two == one
    assert [r["n"] for r in two] == [0, 3, 7, 1, 6, 4]
    # Every copy of a group's key is masked: propagation ran over the whole scattered group.
    assert all(r["smscan"]["masked_spans"] for r in two if r["n"] != 4)
    rejects = read_jsonl(tmp_path / "two.jsonl.rejects.jsonl")
    assert [(r["index"], r["record"]) for r in rejects] == [(2, "{not json"), (5, json.dumps(SCATTERED[5]))]


def test_without_two_pass_the_error_names_the_group_and_the_option(tmp_path: Path, cli, capsys) -> None:
    scattered = write_jsonl(tmp_path / "scattered.jsonl", SCATTERED)
    assert cli.main(["export", str(scattered), "-o", str(tmp_path / "o.jsonl"), "--group-by", "u", *RAW]) == 2
    err = capsys.readouterr().err
    assert "group 'a' appeared earlier" in err and "--two-pass" in err and err.count("\n") == 1


def test_two_pass_resumes_after_an_interruption(tmp_path: Path, cli: Cli, capsys, monkeypatch) -> None:
    records = [{"text": f"n = {i}\nkey = '{KEY if i % 2 else KEY2}'\n", "u": f"g{i % 5}", "i": i} for i in range(60)]
    source = write_jsonl(tmp_path / "in.jsonl", records)
    args = [str(source), "--group-by", "u", "--two-pass", *RAW]
    # Kept out of the score cache, so the interrupted export below really scores.
    assert cli.main(["export", *args, "-o", str(tmp_path / "full.jsonl"), "--no-cache"]) == 0
    interrupt_scoring(cli.scorer, monkeypatch)
    out = tmp_path / "out.jsonl"
    assert cli.main(["export", *args, "-o", str(out)]) == 130
    state = json.loads((tmp_path / ".out.jsonl.state.json").read_text())
    assert 0 < state["done"] < 60
    # Resuming in the streaming mode would count records in another order: refused.
    assert cli.main(["export", *args[:-3], *RAW, "-o", str(out), "--resume"]) == 2
    assert "another input or other options" in capsys.readouterr().err
    assert cli.main(["export", *args, "-o", str(out), "--resume"]) == 0
    assert out.read_bytes() == (tmp_path / "full.jsonl").read_bytes()
    assert [r["i"] for r in read_jsonl(out)] == sorted(range(60), key=lambda i: (i % 5, i))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["{src}", "--two-pass"], "--two-pass regroups the records of a JSONL dataset"),
        (["{tmp}", "--two-pass", "--group-by", "u"], "--two-pass regroups the records of a JSONL dataset"),
        (["{tmp}/in.parquet", "--two-pass", "--group-by", "u"], "sort Parquet by the group field"),
    ],
)
def test_two_pass_bad_input_exits_2(tmp_path: Path, cli, capsys, args: list[str], message: str) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": "x", "u": "a"}])
    (tmp_path / "in.parquet").write_bytes(b"PAR1")
    folder = tmp_path / "folder"
    folder.mkdir()
    argv = [a.replace("{tmp}", str(folder) if a == "{tmp}" else str(tmp_path)).replace("{src}", str(source)) for a in args]
    assert cli.main(["export", *argv, "-o", str(tmp_path / "o.jsonl")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_two_pass_refuses_a_pipe_with_one_message(tmp_path: Path, cli: Cli, capsys) -> None:
    fifo = tmp_path / "in.jsonl"
    os.mkfifo(fifo)
    # Something must hold the write end open, as a shell's `<(zcat ...)` does.
    writer = subprocess.Popen(["sh", "-c", f"printf '%s\\n' '{{\"text\": \"a\", \"u\": 1}}' > {fifo}"])
    try:
        code = cli.main(["export", str(fifo), "-o", str(tmp_path / "o.jsonl"), "--group-by", "u", "--two-pass", "--threshold", "3"])
    finally:
        writer.kill()
        writer.wait(timeout=10)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "cannot read a pipe" in err and "Traceback" not in err
