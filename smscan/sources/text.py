"""How a file's bytes become the text that is scanned.

The contract, shared by every source so that character offsets mean the same thing everywhere:

- Text is the bytes decoded **exactly as stored**. Nothing is normalised: CR characters stay
  (a CRLF file keeps ``"\\r\\n"``), and a byte-order mark stays as the character U+FEFF at
  offset 0. Offsets into the text therefore map onto the file the same way for every encoding.
- A file that starts with a UTF-32 or UTF-16 byte-order mark is decoded with that encoding
  (the BOM is kept as U+FEFF, as above). UTF-32 LE is tried before UTF-16 LE because its mark
  ``FF FE 00 00`` begins with the UTF-16 LE mark ``FF FE``; if the bytes are not valid UTF-32,
  UTF-16 LE is tried next (a UTF-16 text that begins with U+0000).
- Anything else must be valid UTF-8 (strict: no lone surrogates, no overlong forms); otherwise
  there is no text (``None``), and the caller skips the file as ``undecodable``.
- A file is binary when a NUL byte occurs in its first 8 KiB, unless it starts with a UTF-16 or
  UTF-32 byte-order mark (such text is full of NUL bytes).
"""

from __future__ import annotations

import codecs

BINARY_SNIFF_BYTES = 8192
"""How many leading bytes :func:`is_binary` looks at for a NUL byte."""

# Longest mark first where one mark is a prefix of another (UTF-32 LE begins with UTF-16 LE's).
# Each mark lists the codecs to try, in order; the explicit-endian codecs keep the BOM as U+FEFF.
_BOM_CODECS: tuple[tuple[bytes, tuple[str, ...]], ...] = (
    (codecs.BOM_UTF32_LE, ("utf-32-le", "utf-16-le")),
    (codecs.BOM_UTF32_BE, ("utf-32-be",)),
    (codecs.BOM_UTF16_LE, ("utf-16-le",)),
    (codecs.BOM_UTF16_BE, ("utf-16-be",)),
)


def _bom_codecs(data: bytes) -> tuple[str, ...]:
    """The codecs to try for data starting with a UTF-16/32 byte-order mark, else ()."""
    for bom, names in _BOM_CODECS:
        if data.startswith(bom):
            return names
    return ()


def has_wide_bom(data: bytes) -> bool:
    """Whether data starts with a UTF-16 or UTF-32 byte-order mark."""
    return bool(_bom_codecs(data))


def is_binary(data: bytes) -> bool:
    """Whether data looks binary: a NUL byte in its first 8 KiB, unless it is UTF-16/32 text.

    Args:
        data: the file's bytes (only the first :data:`BINARY_SNIFF_BYTES` are examined).

    Returns:
        True when the data should be skipped as ``binary``.

    Example:
        >>> is_binary(b"\\x89PNG\\r\\n\\x1a\\n\\x00\\x00"), is_binary("hi".encode("utf-16"))
        (True, False)
    """
    if has_wide_bom(data):
        return False
    return b"\x00" in data[:BINARY_SNIFF_BYTES]


def decode_text(data: bytes) -> str | None:
    """Decode a file's bytes exactly as stored, or return None when they are not text.

    Args:
        data: the file's bytes.

    Returns:
        The text, with any byte-order mark kept as U+FEFF at offset 0 and CR characters kept;
        None when the bytes are neither BOM-marked UTF-16/32 nor valid UTF-8.

    Example:
        >>> decode_text(b"\\xef\\xbb\\xbfa\\r\\n")
        '\\ufeffa\\r\\n'
        >>> decode_text(b"\\xff\\xfea\\x00"), decode_text(b"\\xff\\x00")
        ('\\ufeffa', None)
    """
    for codec in _bom_codecs(data):
        try:
            return data.decode(codec)
        except UnicodeDecodeError:
            continue
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
