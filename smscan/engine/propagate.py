"""Duplicate propagation: mask every repeat of a fully masked n-gram within a group (paper D.5)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def propagate_duplicates(
    token_ids: Sequence[np.ndarray], masks: Sequence[np.ndarray], *, size: int
) -> list[np.ndarray]:
    """Spread masks to exact repeats of fully masked token n-grams across one group.

    Whenever ``size`` consecutive tokens of any document are all masked, every occurrence of the
    same ``size`` token ids in any document of the group is masked too. Newly masked tokens can
    complete further fully masked n-grams, which spread in turn, until the masks stop changing.
    Propagation only ever adds masked tokens. Documents shorter than ``size`` neither spread nor
    receive masks.

    Args:
        token_ids: int token ids of each document in the group.
        masks: bool mask of each document, aligned with ``token_ids``; not modified.
        size: n-gram length ``n``, at least 1.

    Returns:
        A new mask for each document, in input order.

    Raises:
        ValueError: if ``size`` is below 1 or documents and masks do not match up.

    Example:
        >>> ids = [np.array([7, 8, 9]), np.array([1, 7, 8])]
        >>> masks = [np.array([True, True, False]), np.zeros(3, dtype=bool)]
        >>> propagate_duplicates(ids, masks, size=2)[1]
        array([False,  True,  True])
    """
    if size < 1:
        raise ValueError(f"n-gram size must be at least 1, got {size}")
    if len(token_ids) != len(masks):
        raise ValueError(f"got {len(token_ids)} token id arrays but {len(masks)} masks")
    documents = [np.asarray(ids, dtype=np.int64) for ids in token_ids]
    for index, (ids, mask) in enumerate(zip(documents, masks)):
        if np.shape(mask) != ids.shape:
            raise ValueError(
                f"document {index}: mask has shape {np.shape(mask)}, token ids {ids.shape}"
            )
    lengths = [ids.shape[0] for ids in documents]
    # The whole group becomes one flat token array; n-grams start only where they fit inside
    # their own document, so none straddles two documents.
    flat_mask = np.concatenate([np.zeros(0, dtype=np.bool_)] + [np.asarray(m, bool) for m in masks])
    document_offsets = np.concatenate(([0], np.cumsum(lengths, dtype=np.int64)))
    ngram_starts = np.concatenate(
        [np.zeros(0, dtype=np.int64)]
        + [
            offset + np.arange(length - size + 1, dtype=np.int64)
            for offset, length in zip(document_offsets[:-1].tolist(), lengths)
            if length >= size
        ]
    )
    if ngram_starts.shape[0] > 0:
        flat_ids = np.concatenate(documents)
        _spread(flat_ids, flat_mask, ngram_starts, size=size)
    return [
        flat_mask[start:end].copy()
        for start, end in zip(document_offsets[:-1].tolist(), document_offsets[1:].tolist())
    ]


def _spread(
    flat_ids: np.ndarray, flat_mask: np.ndarray, ngram_starts: np.ndarray, *, size: int
) -> None:
    """Propagate in place over the flattened group, revisiting only n-grams touched by new masks."""
    within = np.arange(size, dtype=np.int64)
    # kind[g]: which distinct id sequence n-gram g is; exact, since rows are compared whole.
    _, kind = np.unique(flat_ids[ngram_starts[:, None] + within], axis=0, return_inverse=True)
    kind = kind.reshape(-1)  # numpy 2.0.0 returned an extra axis here
    kind_count = int(kind.max()) + 1
    # Occurrences of each kind as slices of one array: order[bounds[k]:bounds[k + 1]].
    order = np.argsort(kind, kind="stable")
    bounds = np.searchsorted(kind[order], np.arange(kind_count + 1))
    ngram_at = np.full(flat_mask.shape[0], -1, dtype=np.int64)
    ngram_at[ngram_starts] = np.arange(ngram_starts.shape[0])

    spread_kinds = np.zeros(kind_count, dtype=np.bool_)
    fully_masked = flat_mask[ngram_starts[:, None] + within].all(axis=1)
    frontier = np.unique(kind[fully_masked])
    spread_kinds[frontier] = True
    while frontier.shape[0] > 0:
        occurrences = np.concatenate([order[bounds[k] : bounds[k + 1]] for k in frontier.tolist()])
        positions = (ngram_starts[occurrences][:, None] + within).ravel()
        newly_masked = np.unique(positions[~flat_mask[positions]])
        flat_mask[newly_masked] = True
        # Only n-grams holding a newly masked token can have become fully masked.
        touched_starts = np.unique((newly_masked[:, None] - within).ravel())
        touched_starts = touched_starts[touched_starts >= 0]
        touched = ngram_at[touched_starts]
        touched = touched[touched >= 0]
        completed = flat_mask[ngram_starts[touched][:, None] + within].all(axis=1)
        kinds = np.unique(kind[touched[completed]])
        frontier = kinds[~spread_kinds[kinds]]
        spread_kinds[frontier] = True
