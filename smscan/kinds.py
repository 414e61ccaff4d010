"""Finding kinds: their ids, chosen once here since users store them (config, thresholds files,
baselines, SARIF rule ids), and what every layer needs to know of each (:class:`KindInfo`).

``surprise`` is raw Global Surprise Masking, run by the judging stage itself; every other kind is a
detector registered in ``smscan.detectors.DETECTORS``. A new kind is one entry in :data:`KIND_INFO`,
one detector package and its entry in that registry: reports, decisions and SARIF read this table,
never a kind's id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

SURPRISE = "surprise"
CREDENTIAL = "credential"
DEAD_CODE = "dead-code"

Kind = Literal["surprise", "credential", "dead-code"]
"""The kinds a config file or ``--kinds`` may name (checked against the constants by a test)."""


@dataclass(frozen=True, slots=True)
class SarifRule:
    """A kind's SARIF rule: GitHub stores its id (the kind id) and shows the rest."""

    name: str
    short: str
    full: str
    level: Literal["error", "warning", "note"]
    tags: tuple[str, ...]
    security_severity: str


@dataclass(frozen=True, slots=True)
class KindInfo:
    """What reports and decisions know of a kind.

    Attributes:
        kind: the id.
        sarif: its SARIF rule.
        shows_values: whether a finding's text is shown as it is (dead code); False: it may be a
            secret, redacted wherever it is shown unless the user asks otherwise.
        supersedes: kinds whose findings a finding of this kind replaces when it covers every
            line of theirs (a credential assigned to a name nothing reads is also a dead store).
    """

    kind: str
    sarif: SarifRule
    shows_values: bool = False
    supersedes: tuple[str, ...] = ()


KIND_INFO: dict[str, KindInfo] = {
    CREDENTIAL: KindInfo(
        CREDENTIAL,
        SarifRule(
            name="CredentialLikeValue",
            short="Credential-like value",
            full=(
                "A value in a place where credentials live (a secret-named assignment, a URL password, "
                "an Authorization header, a key block) that the reference model finds surprising: "
                "random-looking text that is likely a real secret."
            ),
            level="error",
            tags=("security", "external/cwe/cwe-798"),
            security_severity="7.5",
        ),
        supersedes=(DEAD_CODE,),
    ),
    DEAD_CODE: KindInfo(
        DEAD_CODE,
        SarifRule(
            name="SurprisingDeadCode",
            short="Surprising dead code",
            full=(
                "Code that can never run or has no effect (after a return, under a constant-false "
                "condition, a dead store) and that the reference model finds surprising: possibly "
                "injected or left-over code."
            ),
            level="warning",
            tags=("security", "maintainability"),
            security_severity="4.0",
        ),
        shows_values=True,
    ),
    SURPRISE: KindInfo(
        SURPRISE,
        SarifRule(
            name="SurprisingSpan",
            short="Surprising span",
            full=(
                "A span whose mean per-token surprisal under the reference model reaches the threshold "
                "(raw Surprise Masking): text unlike ordinary code, such as a secret or encoded data."
            ),
            level="warning",
            tags=("security",),
            security_severity="5.0",
        ),
    ),
}


def shows_values(kind: str) -> bool:
    """Whether findings of ``kind`` are shown as they are (an unknown kind's are redacted)."""
    info = KIND_INFO.get(kind)
    return info is not None and info.shows_values
