"""Text from a scanned repository made safe to print to a terminal.

A file name or a line of code can hold characters a terminal acts on instead of showing: an
escape sequence (``\\x1b[31m`` recolours, others retitle the window or rewrite the screen), C1
controls (``\\x9b`` is a one-byte CSI on some terminals), bidirectional overrides and isolates
that reorder what is shown (Trojan Source, CVE-2021-42574), zero-width characters that hide
text, and line separators. Each becomes a visible escape, as Python writes it (``\\x1b``,
``\\u202e``); a byte of a non-UTF-8 file name (decoded with ``surrogateescape``) becomes ``\\xNN``.
rich removes only some controls itself and leaves ESC in place, so every path and every source
snippet the text reports print goes through :func:`visible`. JSON and SARIF escape on their own.
"""

from __future__ import annotations

import unicodedata

_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_SURROGATE_ESCAPES = range(0xDC80, 0xDD00)  # os.fsdecode's stand-ins for undecodable bytes
_SHORT_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def escape_char(char: str) -> str:
    """``char`` itself, or its escape when a terminal would act on it or hide it.

    Example:
        >>> escape_char("\\x1b"), escape_char("\\u202e"), escape_char("é")
        ('\\\\x1b', '\\\\u202e', 'é')
    """
    if unicodedata.category(char) not in _ESCAPED_CATEGORIES:
        return char
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    code = ord(char)
    if code in _SURROGATE_ESCAPES:
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(text: str) -> str:
    """``text`` with every control, format (bidi, zero-width) and separator character escaped.

    Args:
        text: a path, a line of code or a message holding either.

    Returns:
        The same text where printable; escapes where not. Plain text is returned unchanged.

    Example:
        >>> visible("esc\\x1b[31mred.py")
        'esc\\\\x1b[31mred.py'
    """
    if text.isprintable():  # the common case: nothing to escape (isprintable is False for all of them)
        return text
    return "".join(escape_char(char) for char in text)


def json_escaped(document: str) -> str:
    """A ``json.dumps(..., ensure_ascii=False)`` document with the characters of :func:`visible`
    that json leaves raw (DEL, C1 controls, bidi and zero-width characters, separators, lone
    surrogates from non-UTF-8 file names) written as ``\\uXXXX``: the same JSON value, safe on a
    terminal and encodable as UTF-8.

    Example:
        >>> json_escaped('"a\\u202eb"')
        '"a\\\\u202eb"'
    """
    if document.isascii() and "\x7f" not in document:
        return document
    out = []
    for char in document:
        if char >= "\x7f" and unicodedata.category(char) in _ESCAPED_CATEGORIES:
            code = ord(char)
            if code >= 0x10000:  # a UTF-16 surrogate pair, as JSON spells it
                code -= 0x10000
                out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
            else:
                out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)
