"""Default skips shared by every mode: vendored, minified, smscan's outputs; .smscanignore."""

from __future__ import annotations

from pathlib import Path

import pytest

from smscan.config.settings import Settings
from smscan.records import Document, Skip
from smscan.sources.selection import (
    ALL_SKIP_REASONS,
    Selection,
    is_lock_file,
    is_minified,
    is_smscan_output,
    is_vendored_path,
)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("vendor/lib.go", True),
        ("web/node_modules/x/index.js", True),
        ("third_party/a.c", True),
        ("src/vendor.py", False),
        ("src/vendors/a.py", False),
        ("node_modules", False),
    ],
)
def test_vendored_paths(path: str, expected: bool) -> None:
    assert is_vendored_path(path) is expected


LONG_LINE = "var a=" + "1," * 600 + "2;"


@pytest.mark.parametrize(
    ("path", "text", "expected"),
    [
        ("app.min.js", None, True),
        ("style.MIN.CSS", None, True),
        ("app.js.map", None, True),
        ("dist/index.d.ts.map", None, True),  # TypeScript's declaration maps
        ("dist/client.mjs.map", None, True),
        ("dist/types.d.cts.map", None, True),
        ("theme.scss.map", None, True),
        ("europe.map", None, False),  # a map, not a source map
        ("roadmap.md", None, False),
        ("app.js", LONG_LINE, True),
        ("app.css", LONG_LINE, True),
        ("app.js", "var a = 1;\n" * 200, False),
        ("data.py", LONG_LINE, False),  # only bundles are judged by line length
        ("app.js", "x" * 500, False),  # too short to judge
    ],
)
def test_minified(path: str, text: str | None, expected: bool) -> None:
    assert is_minified(path, text) is expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("package-lock.json", True),
        ("web/yarn.lock", True),
        ("Cargo.lock", True),
        ("svc/go.sum", True),
        ("Pipfile.lock", True),
        ("src/lock.py", False),
        ("package.json", False),
        ("docs/poetry.lock.md", False),
    ],
)
def test_lock_files_by_name(path: str, expected: bool) -> None:
    assert is_lock_file(path) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{\n  "version": 1,\n  "tool": {\n    "name": "smscan",\n', True),
        ('{"smscan_baseline": 1, "salt": "ab"}', True),
        ('{"runs": [{"tool": {"driver": {"name": "smscan"}}}]}', True),
        ('{"tool": {"name": "gitleaks"}}', False),
        ("# smscan notes\n", False),
    ],
)
def test_smscan_outputs_by_content(text: str, expected: bool) -> None:
    assert is_smscan_output(text) is expected


def test_for_root_reads_smscanignore_and_names_outputs(tmp_path: Path) -> None:
    (tmp_path / ".smscanignore").write_text("# generated\ngen/\n*.snap\n!keep.snap\n")
    settings = Settings(exclude=("docs/",), baseline="ci/accepted.json", thresholds="cal/t.json")
    selection = Selection.for_root(tmp_path, settings, outputs=[tmp_path / "out" / "r.json", None, Path("/elsewhere.json")])
    assert [selection.is_selected(p) for p in ("gen/a.py", "a.snap", "keep.snap", "docs/x", "src/a.py")] == [
        False, False, True, False, True,
    ]
    assert selection.own_outputs == {".smscan-baseline.json", "ci/accepted.json", "cal/t.json", "out/r.json"}


def test_classify_applies_path_rules_then_content(tmp_path: Path) -> None:
    selection = Selection(max_file_bytes=100)
    assert selection.classify(".smscan-baseline.json", b"{}", group="g") == Skip(".smscan-baseline.json", "smscan-output")
    assert selection.classify("r.json", b'{"tool": {"name": "smscan"}}', group="g") == Skip("r.json", "smscan-output")
    assert selection.classify("a.py", b"\x00", group="g") == Skip("a.py", "binary")
    document = selection.classify("a.py", b"x\n", group="g", blob_id="b", changed_lines=((1, 1),))
    assert document == Document("a.py", "x\n", "g", "b", ((1, 1),))


def test_refine_drops_ignored_items_and_keeps_skips() -> None:
    from smscan.sources.select import PathFilter

    selection = Selection(PathFilter(exclude=("gen/",)))
    assert selection.refine(Document("gen/a.py", "x")) is None
    assert selection.refine(Skip("b.png", "binary")) == Skip("b.png", "binary")
    assert selection.refine(Document("vendor/a.py", "x")) == Skip("vendor/a.py", "vendored")
    assert selection.refine(Document("a.py", "x")) == Document("a.py", "x")


def test_every_reason_is_a_stable_id() -> None:
    assert {"smscan-output", "vendored", "minified", "deleted", "binary", "submodule"} <= ALL_SKIP_REASONS
