"""bench/keep_what_works.py on a small hand-made split: the subset it scans and the figures it prints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.keep_what_works import copy_subset, main, markdown, measure
from bench.common.splits import find_shared, load_scorer

SHARED = find_shared()
SECRET = "Zq8xP1sV9kL2mN4bT7wR"


def write_split(folder: Path, files: dict[str, tuple[str, str, list[tuple[int, int]], list[tuple[int, int]]]]) -> None:
    """files: path -> (ext_class, text, secret spans, look-alike spans)."""
    rows = []
    for path, (fmt, text, secrets, negatives) in files.items():
        (folder / "corpus" / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / "corpus" / path).write_text(text, encoding="utf-8")
        rows.append({"path": path, "ext_class": fmt,
                     "spans": [{"start": s, "end": e, "category": "api_key", "context": "x", "secret_id": i}
                               for i, (s, e) in enumerate(secrets)],
                     "negatives": [{"start": s, "end": e, "category": "uuid", "context": "x"} for s, e in negatives]})
    (folder / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (folder / "manifest.json").write_text(json.dumps({"generator": "fixture"}))


def small_split(folder: Path) -> None:
    keyed = f'api_key = "{SECRET}"\nname = "orders"\n'
    start = keyed.index(SECRET)
    clean = "".join(f"line {i}\n" for i in range(10))
    looks = 'request_id = "d141e397-563c-4926-a7c8-b6463781e3f5"\n'
    uuid_at = looks.index("d141")
    write_split(folder, {
        "a/keyed.py": ("py", keyed, [(start, start + len(SECRET))], []),
        "a/clean.py": ("py", clean, [], []),
        "b/looks.yaml": ("yaml", looks, [], [(uuid_at, uuid_at + 36)]),
        "b/long.yaml": ("yaml", "x: 1\n" * 400, [], []),
    })


def test_the_subset_keeps_short_files_and_the_shortest_of_each_type(tmp_path: Path) -> None:
    small_split(tmp_path / "data")

    kept = copy_subset(tmp_path / "data", tmp_path / "only-short", 1000)
    assert kept == 3
    assert not (tmp_path / "only-short" / "corpus" / "b" / "long.yaml").exists()

    kept = copy_subset(tmp_path / "data", tmp_path / "two-a-type", 100, min_per_type=2)
    rows = [json.loads(x) for x in (tmp_path / "two-a-type" / "labels.jsonl").read_text().splitlines()]
    assert kept == 4 and sorted(r["path"] for r in rows) == ["a/clean.py", "a/keyed.py", "b/long.yaml", "b/looks.yaml"]


@pytest.mark.skipif(SHARED is None, reason="the shared scorer is outside this checkout")
def test_false_alarms_per_1000_lines_and_look_alikes_per_type(tmp_path: Path) -> None:
    data = tmp_path / "data"
    small_split(data)
    rows = {json.loads(x)["path"]: json.loads(x) for x in (data / "labels.jsonl").read_text().splitlines()}
    secret = rows["a/keyed.py"]["spans"][0]
    uuid = rows["b/looks.yaml"]["negatives"][0]
    (data / "preds").mkdir()
    # The secret, one span in the clean file, and the look-alike: two false alarms in 412 lines.
    predictions = {"a/keyed.py": [[secret["start"], secret["end"]]], "a/clean.py": [[0, 6]],
                   "b/looks.yaml": [[uuid["start"], uuid["end"]]]}
    (data / "preds" / "smscan.json").write_text(json.dumps({"tool": "smscan", "files": predictions}))

    figures = measure(load_scorer(SHARED), data)

    assert figures["overall"]["char"]["recall"] == 1.0
    assert figures["alarms"]["lines"] == 2 + 10 + 1 + 400
    assert figures["alarms"]["false_alarms"] == 2
    assert figures["alarms"]["per_1000_lines"] == round(2000 / 413, 3)
    assert figures["alarms"]["clean_false_alarms"] == 2 and figures["alarms"]["clean_lines"] == 411
    assert figures["per_format"]["yaml"]["hard_negative_fp_rate"] == 1.0
    code = {**figures, "overall": {**figures["overall"], "hard_negative_fp_rate": 0.0, "hard_negatives": 5}}
    table = markdown(code, figures)
    assert "| yaml | 2 | 1 | 1.000 | NO |" in table
    assert "| py | 2 | 0 | 0.000 | yes |" in table


def test_a_folder_without_labels_is_refused_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit) as exit_info:
        main(["--code", str(tmp_path / "empty"), "--work", str(tmp_path / "work")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "holds no labels.jsonl" in err and "Traceback" not in err
