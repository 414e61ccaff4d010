"""A near-repeat of a credential in the same file is as much a credential as the first.

The model reads a file in order: once it has seen ``password: Vb8qTm2zKx5R`` it predicts most of
``password2: Vb8qTm2zKx5S``, and the second value's surprise drops although it leaks the same
secret (a rotated key beside the old one, one Slack workspace's tokens sharing their team part,
one token under several names). Exact copies are handled by value propagation
(:func:`smscan.engine.propagate.propagate_values`); here a value under a secret name or place
that shares most of its characters with an earlier such value of its file (a common start or end
of at least ``_MIN_SHARED`` characters and ``_MIN_SHARE`` of the shorter value, in any case)
takes the earlier one's score, so both are reported or neither.
"""

from __future__ import annotations

import os

from smscan.records import Candidate

_MIN_SHARED = 8
_MIN_SHARE = 0.6
# Each value is compared with this many earlier ones at most: bounds the work on a file with
# thousands of named values.
_LOOK_BACK = 32


def raise_near_repeats(text: str, named: list[Candidate]) -> dict[int, Candidate]:
    """The candidates of ``named`` (values with secret evidence, in text order) raised to the
    score of an earlier near-repeat, by index into ``named``.

    Example:
        >>> text = "a: Vb8qTm2zKx5R\\nb: Vb8qTm2zKx5S\\n"
        >>> first, second = Candidate(3, 15, 4.0, {}), Candidate(19, 31, 1.5, {})
        >>> raise_near_repeats(text, [first, second])[1].score
        4.0
    """
    raised: dict[int, Candidate] = {}
    values = [text[c.char_start:c.char_end].lower() for c in named]
    for index in range(1, len(named)):
        later = named[index]
        for earlier_index in range(max(0, index - _LOOK_BACK), index):
            earlier = raised.get(earlier_index, named[earlier_index])
            if earlier.score > later.score and values[earlier_index] != values[index] and _near(values[earlier_index], values[index]):
                later = Candidate(later.char_start, later.char_end, earlier.score,
                                  {**later.details, "near_repeat_of": earlier.char_start})
        if later is not named[index]:
            raised[index] = later
    return raised


def _near(first: str, second: str) -> bool:
    shared = max(len(os.path.commonprefix([first, second])), len(os.path.commonprefix([first[::-1], second[::-1]])))
    return shared >= _MIN_SHARED and shared >= _MIN_SHARE * min(len(first), len(second))
