"""bench/common: a benchmark's section of docs/BENCHMARKS.md, labelled splits, masked listings, smscan runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bench.common.listings import masked, slot_line
from bench.common.runs import run_json, smscan_argv
from bench.common.sections import replace_section, write_section
from bench.common.splits import find_shared, load_scorer, per_format, read_manifest, split_rows, write_split

SHARED = find_shared()
SECRET = "Zq8xP1sV9kL2mN4bT7wR"

DOCUMENT = "# Benchmarks\n\nIntro.\n\n## Speed\n\n| a | b |\n\n## Old round\n\nHand-written.\n### Sub\n\ntext\n"


def test_a_section_is_appended_once_then_replaced_and_the_rest_is_kept_byte_for_byte() -> None:
    first = replace_section(DOCUMENT, "Mine (bench.x)", "## Mine (bench.x)\n\nfigure 1\n")
    assert first == DOCUMENT + "\n## Mine (bench.x)\n\nfigure 1\n"

    again = replace_section(first, "Mine (bench.x)", "## Mine (bench.x)\n\nfigure 2\n")
    assert again == DOCUMENT + "\n## Mine (bench.x)\n\nfigure 2\n"

    middle = replace_section(again, "Speed", "## Speed\n\nnew table\n")
    assert middle.startswith("# Benchmarks\n\nIntro.\n\n## Speed\n\nnew table\n\n## Old round\n\nHand-written.\n### Sub\n")
    assert middle.endswith("## Mine (bench.x)\n\nfigure 2\n")
    # a heading that only starts like the section's is another section
    assert replace_section(DOCUMENT, "Old", "## Old\n\nx\n").count("## Old round") == 1


def test_write_section_names_the_command_that_wrote_it(tmp_path: Path) -> None:
    document = tmp_path / "BENCHMARKS.md"
    document.write_text(DOCUMENT, encoding="utf-8")

    write_section("Mine (bench.x)", "| t | 1 |\n", module="bench.x", argv=["--data", "a b"], document=document)
    assert "    python -m bench.x --data 'a b'\n" in document.read_text(encoding="utf-8")
    write_section("Mine (bench.x)", "| t | 2 |\n", module="bench.x", argv=["--data", "c"], document=document)

    text = document.read_text(encoding="utf-8")
    assert text.startswith(DOCUMENT)
    assert text.count("## Mine (bench.x)") == 1
    assert text.endswith("## Mine (bench.x)\n\nWritten by\n\n    python -m bench.x --data c\n\n| t | 2 |\n")


def test_a_split_is_copied_with_its_rows_and_read_back(tmp_path: Path) -> None:
    data = tmp_path / "data"
    rows = [{"path": "p/a.py", "ext_class": "py", "spans": [], "negatives": []},
            {"path": "q/b.yaml", "ext_class": "yaml", "spans": [], "negatives": []}]
    for row in rows:
        (data / "corpus" / row["path"]).parent.mkdir(parents=True, exist_ok=True)
        (data / "corpus" / row["path"]).write_text(f"# {row['path']}\n", encoding="utf-8")
    (data / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows) + "\n", encoding="utf-8")

    write_split(data, rows[1:], tmp_path / "copy")

    assert split_rows(data) == rows  # a blank line is no row
    assert split_rows(tmp_path / "copy") == rows[1:]
    assert (tmp_path / "copy" / "corpus" / "q" / "b.yaml").read_text(encoding="utf-8") == "# q/b.yaml\n"
    assert not (tmp_path / "copy" / "corpus" / "p").exists()
    assert read_manifest(tmp_path / "copy") == {}


@pytest.mark.skipif(SHARED is None, reason="the shared scorer is outside this checkout")
def test_per_format_sub_splits_add_up_to_the_whole(tmp_path: Path) -> None:
    data = _split_with_predictions(tmp_path / "data")
    score = load_scorer(SHARED)
    split = score.Split(data)
    files = json.loads((data / "preds" / "smscan.json").read_text())["files"]

    parts = dict(per_format(split))

    assert list(parts) == ["py", "yaml"]
    assert [r["path"] for r in parts["yaml"].rows] == ["b/looks.yaml"]
    whole = score.score(split, files, None)
    assert sum(score.score(sub, files, None)["secrets"] for sub in parts.values()) == whole["secrets"] == 1


@pytest.mark.skipif(SHARED is None, reason="the shared scorer is outside this checkout")
def test_multiformat_eval_writes_its_section_from_scored_predictions(tmp_path: Path) -> None:
    from bench.multiformat_eval import SECTION, main

    _split_with_predictions(tmp_path / "work" / "data")
    _split_with_predictions(tmp_path / "given")
    document = tmp_path / "BENCHMARKS.md"
    document.write_text(DOCUMENT, encoding="utf-8")
    argv = ["--data", str(tmp_path / "given"), "--work", str(tmp_path / "work"), "--tools", "smscan",
            "--score-only", "--write", str(document)]

    assert main(argv) == 0

    text = document.read_text(encoding="utf-8")
    assert text.startswith(DOCUMENT)
    assert f"## {SECTION}\n\nWritten by\n\n    python -m bench.multiformat_eval --data {tmp_path / 'given'}" in text
    assert "| yaml |" in text and "| py |" in text


def test_deadcode_eval_table_reports_what_measure_counted(tmp_path: Path) -> None:
    from bench.deadcode_variants_eval import SECTION, markdown, measure

    records = [{"id": "1", "code": "a = 1\nif x < 0: pass\nb = 2\n", "poisoned_lines": [2], "attack": "fixed1"},
               {"id": "2", "code": "c = 3\nd = 4\n", "poisoned_lines": [], "attack": "clean"}]
    result = measure(records, {"1": {2}, "2": {1}})
    document = tmp_path / "BENCHMARKS.md"

    write_section(SECTION, markdown("dev.jsonl", result), module="bench.deadcode_variants_eval", argv=[],
                  document=document)

    text = document.read_text(encoding="utf-8")
    assert "| dev.jsonl | 0.500 | 1.000 | 0.667 | 1 of 1 | 200.00 (1 in 5) |" in text
    assert "Recall per attack: fixed1 1.000." in text


def test_listings_show_no_short_value_and_only_a_prefix_of_a_long_one() -> None:
    assert masked("hunter2") == "[7 chars]"
    assert masked(SECRET) == "Zq8x…[20 chars]"
    line = slot_line("a.py:3", SECRET, place="assignment", evidence=1.0)
    assert line == "a.py:3 assignment Zq8x…[20 chars] evidence 1.0"
    assert SECRET[4:] not in line


def test_a_failing_smscan_run_ends_the_benchmark_with_its_message(tmp_path: Path) -> None:
    assert smscan_argv() == [sys.executable, "-m", "smscan"]
    with pytest.raises(SystemExit) as exit_info:
        run_json(["files", str(tmp_path / "absent.py"), "--kinds", "no-such-kind"], cwd=tmp_path,
                 report=tmp_path / "report.json")
    assert str(exit_info.value).startswith("smscan exited 2:")
    assert "no-such-kind" in str(exit_info.value)


def _split_with_predictions(folder: Path) -> Path:
    """Two files of two types, one secret found, one look-alike flagged: the predictions under preds/."""
    keyed = f'api_key = "{SECRET}"\n'
    start = keyed.index(SECRET)
    looks = 'request_id = "d141e397-563c-4926-a7c8-b6463781e3f5"\n'
    uuid_at = looks.index("d141")
    rows = [
        {"path": "a/keyed.py", "ext_class": "py",
         "spans": [{"start": start, "end": start + len(SECRET), "category": "api_key", "context": "assign:py", "secret_id": 0}],
         "negatives": []},
        {"path": "b/looks.yaml", "ext_class": "yaml", "spans": [],
         "negatives": [{"start": uuid_at, "end": uuid_at + 36, "category": "uuid", "context": "x"}]},
    ]
    for row, text in zip(rows, (keyed, looks)):
        (folder / "corpus" / row["path"]).parent.mkdir(parents=True, exist_ok=True)
        (folder / "corpus" / row["path"]).write_text(text, encoding="utf-8")
    (folder / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (folder / "manifest.json").write_text(json.dumps({"generator": "fixture", "seed": 1}))
    (folder / "preds").mkdir(exist_ok=True)
    predictions = {"a/keyed.py": [[start, start + len(SECRET)]], "b/looks.yaml": [[uuid_at, uuid_at + 36]]}
    (folder / "preds" / "smscan.json").write_text(json.dumps({"tool": "smscan", "files": predictions}))
    return folder


@pytest.mark.model
def test_deadcode_eval_runs_the_real_cli_and_writes_its_section(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real default model through `smscan files`: a constant-false line found, a clean program left alone."""
    from bench.deadcode_variants_eval import SECTION, main

    monkeypatch.setenv("SMSCAN_SCORE_CACHE", str(tmp_path / "scores"))
    programs = [
        {"id": "1", "code": "def add_all(values):\n    total = 0\n    for v in values:\n        total += v\n"
                            "    if 1 == 0: print(\"unreachable\")\n    return total\n",
         "poisoned_lines": [5], "attack": "fixed1"},
        {"id": "2", "code": "def longest(words):\n    best = ''\n    for w in words:\n        if len(w) > len(best):\n"
                            "            best = w\n    return best\n",
         "poisoned_lines": [], "attack": "clean"},
    ]
    labels = tmp_path / "set.jsonl"
    labels.write_text("".join(json.dumps(p) + "\n" for p in programs), encoding="utf-8")
    document = tmp_path / "BENCHMARKS.md"
    document.write_text(DOCUMENT, encoding="utf-8")

    assert main(["--labels", str(labels), "--write", str(document)]) == 0

    text = document.read_text(encoding="utf-8")
    assert text.startswith(DOCUMENT) and f"## {SECTION}\n" in text
    assert "| set.jsonl | 1.000 | 1.000 | 1.000 | 1 of 1 | 0.00 (0 in 12) |" in text
