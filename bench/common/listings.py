"""Values in the listings benchmarks print (misses, slots, diffs) masked as smscan's reports mask them.

Listings are pasted into issues and docs/BENCHMARKS.md; a credential of a labelled set is made up,
but one found in a real folder (smscan's own docs, a package's tests) may not be, so no listing shows
a value in full: :func:`smscan.reports.redact.redact` keeps the length and, for long values only, a
four-character prefix.
"""

from __future__ import annotations

from smscan.reports.redact import redact


def masked(value: str) -> str:
    """``value`` as a listing shows it.

    >>> masked("hunter2")
    '[7 chars]'
    """
    return redact(value)


def slot_line(where: str, value: str, *, place: str = "", evidence: float | None = None) -> str:
    """One listing line: ``WHERE [PLACE] MASKED-VALUE [evidence E]``.

    >>> slot_line("conf/app.properties:15", "Xk9pQ2mZ7wLt", place="assignment", evidence=1.0)
    'conf/app.properties:15 assignment [12 chars] evidence 1.0'
    """
    parts = [where, place, masked(value), "" if evidence is None else f"evidence {evidence}"]
    return " ".join(p for p in parts if p)
