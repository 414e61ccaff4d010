"""What the user decided about findings, applied once, in one order, for every command.

After the detectors (``smscan.judge.scan.scan``), a scan's findings go through, in this order:

1. **kinds**: only the kinds the user asked for (``kinds`` in the config, ``--kinds``);
2. **allow comments**: a finding whose line says ``smscan: ignore`` (``detectors/suppress.py``);
3. **overlap**: a ``dead-code`` finding whose every line holds a ``credential`` finding is
   dropped, the credential being the one to act on (a dead block reaching past those lines stays
   whole);
4. **baseline**: findings the baseline accepts (``smscan/decide/baseline.py``).

The overlap looks at the credentials left after allow comments, before the baseline: a line
whose credential is allowed by a comment has its dead code reported, while a credential accepted
by the baseline still hides its line's dead code. So ``smscan baseline`` records exactly what a
scan reports, and a scan with that baseline reports nothing on that line. ``explain`` asks the
same function whether a finding is reported.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from smscan.decide.baseline import Baseline, match_findings
from smscan.detectors.suppress import drop_allowed
from smscan.kinds import KIND_INFO
from smscan.records import Document, Finding, ScanResult, Skip, Suppressed


def decide(
    result: ScanResult,
    items: Sequence[Document | Skip],
    *,
    kinds: Iterable[str] | None,
    baseline: tuple[str, Baseline] | None = None,
) -> Suppressed:
    """Keep in ``result.findings`` what the scan reports (module docstring), say what was dropped.

    Args:
        result: the detectors' findings; its ``findings`` are replaced.
        items: what was scanned (a baseline entry is stale only in a file scanned whole).
        kinds: the kinds to report; None or empty: every kind found.
        baseline: the baseline's name and entries, or None.
    """
    wanted = tuple(kinds or ())
    if wanted:
        result.findings = [f for f in result.findings if f.kind in wanted]
    found, inline = drop_allowed(result.findings, result.lines)
    if baseline is None:
        result.findings = without_superseded(found)
        return Suppressed(inline=inline)
    whole = [i.path for i in items if isinstance(i, Document) and i.changed_lines is None]
    name, accepted = baseline
    # Matched before the overlap so an entry for a hidden dead-code finding is not called stale.
    match = match_findings(accepted, found, result.values, wholly_scanned=whole)
    result.findings = without_superseded(match.new, covering=found)
    return Suppressed(inline, name, match.accepted, tuple(match.stale))


def without_superseded(findings: list[Finding], *, covering: Iterable[Finding] | None = None) -> list[Finding]:
    """Drop findings a finding of a kind that supersedes theirs (``KindInfo.supersedes``) covers
    line for line: a ``dead-code`` finding whose every line holds a ``credential`` finding.

    A credential makes its whole line surprising, and a secret assigned to a name nothing reads
    is also a dead store, so the same line would be reported twice; the credential is the finding
    to act on (and removing it removes the line's dead code too). A dead block that also covers
    lines without a credential is kept whole: removing the credential would leave the rest.

    Args:
        findings: the findings to filter.
        covering: the findings that may supersede others (default: ``findings``); ``decide``
            passes those left after allow comments, before the baseline.
    """
    lines: dict[tuple[str, str], set[int]] = {}  # (superseded kind, path) -> lines covered
    for finding in findings if covering is None else covering:
        info = KIND_INFO.get(finding.kind)
        for kind in info.supersedes if info is not None else ():
            lines.setdefault((kind, finding.path), set()).update(range(finding.start.line, finding.end.line + 1))
    return [
        finding
        for finding in findings
        if not lines.get((finding.kind, finding.path), set()).issuperset(range(finding.start.line, finding.end.line + 1))
    ]
