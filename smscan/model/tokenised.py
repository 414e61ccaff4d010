"""A text as the scorer sees it: token ids, code-point offsets, the ids fed, and NLLs as chunks get scored."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from smscan.model.offsets import partition_offsets, replace_surrogates
from smscan.records import TokenScores


@dataclass(frozen=True, slots=True)
class Tokenised:
    """One text's tokens and offsets, and its NLLs as the chunks get scored."""

    token_ids: np.ndarray  # (n_tokens,) int64
    char_starts: np.ndarray  # (n_tokens,) int64
    char_ends: np.ndarray  # (n_tokens,) int64
    feed_ids: np.ndarray  # (shift + n_tokens,) int64: the optional BOS, then token_ids
    shift: int  # 1 when a BOS is fed before the text, else 0
    nll: np.ndarray = field(init=False)  # (n_tokens,) float64, NaN until scored

    def __post_init__(self) -> None:
        object.__setattr__(self, "nll", np.full(self.token_ids.shape, np.nan, dtype=np.float64))

    def scores(self) -> TokenScores:
        """The record handed on (sharing this object's arrays)."""
        return TokenScores(self.token_ids, self.char_starts, self.char_ends, self.nll)


def tokenised_text(text: str, ids: Sequence[int], offsets: Sequence[tuple[int, int]], bos_id: int | None) -> Tokenised:
    """A ``Tokenised`` from a tokenizer's ids and code-point offsets of ``text`` (``offsets.py``).

    Args:
        text: the text as tokenised (surrogates already replaced).
        ids: the token ids, without special tokens.
        offsets: one ``(start, end)`` per token.
        bos_id: the BOS id fed before the text, or None.

    Returns:
        The tokens with NaN NLLs.
    """
    starts, ends = partition_offsets(offsets, len(text))
    token_ids = np.asarray(ids, dtype=np.int64).reshape(-1)  # (n_tokens,)
    prefix = np.array([] if bos_id is None else [bos_id], dtype=np.int64)
    feed_ids = np.concatenate([prefix, token_ids])  # (shift + n_tokens,)
    return Tokenised(token_ids, starts, ends, feed_ids, len(prefix))


def tokenise_with(tokenizer: Any, texts: Sequence[str], bos_id: int | None) -> list[Tokenised]:
    """``texts`` as a ``tokenizers.Tokenizer`` (a model's ``tokenizer.json``) tokenises them for
    scoring: lone surrogates replaced, no special tokens, offsets a partition of each text.

    Args:
        tokenizer: the tokenizer.
        texts: the texts.
        bos_id: the BOS id fed before each text, or None.

    Returns:
        One ``Tokenised`` per text, NLLs NaN.
    """
    if not texts:
        return []
    clean = [replace_surrogates(text) for text in texts]
    encoded = tokenizer.encode_batch(clean, add_special_tokens=False)
    return [tokenised_text(text, encoding.ids, encoding.offsets, bos_id) for text, encoding in zip(clean, encoded)]
