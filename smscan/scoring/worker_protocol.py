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
it as a worker that is not there. A reader names the largest frame it will take (a client: what
its request can need, ``reply_limits``) and one deadline for the whole frame, so a peer that
answers slowly, byte by byte, or with a huge or deeply nested frame costs a bounded time and
memory, then counts as gone. Scores are checked as well as their shape: every NLL finite and in
``[-MAX_ABS_NLL, MAX_ABS_NLL]``, except a text's first token, which may be NaN (no context).
"""

from __future__ import annotations

import json
import re
import socket
import struct
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from smscan.records import TokenScores

PROTOCOL_VERSION = 1
MAGIC = b"SMSW"
_PREFIX = struct.Struct(">4sIQ")
MAX_HEADER_BYTES = 1 << 20
MAX_PAYLOAD_BYTES = 1 << 32
# Little-endian int64 and float64 (numpy dtype strings; numpy is imported by the functions that
# need it, so a thin client that only frames messages never loads it).
_INT = "<i8"
_FLOAT = "<f8"
_BYTES_PER_TOKEN = 4 * 8  # token_ids, char_starts, char_ends (int64) and nll (float64)
# Headers nest two levels (a reply's "settings" and "describe"); anything deeper is not ours.
MAX_HEADER_DEPTH = 8
# An NLL in nats over a vocabulary of 50k tokens stays far below this; contrast scores are
# differences of two NLLs.
MAX_ABS_NLL = 1000.0
MAX_TOKEN_ID = 1 << 32
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_BRACKETS = re.compile(rb"[\[\]{}]")


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


def recv_message(
    sock: socket.socket,
    *,
    deadline: float | None = None,
    max_header: int = MAX_HEADER_BYTES,
    max_payload: int = MAX_PAYLOAD_BYTES,
) -> tuple[dict[str, Any], bytes] | None:
    """Receive one frame: (header, payload), or None when the peer closed before a frame began.

    Args:
        sock: a connected stream socket.
        deadline: ``time.monotonic()`` by which the whole frame must have arrived; None keeps
            the socket's own timeout per read.
        max_header: the largest header taken, in bytes.
        max_payload: the largest payload taken, in bytes (checked before any is read).

    Raises:
        ProtocolError: bad magic, sizes over the limits, a header that is not a JSON object of
            this protocol version (or nested deeper than ``MAX_HEADER_DEPTH``), or a connection
            closed mid-frame.
        OSError: the socket failed; ``TimeoutError`` once the deadline has passed.
    """
    prefix = _recv_exactly(sock, _PREFIX.size, deadline, allow_eof=True)
    if prefix is None:
        return None
    magic, header_length, payload_length = _PREFIX.unpack(prefix)
    if magic != MAGIC:
        raise ProtocolError("not a smscan worker frame")
    if header_length > min(max_header, MAX_HEADER_BYTES) or payload_length > min(max_payload, MAX_PAYLOAD_BYTES):
        raise ProtocolError("frame larger than the request allows")
    raw = _recv_exactly(sock, header_length, deadline)
    payload = _recv_exactly(sock, payload_length, deadline) if payload_length else b""
    assert raw is not None and payload is not None
    return parse_header(raw), payload


def parse_header(raw: bytes) -> dict[str, Any]:
    """A frame's header: a JSON object of this protocol version, nested at most ``MAX_HEADER_DEPTH``.

    The depth is counted on the bytes before ``json`` sees them (brackets outside strings), so
    no header can drive the parser into a ``RecursionError``.

    Raises:
        ProtocolError: anything else.
    """
    header = parse_json_object(raw, max_depth=MAX_HEADER_DEPTH)
    if header.get("v") != PROTOCOL_VERSION:
        raise ProtocolError("frame of another protocol version")
    return header


def parse_json_object(raw: bytes, *, max_depth: int) -> dict[str, Any]:
    """A JSON object nested at most ``max_depth`` deep, counted before ``json`` parses it.

    Raises:
        ProtocolError: not UTF-8 JSON, not an object, nested deeper, or holding NaN or infinity.
    """
    depth = deepest = 0
    for bracket in _BRACKETS.findall(_JSON_STRING.sub(b'""', raw)):
        depth += 1 if bracket in (b"[", b"{") else -1
        deepest = max(deepest, depth)
        if deepest > max_depth:
            raise ProtocolError("JSON nested too deeply")
    try:
        value = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise ProtocolError("not JSON") from error
    if not isinstance(value, dict):
        raise ProtocolError("not a JSON object")
    return value


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number smscan takes")


def _recv_exactly(sock: socket.socket, size: int, deadline: float | None, *, allow_eof: bool = False) -> bytes | None:
    chunks = bytearray()
    while len(chunks) < size:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the peer did not send a whole frame in time")
            sock.settimeout(left)
        chunk = sock.recv(min(size - len(chunks), 1 << 20))
        if not chunk:
            if allow_eof and not chunks:
                return None
            raise ProtocolError("connection closed in the middle of a frame")
        chunks += chunk
    return bytes(chunks)


def reply_limits(texts: Sequence[str]) -> tuple[int, int]:
    """The largest (header, payload) a ``score``/``tokenize`` reply to ``texts`` can need.

    A byte-level tokenizer gives a token at least one byte of its text's UTF-8; a SentencePiece
    one may add an empty word-start token before a piece, so a text gets at most
    ``max_tokens(text)`` tokens, 32 bytes of payload each, and its count takes at most 21
    characters of the header.
    """
    return 4096 + 24 * len(texts), _BYTES_PER_TOKEN * sum(max_tokens(text) for text in texts)


def max_tokens(text: str) -> int:
    """The most tokens a reply may give ``text`` (see ``reply_limits``)."""
    return 2 * len(text.encode("utf-8", "surrogatepass")) + 1


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
    import numpy as np

    parts = []
    for item in scores:
        parts += [
            np.ascontiguousarray(item.token_ids, dtype=_INT).tobytes(),
            np.ascontiguousarray(item.char_starts, dtype=_INT).tobytes(),
            np.ascontiguousarray(item.char_ends, dtype=_INT).tobytes(),
            np.ascontiguousarray(item.nll, dtype=_FLOAT).tobytes(),
        ]
    return [len(item) for item in scores], b"".join(parts)


def decode_scores(counts: object, payload: bytes, *, texts: Sequence[str], scored: bool = True) -> list[TokenScores]:
    """The inverse of ``encode_scores``, checked against the texts that were sent.

    Args:
        counts: the reply's token counts.
        payload: the reply's arrays.
        texts: the texts of the request.
        scored: whether NLLs were asked for (``score``); a ``tokenize`` reply's are ignored and
            returned as NaN.

    Raises:
        ProtocolError: counts that do not match the texts or the payload, token ids or offsets
            outside their range, more tokens than bytes, or (``scored``) an NLL that is infinite,
            out of range, or NaN anywhere but a text's first token (a worker answering garbage).
    """
    import numpy as np

    from smscan.records import TokenScores

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
        if count > max_tokens(text):
            raise ProtocolError("more tokens than the text can have")
        if count and (starts.min() < 0 or ends.max() > len(text) or bool((starts > ends).any())):
            raise ProtocolError("token offsets outside the text")
        if count and (token_ids.min() < 0 or token_ids.max() >= MAX_TOKEN_ID):
            raise ProtocolError("token ids out of range")
        if not scored:
            nll = np.full(count, np.nan, dtype=np.float64)
        elif count and not _are_plausible_nlls(nll):
            raise ProtocolError("scores that are not finite or out of range")
        result.append(TokenScores(token_ids=token_ids, char_starts=starts, char_ends=ends, nll=nll))
    return result


def _are_plausible_nlls(nll: np.ndarray) -> bool:
    # nll: (n_tokens,) float64. Only the first token may lack a score (no context before it).
    import numpy as np

    rest = nll[1:]
    first_ok = bool(np.isnan(nll[0]) or abs(nll[0]) <= MAX_ABS_NLL)
    return first_ok and bool(np.isfinite(rest).all()) and bool((np.abs(rest) <= MAX_ABS_NLL).all())
