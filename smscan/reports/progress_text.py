"""How progress lines spell sizes, durations and file names."""

from __future__ import annotations


def format_bytes(count: float) -> str:
    """``512 B``, ``1.5 kB``, ``517.0 MB``: decimal units, one decimal above bytes."""
    for unit in ("B", "kB", "MB", "GB"):
        if count < 1000 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1000
    raise AssertionError("unreachable")


def format_duration(seconds: float) -> str:
    """``42s``, ``3m07s``, ``1h05m``, rounded to the second."""
    seconds = int(seconds + 0.5)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


def printable(path: str) -> str:
    """A file name with its control characters escaped."""
    # A file name may hold control characters (an escape sequence): show them, never send them.
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in path)
