"""What one score cache entry is: its key, and the NLL array with a digest of the tokens it fits.

An entry holds no text and nothing that decodes to it (``smscan/scoring/cache.py``): only the NLL array
and a sha256 digest of the tokens (ids and character offsets) the scores belong to.
"""

from __future__ import annotations

import hashlib
import json
import struct
from typing import Any

import numpy as np

from smscan.records import TokenScores

_MAGIC = b"smc1"
_HEADER = struct.Struct("<4sBI")  # magic, bytes per NLL (4 or 8), number of tokens
_DIGEST_BYTES = 32


def settings_key(settings: Any) -> str:
    """A stable string of scoring settings: their own ``key()`` (the model package's
    ``ScoringSettings``), or the sorted JSON of a mapping."""
    key = getattr(settings, "key", None)
    if callable(key):
        return str(key())
    return json.dumps(dict(settings), sort_keys=True, default=str)


def cache_key(fingerprint: str, settings: Any, text: str) -> str:
    """The hex digest that names one text's scores under one model and scoring settings.

    Example:
        >>> cache_key("m", {"stride": 384}, "x") == cache_key("m", {"stride": 384}, "x")
        True
    """
    text_digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    identity = json.dumps(
        {"fingerprint": fingerprint, "settings": settings_key(settings), "text": text_digest},
        sort_keys=True,
    )
    return hashlib.sha256(identity.encode("utf-8")).hexdigest()


def tokens_digest(tokens: TokenScores) -> bytes:
    """sha256 of a text's token ids and character offsets (what an entry is checked against)."""
    digest = hashlib.sha256()
    for array in (tokens.token_ids, tokens.char_starts, tokens.char_ends):
        digest.update(np.ascontiguousarray(array, dtype="<i8").tobytes())
    return digest.digest()


def encode_entry(scores: TokenScores) -> bytes:
    """An entry's bytes: header, the tokens' digest, the NLL (float32 when that is lossless).

    The model computes NLL in float32, so float32 storage is usually exact; other scorers keep
    float64. Neither the text nor its token ids are stored.
    """
    nll = np.asarray(scores.nll, dtype=np.float64)
    narrow = nll.astype("<f4")
    exact = np.array_equal(narrow.astype(np.float64), nll, equal_nan=True)
    data = narrow if exact else nll.astype("<f8")
    return _HEADER.pack(_MAGIC, data.itemsize, len(nll)) + tokens_digest(scores) + data.tobytes()


def decode_entry(value: bytes, tokens: TokenScores) -> TokenScores | None:
    """The scores of ``tokens`` from an entry, or None when the entry is damaged or belongs to
    other tokens."""
    try:
        magic, width, count = _HEADER.unpack_from(value)
    except struct.error:
        return None
    body = _HEADER.size + _DIGEST_BYTES
    if magic != _MAGIC or width not in (4, 8) or len(value) != body + width * count:
        return None
    if count != len(tokens.token_ids) or value[_HEADER.size : body] != tokens_digest(tokens):
        return None
    nll = np.frombuffer(value, dtype=f"<f{width}", count=count, offset=body).astype(np.float64)
    return TokenScores(tokens.token_ids, tokens.char_starts, tokens.char_ends, nll)
