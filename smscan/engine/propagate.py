"""Duplicate propagation: mask every repeat of a fully masked n-gram within a group (paper D.5)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from smscan.records import Candidate


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
    # The whole group becomes one flat token array. is_start marks where an n-gram fits inside
    # its own document, so no n-gram straddles two documents.
    flat_mask = np.concatenate([np.zeros(0, dtype=np.bool_)] + [np.asarray(m, bool) for m in masks])
    document_offsets = np.concatenate(([0], np.cumsum(lengths, dtype=np.int64))).tolist()
    is_start = np.zeros(flat_mask.shape[0], dtype=np.bool_)
    for offset, length in zip(document_offsets, lengths):
        if length >= size:
            is_start[offset : offset + length - size + 1] = True
    if is_start.any():
        _spread(np.concatenate(documents), flat_mask, is_start, size=size)
    return [
        flat_mask[start:end].copy()
        for start, end in zip(document_offsets[:-1], document_offsets[1:])
    ]


def _spread(
    flat_ids: np.ndarray, flat_mask: np.ndarray, is_start: np.ndarray, *, size: int
) -> None:
    """Propagate in place over the flattened group, revisiting only n-grams touched by new masks."""
    within = np.arange(size, dtype=np.int64)
    kinds, by_kind = _ngram_kinds(flat_ids, size=size)
    # Start positions of each kind's occurrences: occurrences[bounds[k] : bounds[k + 1]].
    occurrences = by_kind[is_start[by_kind]]
    bounds = np.searchsorted(kinds[occurrences], np.arange(int(kinds.max()) + 2))

    starts = np.flatnonzero(is_start)
    fully_masked = flat_mask[starts[:, None] + within].all(axis=1)
    frontier = _distinct(kinds[starts[fully_masked]])
    has_spread = np.zeros(bounds.shape[0] - 1, dtype=np.bool_)
    has_spread[frontier] = True
    while frontier.shape[0] > 0:
        positions = np.concatenate(
            [occurrences[bounds[kind] : bounds[kind + 1]] for kind in frontier.tolist()]
        )
        tokens = (positions[:, None] + within).ravel()
        newly_masked = _distinct(tokens[~flat_mask[tokens]])
        flat_mask[newly_masked] = True
        # Only n-grams holding a newly masked token can have become fully masked.
        touched = _distinct((newly_masked[:, None] - within).ravel())
        touched = touched[touched >= 0]
        touched = touched[is_start[touched]]
        completed = flat_mask[touched[:, None] + within].all(axis=1)
        completed_kinds = _distinct(kinds[touched[completed]])
        frontier = completed_kinds[~has_spread[completed_kinds]]
        has_spread[frontier] = True


def _ngram_kinds(flat_ids: np.ndarray, *, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Dense kind ids of the ``size`` tokens starting at each position, and positions by kind.

    Equal kinds mean equal token ids, exactly. Prefix doubling, as in suffix array construction:
    the kind of a length-2L run is the kind of its pair of length-L kinds, and a last step pairs
    two overlapping runs that together cover the n-gram. Each step is one 1-D sort, so the cost
    is O(T log T log n) with no hash to collide; sorting whole rows with ``np.unique(axis=0)``
    was about ten times slower on a 4M-token group.

    Returns:
        ``kinds`` for positions ``0 .. T - size`` and those positions sorted by kind.
    """
    shifts = []
    length = 1
    while 2 * length <= size:
        shifts.append(length)
        length *= 2
    if length < size:
        shifts.append(size - length)
    if not shifts:
        return _dense_ids(flat_ids)
    # Token ids are usually small enough to pack in pairs directly, which saves one sort.
    fits = bool(flat_ids.min() >= 0 and flat_ids.max() < 2**31)
    kinds = flat_ids if fits else _dense_ids(flat_ids)[0]
    for shift in shifts[:-1]:
        kinds = _dense_ids(_pack_pairs(kinds[:-shift], kinds[shift:]))[0]
    return _dense_ids(_pack_pairs(kinds[: -shifts[-1]], kinds[shifts[-1] :]))


def _pack_pairs(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """One int64 per pair ``(first[i], second[i])``, equal exactly when the pairs are equal."""
    # Inputs are below 2**31 (small token ids or dense ids of fewer tokens), so no overflow.
    result: np.ndarray = first * (int(second.max()) + 1) + second
    return result


def _dense_ids(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ids ``0 .. distinct - 1`` in value order, and the positions sorted by value."""
    order = np.argsort(values)
    ordered = values[order]
    is_new = np.empty(ordered.shape[0], dtype=np.bool_)
    is_new[:1] = True
    is_new[1:] = ordered[1:] != ordered[:-1]
    ids = np.empty(values.shape[0], dtype=np.int64)
    ids[order] = np.cumsum(is_new) - 1
    return ids, order


def _distinct(values: np.ndarray) -> np.ndarray:
    """Sorted distinct values."""
    # np.unique is avoided on purpose: numpy 2.3+ uses a hash table there that is several times
    # slower than sorting for millions of small ints.
    ordered = np.sort(values)
    keep = np.empty(ordered.shape[0], dtype=np.bool_)
    keep[:1] = True
    keep[1:] = ordered[1:] != ordered[:-1]
    result: np.ndarray = ordered[keep]
    return result


def propagate_values(
    texts: Sequence[str], candidates: Sequence[list[Candidate]]
) -> list[list[Candidate]]:
    """Give every occurrence of one value, across a group, the best score any occurrence has.

    Duplicate propagation at the level of values (paper D.5): a secret pasted into three files is
    predictable in the second and third once the model has seen it (within a file), or has the
    same shape everywhere; either way all copies are reported together or not at all.

    Args:
        texts: the documents of one group.
        candidates: the candidates of each document, aligned with ``texts``.

    Returns:
        New candidate lists with raised scores; ``details["propagated"]`` marks raised ones.
    """
    best: dict[str, float] = {}
    for text, found in zip(texts, candidates):
        for candidate in found:
            value = text[candidate.char_start : candidate.char_end]
            if candidate.score > best.get(value, -np.inf):
                best[value] = candidate.score
    raised: list[list[Candidate]] = []
    for text, found in zip(texts, candidates):
        out = []
        for candidate in found:
            top = best[text[candidate.char_start : candidate.char_end]]
            if top > candidate.score:
                candidate = Candidate(
                    candidate.char_start,
                    candidate.char_end,
                    top,
                    {**candidate.details, "propagated": True},
                )
            out.append(candidate)
        raised.append(out)
    return raised
