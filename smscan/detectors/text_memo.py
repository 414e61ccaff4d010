"""A small memo keyed by text, bounded by the characters its keys hold (oldest out first).

The detectors remember what they found in a piece of text (a line, a function, a top-level
statement) so that a rescan of a file with a few changed lines judges only those; a key is the
text itself, so the memory a memo may hold is bounded in characters, not in entries.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class TextMemo(Generic[K, V]):
    """``key -> value`` for keys that hold text, at most ``max_chars`` characters of it in all.

    Args:
        max_chars: the characters all kept keys may hold together.
        max_key_chars: a key holding more is never kept.

    Example:
        >>> memo: TextMemo[str, int] = TextMemo(max_chars=10, max_key_chars=8)
        >>> memo.put("abcdef", 1, chars=6); memo.put("ghijk", 2, chars=5)
        >>> memo.get("abcdef"), memo.get("ghijk"), len(memo)
        (None, 2, 1)
    """

    def __init__(self, *, max_chars: int, max_key_chars: int) -> None:
        self.max_chars = max_chars
        self.max_key_chars = max_key_chars
        self._entries: dict[K, tuple[V, int]] = {}
        self._chars = 0
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value kept for ``key``, or None."""
        found = self._entries.get(key)
        return None if found is None else found[0]

    def put(self, key: K, value: V, *, chars: int) -> None:
        """Keep ``value`` for ``key`` (which holds ``chars`` characters), dropping the oldest
        entries while the keys would hold more than ``max_chars``."""
        if chars > self.max_key_chars:
            return
        with self._lock:
            previous = self._entries.pop(key, None)
            if previous is not None:
                self._chars -= previous[1]
            while self._entries and self._chars + chars > self.max_chars:
                oldest = next(iter(self._entries))
                self._chars -= self._entries.pop(oldest)[1]
            self._entries[key] = (value, chars)
            self._chars += chars

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._entries.clear()
            self._chars = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def chars(self) -> int:
        """The characters the kept keys hold."""
        return self._chars
