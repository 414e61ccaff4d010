"""The worker's wire format: versioned, length-prefixed frames; never pickle.

A frame is::

    b"SMSW" | header length (u32, big-endian) | payload length (u64, big-endian) | header | payload

The header is a JSON object (UTF-8) that always carries ``"v": PROTOCOL_VERSION``; the payload is
raw bytes whose layout the header describes:

- ``score`` / ``tokenize`` requests: ``"lengths"`` are the UTF-8 byte lengths of the texts
  (encoded with ``surrogatepass``, so any ``str`` round-trips), concatenated in the payload.
- their replies: ``"counts"`` are the token counts; per text, ``token_ids``, ``char_starts`` and
  ``char_ends`` as little-endian int64, then ``nll`` as little-endian float64, exactly the
  arrays of a ``TokenScores``.

Anything malformed (magic, sizes, JSON, version, lengths) raises ``ProtocolError``; callers treat
it as a worker that is not there.
"""

from __future__ import annotations

import json
import socket
import struct
from collections.abc import Sequence
from typing import Any

import numpy as np

from smscan.records import TokenScores

PROTOCOL_VERSION = 1
MAGIC = b"SMSW"
_PREFIX = struct.Struct(">4sIQ")
MAX_HEADER_BYTES = 1 << 20
MAX_PAYLOAD_BYTES = 1 << 32
_INT = np.dtype("<i8")
_FLOAT = np.dtype("<f8")
_BYTES_PER_TOKEN = 4 * 8  # token_ids, char_starts, char_ends (int64) and nll (float64)


class ProtocolError(Exception):
    """A frame or message that does not follow this module's format (or a closed connection)."""


def send_message(sock: socket.socket, header: dict[str, Any], payload: bytes = b"") -> None:
    """Send one frame; ``header`` gets the protocol version."""
    body = json.dumps({**header, "v": PROTOCOL_VERSION}, separators=(",", ":")).encode("utf-8")
    if len(body) > MAX_HEADER_BYTES or len(payload) > MAX_PAYLOAD_BYTES:
        raise ProtocolError("message too large for the worker protocol")
    sock.sendall(_PREFIX.pack(MAGIC, len(body), len(payload)) + body)
    if payload:
        sock.sendall(payload)


def recv_message(sock: socket.socket) -> tuple[dict[str, Any], bytes] | None:
    """Receive one frame: (header, payload), or None when the peer closed before a frame began.

    Raises:
        ProtocolError: bad magic, sizes over the limits, a header that is not a JSON object of
            this protocol version, or a connection closed mid-frame.
        OSError: the socket failed or timed out.
    """
    prefix = _recv_exactly(sock, _PREFIX.size, allow_eof=True)
    if prefix is None:
        return None
    magic, header_length, payload_length = _PREFIX.unpack(prefix)
    if magic != MAGIC:
        raise ProtocolError("not a smscan worker frame")
    if header_length > MAX_HEADER_BYTES or payload_length > MAX_PAYLOAD_BYTES:
        raise ProtocolError("frame larger than the protocol allows")
    raw = _recv_exactly(sock, header_length)
    payload = _recv_exactly(sock, payload_length) if payload_length else b""
    assert raw is not None and payload is not None
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise ProtocolError("frame header is not JSON") from error
    if not isinstance(header, dict):
        raise ProtocolError("frame header is not a JSON object")
    if header.get("v") != PROTOCOL_VERSION:
        raise ProtocolError(f"protocol version {header.get('v')!r}, expected {PROTOCOL_VERSION}")
    return header, payload


def _recv_exactly(sock: socket.socket, size: int, *, allow_eof: bool = False) -> bytes | None:
    chunks = bytearray()
    while len(chunks) < size:
        chunk = sock.recv(min(size - len(chunks), 1 << 20))
        if not chunk:
            if allow_eof and not chunks:
                return None
            raise ProtocolError("connection closed in the middle of a frame")
        chunks += chunk
    return bytes(chunks)


def encode_texts(texts: Sequence[str]) -> tuple[list[int], bytes]:
    """Texts as (byte lengths, concatenated UTF-8 with ``surrogatepass``)."""
    encoded = [text.encode("utf-8", "surrogatepass") for text in texts]
    return [len(item) for item in encoded], b"".join(encoded)


def decode_texts(lengths: object, payload: bytes) -> list[str]:
    """The inverse of ``encode_texts``; ProtocolError when lengths and payload disagree."""
    if not isinstance(lengths, list) or not all(isinstance(n, int) and n >= 0 for n in lengths):
        raise ProtocolError("'lengths' must be a list of non-negative integers")
    if sum(lengths) != len(payload):
        raise ProtocolError("text lengths do not add up to the payload")
    texts, offset = [], 0
    try:
        for length in lengths:
            texts.append(payload[offset : offset + length].decode("utf-8", "surrogatepass"))
            offset += length
    except UnicodeDecodeError as error:
        raise ProtocolError("a text is not UTF-8") from error
    return texts


def encode_scores(scores: Sequence[TokenScores]) -> tuple[list[int], bytes]:
    """Scores as (token counts, the four arrays of each text, little-endian)."""
    parts = []
    for item in scores:
        parts += [
            np.ascontiguousarray(item.token_ids, dtype=_INT).tobytes(),
            np.ascontiguousarray(item.char_starts, dtype=_INT).tobytes(),
            np.ascontiguousarray(item.char_ends, dtype=_INT).tobytes(),
            np.ascontiguousarray(item.nll, dtype=_FLOAT).tobytes(),
        ]
    return [len(item) for item in scores], b"".join(parts)


def decode_scores(counts: object, payload: bytes, *, texts: Sequence[str]) -> list[TokenScores]:
    """The inverse of ``encode_scores``, checked against the texts that were sent.

    Raises:
        ProtocolError: counts that do not match the texts or the payload, or offsets outside a
            text (a worker answering garbage).
    """
    if not isinstance(counts, list) or not all(isinstance(n, int) and n >= 0 for n in counts):
        raise ProtocolError("'counts' must be a list of non-negative integers")
    if len(counts) != len(texts) or sum(counts) * _BYTES_PER_TOKEN != len(payload):
        raise ProtocolError("token counts do not match the texts or the payload")
    result, offset = [], 0
    for count, text in zip(counts, texts):
        arrays = []
        for wire, native in ((_INT, np.int64), (_INT, np.int64), (_INT, np.int64), (_FLOAT, np.float64)):
            # astype copies: the arrays own writable memory, like the in-process scorer's.
            arrays.append(np.frombuffer(payload, dtype=wire, count=count, offset=offset).astype(native))
            offset += count * 8
        token_ids, starts, ends, nll = arrays
        if count and (starts.min() < 0 or ends.max() > len(text) or bool((starts > ends).any())):
            raise ProtocolError("token offsets outside the text")
        result.append(TokenScores(token_ids=token_ids, char_starts=starts, char_ends=ends, nll=nll))
    return result
