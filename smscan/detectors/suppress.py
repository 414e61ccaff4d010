"""Inline allow comments: a finding is dropped when a line it covers says so.

Honoured directives (case-insensitive, in any comment syntax: ``#``, ``//``, ``/* */``, ``--``,
``<!-- -->``, ``;``, ``%``, ``REM``...):

- ``smscan: ignore`` (also ``smscan:ignore``),
- ``pragma: allowlist secret`` (detect-secrets), ``gitleaks:allow`` (Gitleaks),

so a team can move from either tool without rewriting its code. The directive must be on a line
the finding covers (normally the same line), outside the flagged text itself: a flagged value
cannot suppress itself. No comment parser is involved, so the directive works in every language,
including inside a string of a language without comments.

Example::

    API_KEY = "q8Zt3kPx0wLm9Rv2"  # smscan: ignore  (a test fixture, not a real key)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

from smscan.records import Finding

ALLOW_DIRECTIVE = re.compile(
    r"smscan:\s*ignore\b|pragma:\s*allowlist[ \t-]+secret\b|gitleaks:allow\b", re.IGNORECASE
)


def is_allowed(finding: Finding, lines: Mapping[int, str]) -> bool:
    """Whether a line the finding covers carries an allow directive outside the flagged span.

    Args:
        finding: the finding.
        lines: line number -> text of the finding's file, at least for the lines it covers.

    Returns:
        True when the finding is to be dropped.

    Example:
        >>> from smscan.records import Position
        >>> f = Finding("a.py", "surprise", 5, 9, Position(1, 6), Position(1, 10), 9.0, 6.0, "fp")
        >>> is_allowed(f, {1: "k = 'Zq8x'  # smscan: ignore"}), is_allowed(f, {1: "k = 'Zq8x'"})
        (True, False)
    """
    for line in range(finding.start.line, finding.end.line + 1):
        text = lines.get(line)
        starts = _directive_starts(text) if text is not None else ()
        if text is None or not starts:
            continue
        # Blank out the flagged characters of this line so the value cannot allow itself.
        lo = finding.start.column - 1 if line == finding.start.line else 0
        hi = finding.end.column - 1 if line == finding.end.line else len(text)
        visible = text[:lo] + " " * max(hi - lo, 0) + text[hi:]
        if any(ALLOW_DIRECTIVE.match(visible, start) for start in starts):
            return True
    return False


_DIRECTIVE_START = re.compile(r"smscan:|pragma:|gitleaks:allow", re.IGNORECASE)


@lru_cache(maxsize=8)
def _directive_starts(text: str) -> tuple[int, ...]:
    # Where a directive may begin: its first word is never blanked (blanks are spaces), so every
    # match of the blanked line starts at one of these. Found once per line: a 1 MB line with a
    # thousand findings made a search per finding cost 80 ms each, minutes for the file. The
    # casefold pretest matches as re.IGNORECASE does but for the dotted and dotless i, which
    # "leaks:allow" avoids.
    folded = text.casefold()
    if "smscan:" not in folded and "pragma:" not in folded and "leaks:allow" not in folded:
        return ()
    return tuple(match.start() for match in _DIRECTIVE_START.finditer(text))


def drop_allowed(
    findings: list[Finding], lines: Mapping[str, Mapping[int, str]]
) -> tuple[list[Finding], int]:
    """The findings without those an allow comment suppresses, and how many were suppressed."""
    kept = [f for f in findings if not is_allowed(f, lines.get(f.path, {}))]
    return kept, len(findings) - len(kept)
