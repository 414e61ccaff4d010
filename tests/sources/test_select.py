from __future__ import annotations

import codecs

import pytest

from smscan.records import Document, Skip
from smscan.sources.select import SKIP_REASONS, PathFilter, classify_bytes

LFS_POINTER = (
    b"version https://git-lfs.github.com/spec/v1\n"
    b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    b"size 12345\n"
)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"12345678901", "too-large"),
        (b"", "empty"),
        (LFS_POINTER, "lfs-pointer"),
        (b"\x00\x01\x02", "binary"),
        (b"caf\xe9", "undecodable"),
    ],
)
def test_classify_bytes_skips(data: bytes, reason: str) -> None:
    max_file_bytes = 10 if reason == "too-large" else 1000
    assert classify_bytes("p", data, max_file_bytes=max_file_bytes) == Skip("p", reason)
    assert reason in SKIP_REASONS


def test_classify_bytes_at_the_size_limit_is_scanned() -> None:
    result = classify_bytes("a.txt", b"0123456789", max_file_bytes=10, group="g", blob_id="b")
    assert result == Document(path="a.txt", text="0123456789", group="g", blob_id="b")


def test_classify_bytes_decodes_utf16_with_bom() -> None:
    data = codecs.BOM_UTF16_LE + "key = 1\n".encode("utf-16-le")
    assert classify_bytes("w.txt", data, max_file_bytes=1000) == Document("w.txt", "\ufeffkey = 1\n")


def test_skip_reasons_are_stable_ids() -> None:
    assert SKIP_REASONS == {
        "binary",
        "too-large",
        "undecodable",
        "unreadable",
        "symlink-outside",
        "submodule",
        "lfs-pointer",
        "empty",
    }


@pytest.mark.parametrize(
    ("include", "exclude", "path", "expected"),
    [
        ((), (), "anything/at/all.bin", True),
        (("*.py",), (), "deep/down/a.py", True),
        (("*.py",), (), "a.md", False),
        (("src/",), (), "src/pkg/a.md", True),
        (("src/",), (), "other/src.md", False),
        (("/setup.py",), (), "setup.py", True),
        (("/setup.py",), (), "pkg/setup.py", False),
        ((), ("tests/",), "tests/test_a.py", False),
        ((), ("tests/",), "src/tests.py", True),
        ((), ("*.min.js", "!keep.min.js"), "web/a.min.js", False),
        ((), ("*.min.js", "!keep.min.js"), "web/keep.min.js", True),
        (("*.py",), ("tests/",), "tests/a.py", False),
        (("**/generated/**",), (), "a/generated/b/c.py", True),
    ],
)
def test_path_filter_uses_gitignore_semantics(
    include: tuple[str, ...], exclude: tuple[str, ...], path: str, expected: bool
) -> None:
    assert PathFilter(include=include, exclude=exclude).is_selected(path) is expected


def test_path_filter_is_a_value() -> None:
    assert PathFilter(include=("*.py",)) == PathFilter(include=("*.py",))
    assert PathFilter() != PathFilter(exclude=("x",))
