"""Downstream training fields: ``input_ids``, ``attention_mask`` and ``labels`` with -100 where masked.

Paper appendix C: selected reference tokens become character intervals ``[a, b)`` and every
downstream token with positive overlap is selected. A downstream token gets label -100 when it
overlaps a masked interval, or, for chats, when it does not overlap the content of a supervised
message (template text, other roles' messages). Other tokens' label is their id, so a standard
Hugging Face causal LM computes the loss over exactly the unmasked supervised tokens while the
masked ones stay in its context.

Text records are tokenized with the tokenizer's special tokens; chats are rendered with the
tokenizer's chat template when it has one (each message's content must appear unchanged in the
rendering, in order), else as ``"{role}:\\n{content}\\n\\n"`` per message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from smscan.errors import ModelError, SmscanError
from smscan.records import DatasetRecord

IGNORE_INDEX = -100


def overlaps(offsets: np.ndarray, intervals: Sequence[tuple[int, int]]) -> np.ndarray:
    """Whether each token ``[start, end)`` overlaps any interval by at least one code point.

    Args:
        offsets: int array of shape (tokens, 2), code-point offsets of each token.
        intervals: sorted, disjoint half-open intervals.

    Returns:
        bool per token; zero-width tokens never overlap.

    Example:
        >>> overlaps(np.array([[0, 2], [2, 4], [4, 4]]), [(3, 5)])
        array([False,  True, False])
    """
    offsets = np.asarray(offsets, dtype=np.int64).reshape(-1, 2)
    if not intervals:
        return np.zeros(offsets.shape[0], dtype=np.bool_)
    bounds = np.asarray(sorted(intervals), dtype=np.int64)
    starts, ends = offsets[:, 0], offsets[:, 1]
    # The first interval ending after the token starts is the only candidate for an overlap.
    first = np.searchsorted(bounds[:, 1], starts, side="right")
    exists = first < bounds.shape[0]
    candidate_start = bounds[np.minimum(first, bounds.shape[0] - 1), 0]
    return np.asarray(exists & (candidate_start < ends) & (ends > starts), dtype=np.bool_)


def token_labels(
    input_ids: Sequence[int],
    offsets: np.ndarray,
    masked: Sequence[tuple[int, int]],
    supervised: Sequence[tuple[int, int]] | None = None,
) -> list[int]:
    """Labels for a causal LM: the token id, or -100 where masked or not supervised.

    Args:
        input_ids: downstream token ids.
        offsets: (tokens, 2) code-point offsets of each token in the text.
        masked: masked ``[start, end)`` intervals of the text.
        supervised: intervals whose tokens are trained on; None trains on every token.

    Returns:
        One label per token.

    Example:
        >>> token_labels([5, 6, 7], np.array([[0, 1], [1, 2], [2, 3]]), [(1, 2)])
        [5, -100, 7]
    """
    ids = np.asarray(input_ids, dtype=np.int64)
    drop = overlaps(offsets, list(masked))
    if supervised is not None:
        drop |= ~overlaps(offsets, list(supervised))
    labels: list[int] = np.where(drop, IGNORE_INDEX, ids).tolist()
    return labels


class DownstreamLabeler:
    """Adds ``input_ids``, ``attention_mask`` and ``labels`` to exported records.

    Args:
        name_or_path: a Hugging Face tokenizer id or folder (fast tokenizers only: offsets).

    Raises:
        ModelError: the tokenizer cannot be loaded or is not a fast tokenizer.
    """

    def __init__(self, name_or_path: str) -> None:
        try:
            from transformers import AutoTokenizer

            from smscan.model.hf import quiet_transformers

            with quiet_transformers():
                self.tokenizer = AutoTokenizer.from_pretrained(name_or_path)
        except Exception as error:  # noqa: BLE001 - every loading failure is one ModelError
            raise ModelError(f"tokenizer {name_or_path}: cannot load it: {error}") from error
        if not getattr(self.tokenizer, "is_fast", False):
            raise ModelError(f"tokenizer {name_or_path}: a fast tokenizer is needed (for offsets)")
        self.name = name_or_path

    def __call__(self, record: DatasetRecord, masked: list[list[tuple[int, int]]]) -> dict[str, Any]:
        """Downstream fields of one record, given each text's masked intervals."""
        if not record.is_chat:
            return self.encode(record.texts[0], masked[0], None, special_tokens=True)
        text, bounds = self.render(record)
        spans = [(lo + a, lo + b) for (lo, _), ms in zip(bounds, masked) for a, b in ms]
        supervised = [b for b, ok in zip(bounds, record.supervised) if ok]
        return self.encode(text, spans, supervised, special_tokens=False)

    def encode(
        self,
        text: str,
        masked: Sequence[tuple[int, int]],
        supervised: Sequence[tuple[int, int]] | None,
        *,
        special_tokens: bool,
    ) -> dict[str, Any]:
        """Tokenize ``text`` and label it (see :func:`token_labels`)."""
        encoded = self.tokenizer(
            text, add_special_tokens=special_tokens, return_offsets_mapping=True, return_attention_mask=True
        )
        ids = list(encoded["input_ids"])
        offsets = np.asarray(encoded["offset_mapping"], dtype=np.int64).reshape(-1, 2)
        return {
            "input_ids": ids,
            "attention_mask": list(encoded["attention_mask"]),
            "labels": token_labels(ids, offsets, sorted(masked), supervised),
        }

    def render(self, record: DatasetRecord) -> tuple[str, list[tuple[int, int]]]:
        """The chat as the downstream model sees it, and each message content's bounds in it.

        Raises:
            SmscanError: the chat template changes a message's content.
        """
        if not getattr(self.tokenizer, "chat_template", None):
            from smscan.exports.layout import render_chat

            return render_chat(record.roles, record.texts)
        messages = [{"role": r, "content": c} for r, c in zip(record.roles, record.texts)]
        text = str(self.tokenizer.apply_chat_template(messages, tokenize=False))
        bounds = []
        cursor = 0
        for number, content in enumerate(record.texts):
            found = text.find(content, cursor)
            if found < 0:
                raise SmscanError(f"the chat template of {self.name} changes the content of message {number}")
            bounds.append((found, found + len(content)))
            cursor = found + len(content)
        return text, bounds
