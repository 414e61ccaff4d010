from __future__ import annotations

import codecs

import pytest

from smscan.sources.text import BINARY_SNIFF_BYTES, decode_text, is_binary


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"plain\n", "plain\n"),
        (b"a\r\nb\r\n", "a\r\nb\r\n"),
        (b"lone\rcr", "lone\rcr"),
        (codecs.BOM_UTF8 + b"x = 1\n", "\ufeffx = 1\n"),
        ("caf\u00e9 \u2603".encode(), "caf\u00e9 \u2603"),
        (codecs.BOM_UTF16_LE + "hi\r\n".encode("utf-16-le"), "\ufeffhi\r\n"),
        (codecs.BOM_UTF16_BE + "hi".encode("utf-16-be"), "\ufeffhi"),
        (codecs.BOM_UTF32_LE + "hi".encode("utf-32-le"), "\ufeffhi"),
        (codecs.BOM_UTF32_BE + "hi".encode("utf-32-be"), "\ufeffhi"),
        # UTF-16 LE text whose first character is U+0000 starts like a UTF-32 LE BOM.
        (codecs.BOM_UTF16_LE + "\x00x".encode("utf-16-le"), "\ufeff\x00x"),
        (b"", ""),
    ],
)
def test_decode_text_keeps_bytes_as_stored(data: bytes, expected: str) -> None:
    assert decode_text(data) == expected


@pytest.mark.parametrize(
    "data",
    [
        b"\xff\xfe\xfd",  # not UTF-8, odd length after a UTF-16 LE BOM
        b"latin-1 caf\xe9",
        b"\xed\xa0\x80",  # an encoded surrogate
        b"\xc0\xaf",  # overlong
    ],
)
def test_decode_text_rejects_invalid_utf8(data: bytes) -> None:
    assert decode_text(data) is None


def test_utf8_bom_stays_at_offset_zero() -> None:
    text = decode_text(codecs.BOM_UTF8 + b"abc")
    assert text is not None
    assert text.index("a") == 1


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"text\n", False),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", True),
        (b"a" * (BINARY_SNIFF_BYTES - 1) + b"\x00", True),
        (b"a" * BINARY_SNIFF_BYTES + b"\x00", False),
        ("utf-16 text".encode("utf-16"), False),
        (codecs.BOM_UTF32_BE + "x".encode("utf-32-be"), False),
        (b"", False),
    ],
)
def test_is_binary(data: bytes, expected: bool) -> None:
    assert is_binary(data) is expected
