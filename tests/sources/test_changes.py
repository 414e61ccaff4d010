from __future__ import annotations

import pytest

from smscan.sources.changes import (
    FileChange,
    intersect_ranges,
    merge_ranges,
    parse_added_lines,
    parse_raw_diff,
)

A = "a" * 40
B = "b" * 40
Z = "0" * 40


def test_parse_raw_diff_reads_statuses_renames_and_odd_names() -> None:
    raw = (
        f":000000 100644 {Z} {A} A\0new file.py\0".encode()
        + f":100644 100644 {A} {B} M\0".encode() + "caf\u00e9.py".encode() + b"\0"
        + f":100644 100644 {A} {B} R087\0old.py\0moved/new.py\0".encode()
        + f":100644 000000 {A} {Z} D\0gone\nline.py\0".encode()
    )
    assert parse_raw_diff(raw) == [
        FileChange("A", "new file.py", "new file.py", "000000", "100644", Z, A),
        FileChange("M", "caf\u00e9.py", "caf\u00e9.py", "100644", "100644", A, B),
        FileChange("R", "moved/new.py", "old.py", "100644", "100644", A, B),
        FileChange("D", "gone\nline.py", "gone\nline.py", "100644", "000000", A, Z),
    ]


def test_parse_raw_diff_of_nothing_is_empty() -> None:
    assert parse_raw_diff(b"") == []


PATCH = f"""diff --git a/x.py b/x.py
index {A}..{B} 100644
--- a/x.py
+++ b/x.py
@@ -2 +2 @@ def f():
-old
+new
@@ -10,0 +11,3 @@ class C:
+a
+b
+c
@@ -20,2 +22,0 @@
-gone
-gone
diff --git a/img.png b/img.png
index {B}..{A} 100644
Binary files a/img.png and b/img.png differ
diff --git a/"weird\\nname" b/"weird\\nname"
new file mode 100644
index {Z}..{A}
--- /dev/null
+++ b/"weird\\nname"
@@ -0,0 +1,2 @@
+index {B}..{B}
+@@ -1 +1 @@
""".encode()


def test_parse_added_lines_reads_hunk_headers_only() -> None:
    assert parse_added_lines(PATCH) == {
        (A, B): ((2, 2), (11, 13)),
        (B, A): None,  # binary: judged whole
        (Z, A): ((1, 2),),
    }


@pytest.mark.parametrize(
    ("ranges", "merged"),
    [
        ([], ()),
        ([(5, 6), (1, 2)], ((1, 2), (5, 6))),
        ([(1, 2), (3, 4)], ((1, 4),)),
        ([(1, 5), (2, 3)], ((1, 5),)),
    ],
)
def test_merge_ranges(ranges: list[tuple[int, int]], merged: tuple[tuple[int, int], ...]) -> None:
    assert merge_ranges(ranges) == merged


@pytest.mark.parametrize(
    ("a", "b", "both"),
    [
        (((1, 5),), ((3, 8),), ((3, 5),)),
        (((1, 2), (6, 9)), ((2, 7),), ((2, 2), (6, 7))),
        (((1, 2),), ((3, 4),), ()),
    ],
)
def test_intersect_ranges(a, b, both) -> None:
    assert intersect_ranges(a, b) == both
