"""Left-context chunks for scoring texts longer than the model's window: pure index math.

A text of ``n`` tokens is cut into chunks ``[start, end)`` of at most ``context_tokens`` tokens.
The first chunk starts at 0 and scores tokens ``1 .. end-1`` (token 0 has no context, so it is
never scored). Each later chunk re-feeds ``context_tokens - stride`` tokens of left context
already seen by the previous chunk and scores the new tokens ``[score_from, end)``, where
``score_from`` is the previous chunk's end. Every token but the first is scored exactly once, with
at least ``context_tokens - stride`` tokens of left context (all of them in the first chunk).

    >>> plan_chunks(10, context_tokens=4, stride=3)
    [Chunk(start=0, end=4, score_from=1), Chunk(start=3, end=7, score_from=4), Chunk(start=6, end=10, score_from=7)]
"""

from __future__ import annotations

from typing import NamedTuple


class Chunk(NamedTuple):
    """Feed tokens ``[start, end)``; score tokens ``[score_from, end)`` (absolute indices)."""

    start: int
    end: int
    score_from: int


def check_window(context_tokens: int, stride: int) -> None:
    """Raise ValueError unless ``2 <= context_tokens`` and ``1 <= stride < context_tokens``.

    Args:
        context_tokens: tokens fed to the model per chunk.
        stride: new tokens scored per chunk after the first.

    Raises:
        ValueError: the pair cannot give every scored token at least one token of context.
    """
    if context_tokens < 2:
        raise ValueError(f"context_tokens must be at least 2, got {context_tokens}")
    if not 1 <= stride < context_tokens:
        raise ValueError(
            f"stride must be between 1 and context_tokens - 1 ({context_tokens - 1}), got {stride}"
        )


def plan_chunks(n_tokens: int, *, context_tokens: int, stride: int) -> list[Chunk]:
    """Cut ``n_tokens`` tokens into left-context chunks (see the module docstring).

    Args:
        n_tokens: length of the tokenised text.
        context_tokens: the most tokens fed to the model at once.
        stride: new tokens scored by each chunk after the first.

    Returns:
        The chunks in order; empty when there is nothing to score (``n_tokens < 2``).

    Raises:
        ValueError: for an invalid ``context_tokens``/``stride`` pair (see ``check_window``).
    """
    check_window(context_tokens, stride)
    if n_tokens < 2:
        return []
    overlap = context_tokens - stride
    chunks = [Chunk(0, min(context_tokens, n_tokens), 1)]
    while chunks[-1].end < n_tokens:
        previous_end = chunks[-1].end
        start = previous_end - overlap
        chunks.append(Chunk(start, min(start + context_tokens, n_tokens), previous_end))
    return chunks
