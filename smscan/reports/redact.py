"""How a flagged value is shown where it may be stored or shared (JSON, SARIF, CI logs)."""

from __future__ import annotations

# Values shorter than this show no prefix at all: a few leading characters of a short password
# would give away too much of it.
_PREFIX_MIN_LENGTH = 16
_PREFIX_LENGTH = 4


def redact(value: str) -> str:
    """Replace a value by its length, keeping a prefix of at most 4 characters for long values.

    >>> redact("hunter2")
    '[7 chars]'
    >>> redact("ghp_0123456789abcdefghij")
    'ghp_…[24 chars]'
    """
    if len(value) >= _PREFIX_MIN_LENGTH:
        return f"{value[:_PREFIX_LENGTH]}…[{len(value)} chars]"
    return f"[{len(value)} chars]"
