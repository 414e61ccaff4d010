"""The pure helpers of bench/speed.py: the table, the BENCHMARKS.md section, the generated inputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.speed import Row, command_line, one_line_files, ratio, render_table, replace_section, write_change


def test_render_table_marks_rss_above_limit_and_missed_targets() -> None:
    rows = [
        Row(2, "cold | scan", wall_s=412.345, files_per_s=0.07, tokens_per_s=321.0, rss_mb=1600.0,
            figure="40.0x CredSweeper's time", target="RSS <= 1.5 GB", met=False),
        Row(4, "staged", wall_s=0.8, rss_mb=900.0, target="<= 1.0 s", met=True),
        Row(1, "CTranslate2", note="skipped: no runtime field"),
    ]
    lines = render_table(rows).splitlines()
    assert lines[0].startswith("| # | measurement | wall s |")
    assert lines[2] == ("| 2 | cold \\| scan | 412 | 0.07 | 321 | **1,600 (> 1.5 GB)** | 40.0x CredSweeper's time "
                        "| RSS <= 1.5 GB | **no** |  |")
    assert lines[3] == "| 4 | staged | 0.800 | – | – | 900 | – | <= 1.0 s | yes |  |"
    assert lines[4] == "| 1 | CTranslate2 | – | – | – | – | – | – | – | skipped: no runtime field |"
    assert all(line.count("|") == 11 for line in lines[3:])


DOC = "# Benchmarks\n\nIntro.\n\n## Reference model\n\nold text\n\n## Export\n\nkept\n"


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        # absent: before the first level-2 heading
        (DOC, "# Benchmarks\n\nIntro.\n\n## Speed\nnew\n\n## Reference model\n\nold text\n\n## Export\n\nkept\n"),
        # present in the middle: replaced up to the next level-2 heading
        ("# B\n\n## Speed\nold\n### sub\nold too\n\n## Export\n\nkept\n", "# B\n\n## Speed\nnew\n\n## Export\n\nkept\n"),
        # present at the end
        ("# B\n\n## Export\n\nkept\n\n## Speed\nold\n", "# B\n\n## Export\n\nkept\n\n## Speed\nnew\n"),
        # no level-2 heading at all: appended
        ("# B\n\ntext\n", "# B\n\ntext\n\n## Speed\nnew\n"),
    ],
)
def test_replace_section(document: str, expected: str) -> None:
    assert replace_section(document, "## Speed\nnew\n") == expected


def test_replace_section_is_idempotent() -> None:
    once = replace_section(DOC, "## Speed\n\n| table |\n")
    assert replace_section(once, "## Speed\n\n| table |\n") == once
    assert once.count("## Speed") == 1 and "kept" in once


def test_ratio_of_missing_figures() -> None:
    assert ratio(3.0, 2.0) == 1.5
    assert ratio(None, 2.0) is None and ratio(1.0, 0.0) is None


def test_command_line_names_no_machine_paths() -> None:
    assert command_line(["--quick", "--cache", "/root/x", "--only", "2,3"]) == (
        "python -m bench.speed --quick --cache --only 2,3"
    )


def test_one_line_files(tmp_path: Path) -> None:
    secrets = one_line_files(tmp_path / "conf", 500)
    files = sorted((tmp_path / "conf").iterdir())
    assert len(files) == 500 and 0 < secrets < 25
    assert all(f.read_text().count("\n") == 1 for f in files)
    assert sum("api_key_" in f.read_text() for f in files) == secrets


def test_write_change_appends_real_code(tmp_path: Path) -> None:
    names = [f"m{i}.py" for i in range(5)]
    for name in names:
        (tmp_path / name).write_text("x = 1\n")
    added = write_change(tmp_path, names, lines_per_file=40, skip=0)
    assert 200 <= added <= 300
    for name in names:
        compile((tmp_path / name).read_text(), name, "exec")  # still valid Python
    other = tmp_path / "other"
    other.mkdir()
    (other / "m0.py").write_text("x = 1\n")
    write_change(other, ["m0.py"], lines_per_file=40, skip=200)
    assert (other / "m0.py").read_text() != (tmp_path / "m0.py").read_text()


def test_section_text_is_wrapped_and_names_no_machine_paths() -> None:
    import datetime

    from bench.speed import section_text

    text = section_text([Row(4, "staged", wall_s=2.0, target="<= 3.0 s", met=True), Row(1, "CTranslate2", note="skipped: x")],
                        command=command_line(["--quick", "--keep", "--cache", "/tmp/c"]),
                        started=datetime.datetime(2026, 1, 2, 3, 4, tzinfo=datetime.timezone.utc), loads=(1.0, 2.0),
                        notes=["a note"], revision="commit abc", machine="CPU X, 2 CPUs")
    assert text.startswith("## Speed\n\n")
    assert "    python -m bench.speed --quick --cache\n" in text
    assert "/tmp" not in text
    assert all(len(line) <= 100 for line in text.splitlines() if not line.startswith("|"))
    assert "- row 1, CTranslate2: skipped: x" in text and "- a note" in text
