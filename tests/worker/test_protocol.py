from __future__ import annotations

import json
import socket
import struct

import numpy as np
import pytest

from smscan.scoring.worker_protocol import (
    MAGIC,
    PROTOCOL_VERSION,
    ProtocolError,
    decode_scores,
    decode_texts,
    encode_scores,
    encode_texts,
    recv_message,
    send_message,
)
from tests.scorers import RandomWordScorer

TEXTS = ["x = 1\n", "", "key = 'AKIA0123456789abcdefXYZ'\n", "lone \ud800 surrogate é 😀"]


def test_texts_round_trip_including_empty_and_surrogates() -> None:
    lengths, payload = encode_texts(TEXTS)
    assert decode_texts(lengths, payload) == TEXTS


def test_scores_round_trip_bit_for_bit() -> None:
    texts = TEXTS[:3]  # the fake scorer cannot encode a lone surrogate
    scores = RandomWordScorer().score_texts(texts)
    counts, payload = encode_scores(scores)
    decoded = decode_scores(counts, payload, texts=texts)
    for got, want in zip(decoded, scores):
        for name in ("token_ids", "char_starts", "char_ends", "nll"):
            a, b = getattr(got, name), getattr(want, name)
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)  # NaN equals NaN here
        assert got.nll.flags.writeable


def test_frames_round_trip_over_a_socket() -> None:
    left, right = socket.socketpair()
    with left, right:
        send_message(left, {"op": "score", "lengths": [3]}, b"abc")
        header, payload = recv_message(right) or ({}, b"")
        assert header == {"op": "score", "lengths": [3], "v": PROTOCOL_VERSION}
        assert payload == b"abc"
        left.close()
        assert recv_message(right) is None


def _raw_frame(header: bytes, payload: bytes = b"", magic: bytes = MAGIC) -> bytes:
    return struct.pack(">4sIQ", magic, len(header), len(payload)) + header + payload


@pytest.mark.parametrize(
    "frame",
    [
        _raw_frame(b'{"v": 1}', magic=b"HTTP"),
        _raw_frame(json.dumps({"v": PROTOCOL_VERSION + 1}).encode()),
        _raw_frame(b"not json"),
        _raw_frame(b"[1, 2]"),
        struct.pack(">4sIQ", MAGIC, 1 << 30, 0),
        _raw_frame(b'{"v": 1}', b"abc")[:-1],  # closed mid-frame
    ],
    ids=["magic", "version", "json", "not-object", "huge", "truncated"],
)
def test_malformed_frames_raise_protocol_error(frame: bytes) -> None:
    left, right = socket.socketpair()
    with left, right:
        left.sendall(frame)
        left.close()
        with pytest.raises(ProtocolError):
            recv_message(right)


@pytest.mark.parametrize(
    ("counts", "payload"),
    [
        ([1], b"\0" * 31),  # payload shorter than the counts say
        ([1, 1], b"\0" * 64),  # more results than texts
        ("1", b"\0" * 32),
        ([1], struct.pack("<qqqd", 5, 0, 99, 1.0)),  # offsets outside the one-character text
    ],
)
def test_garbage_scores_raise_protocol_error(counts: object, payload: bytes) -> None:
    with pytest.raises(ProtocolError):
        decode_scores(counts, payload, texts=["x"])


def test_text_lengths_must_match_the_payload() -> None:
    with pytest.raises(ProtocolError):
        decode_texts([4], b"abc")
    with pytest.raises(ProtocolError):
        decode_texts([2], b"\xff\xfe")
