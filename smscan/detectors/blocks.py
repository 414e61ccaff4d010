"""Slots that span several lines: armoured blocks (private keys, certificates, public keys), the
key lines of a PuTTY ``.ppk`` file, and blocks of encoded data (wrapped base64, data URIs).

A private-key block is a credential as a whole. Certificates, public keys and base64 data
wrapped at a fixed width are public: they become ``public-block`` slots, which swallow their
lines so that no line of them is taken for a token.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

from smscan.detectors.slot_kinds import PEM, PUBLIC_BLOCK, Slot

_PEM_BEGIN = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----")
_BASE64_LINE = re.compile(r"[A-Za-z0-9+/=]{16,}")
# A line of ASCII85 (Adobe's base-85: `!` to `u`, and `z` for four zero bytes), as PostScript and
# PDF wrap binary data; sixty characters or more, where code and prose hold spaces, with signs
# that neither base64 nor hex nor a `NAME=value` line holds (wrapped hex keys stay keys).
_ASCII85_LINE = re.compile(r"(?=(?:[^!#$%&()*;<>?@\[\\\]^`]*[!#$%&()*;<>?@\[\\\]^`]){2})[!-uz]{60,}")
# PuTTY's key file (formats 2 and 3): `Public-Lines: N` and `Private-Lines: N`, each followed by
# N lines of base64. The comment (`Comment: dummy-key`) says nothing about the key. A key pasted
# into another file sits in a string or an indented heredoc (Terraform's `body = <<EOF "PuTTY-...`).
_PUTTY_HEADER = re.compile(r"^[ \t]*[\"']?PuTTY-User-Key-File-\d+:", re.MULTILINE)
_PUTTY_LINES = re.compile(r"^[ \t]*(?P<part>Public|Private)-Lines:[ \t]*(?P<count>\d{1,4})[ \t]*\r?$", re.MULTILINE)
# The key's MAC (an HMAC over the key, in hex): derived from the key, not a secret of its own.
_PUTTY_MAC = re.compile(r"^[ \t]*Private-(?:MAC|Hash):[ \t]*(?P<mac>[0-9a-fA-F]+)", re.MULTILINE)


def pem_blocks(text: str) -> Iterator[Slot]:
    """Armoured blocks: private keys are slots; certificates and public keys are public and
    swallow their lines so no part of them is taken for a token."""
    for begin in _PEM_BEGIN.finditer(text):
        label = begin.group(1)
        end_marker = f"-----END {label}-----"
        end = text.find(end_marker, begin.end())
        if end != -1:
            where = PEM if "PRIVATE KEY" in label else PUBLIC_BLOCK
            yield Slot(begin.start(), end + len(end_marker), label, where)


# A line break written escaped, once or more (`\n` in JSON, `\\n` in a docstring's example).
_ESCAPED_BREAK = re.compile(r"\\+n")


def is_armoured_text(block: str) -> bool:
    """True when a private key's armour holds base64 of plain text, not of a key: a stand-in
    (``YWJjZGVm...`` is the alphabet). A key is binary (DER, or OpenSSH's format) and never decodes
    to printable text. Header lines (``Proc-Type: ...``) are skipped; a block written inside a
    JSON string has its line breaks escaped.

    Example:
        >>> is_armoured_text("-----BEGIN PRIVATE KEY-----\\nYWJjZGVmZ2hpamtsbW5vcA==\\n-----END PRIVATE KEY-----")
        True
        >>> is_armoured_text("-----BEGIN PRIVATE KEY-----\\nMIIBVQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----")
        False
    """
    lines = _ESCAPED_BREAK.sub("\n", block).splitlines()
    body = "".join(line.strip() for line in lines if not line.startswith("-----") and ":" not in line)
    if len(body) < 8:
        return False
    try:
        decoded = base64.b64decode(body + "=" * (-len(body) % 4), validate=True).decode("ascii")
    except (binascii.Error, ValueError):
        return False
    return all(char.isprintable() or char.isspace() for char in decoded)


def putty_blocks(text: str) -> Iterator[Slot]:
    """The key lines of a PuTTY ``.ppk`` file: its private lines are a private key (whatever the
    file's comment says), its public lines and its MAC public.

    Example:
        >>> text = "PuTTY-User-Key-File-3: ssh-ed25519\\nPrivate-Lines: 1\\nAAAAIGFsobE4+Ldh\\nPrivate-MAC: 9b\\n"
        >>> [(text[s.start:s.end], s.where) for s in putty_blocks(text)]
        [('AAAAIGFsobE4+Ldh', 'pem'), ('9b', 'public-block')]
    """
    if not _PUTTY_HEADER.search(text):
        return
    for header in _PUTTY_LINES.finditer(text):
        start = text.find("\n", header.end()) + 1
        if start == 0:
            continue
        while start < len(text) and text[start] in " \t":  # an indented heredoc's indentation
            start += 1
        end = start
        for _ in range(int(header.group("count"))):
            line_end = text.find("\n", end)
            end = len(text) if line_end == -1 else line_end + 1
        body_end = len(text[start:end].rstrip("\r\n")) + start
        if body_end > start:
            private = header.group("part") == "Private"
            yield Slot(start, body_end, f"PuTTY {header.group('part').lower()} key", PEM if private else PUBLIC_BLOCK)
    for mac in _PUTTY_MAC.finditer(text):
        yield Slot(mac.start("mac"), mac.end("mac"), "PuTTY key MAC", PUBLIC_BLOCK)


# A data URI's base64 body (`data:image/png;base64,iVBOR...`), wrapped or not: Inkscape writes an
# embedded image as one attribute of 76-character chunks joined by spaces or newlines. Chunks after
# the first are 16 characters or more, or the last one before the closing quote or bracket.
_DATA_URI = re.compile(
    r"data:[\w.+\-]+/[\w.+\-]+(?:;[\w.+\-]+=[\w.+\-]+)*;base64,[A-Za-z0-9+/=]+"
    r"(?:\s+[A-Za-z0-9+/=]{16,})*(?:\s+[A-Za-z0-9+/=]+(?=\s*[\"')]))?"
)


def embedded_data(text: str) -> Iterator[Slot]:
    """Each data URI's base64 body, spaces and line breaks included: an embedded image or font,
    encoded data and not a key, however random its chunks look."""
    for match in _DATA_URI.finditer(text):
        yield Slot(match.start(), match.end(), "", PUBLIC_BLOCK)


def data_blocks(lines: list[str], line_starts: list[int]) -> Iterator[Slot]:
    """Blocks of three or more lines that are each one base64 run, or one ASCII85 run (a PostScript
    image's data), of the same width (the last one may be shorter): encoded data wrapped at a
    fixed width, not a key."""
    index = 0
    while index < len(lines):
        first = lines[index].strip()
        encoding = _BASE64_LINE if _BASE64_LINE.fullmatch(first) else _ASCII85_LINE
        width = len(first)
        end = index
        while end < len(lines) and encoding.fullmatch(lines[end].strip()) and len(lines[end].strip()) == width:
            end += 1
        if end < len(lines) and end > index and encoding.fullmatch(lines[end].strip() or "-") and len(lines[end].strip()) < width:
            end += 1  # the shorter last line
        if end - index >= 3 and encoding.fullmatch(first):
            yield Slot(line_starts[index], line_starts[end - 1] + len(lines[end - 1]), "", PUBLIC_BLOCK)
            index = end
        else:
            index += 1
