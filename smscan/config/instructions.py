"""Scoring rules and the instructions the prompted ones put in front of a document.

Surprise Masking's scoring rules (paper, section 2 and D.4), by the id users store:

- ``unprompted``: ``-log p(x_j | x_<j)``, the document alone (smscan's default everywhere).
- ``prompted``: ``-log p(x_j | x_<j, c)`` under one instruction ``c`` describing the content to
  keep, which can make target content more surprising. The instruction is the purpose's
  *compliant* one (target content does not belong here).
- ``contrast``: ``s_j = log p(x_j | x_<j, violating) - log p(x_j | x_<j, compliant)``, two passes
  over the same document tokens; higher means more target-like, as an NLL is.

``instructions`` names a packaged purpose (``credentials``, ``personal-data``, ``dead-code``), or is
the instruction text itself: one text for ``prompted``, two (violating, then compliant) for
``contrast``. Empty means the ``credentials`` purpose.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from smscan.kinds import DEAD_CODE

ScoringRule = Literal["unprompted", "prompted", "contrast"]
"""The ``scoring_rule`` config key's values."""
DEFAULT_PURPOSE = "credentials"


@dataclass(frozen=True, slots=True)
class InstructionPair:
    """A purpose's two instructions: one that invites the target content, one that forbids it."""

    violating: str
    compliant: str


# Both instructions describe the same file and ask to keep ordinary code, so the two passes differ
# only in what they say about the target (the paper pairs "Retain every ..." with "Remove every ...").
PURPOSES: dict[str, InstructionPair] = {
    "credentials": InstructionPair(
        violating=(
            "The following source file keeps its real credentials: passwords, API keys, access tokens "
            "and private keys are written out in full as literal values, next to ordinary code."
        ),
        compliant=(
            "The following source file is ordinary code with every credential removed: it holds no "
            "passwords, API keys, access tokens or private keys, only placeholders and configuration lookups."
        ),
    ),
    "personal-data": InstructionPair(
        violating=(
            "The following source file keeps personal data written out in full: names of people, e-mail "
            "addresses, phone numbers, street addresses and account numbers, next to ordinary code."
        ),
        compliant=(
            "The following source file is ordinary code with all personal data removed: it holds no names "
            "of people, e-mail addresses, phone numbers, street addresses or account numbers."
        ),
    ),
    DEAD_CODE: InstructionPair(
        violating=(
            "The following source file has injected dead code: unused variables, unreachable branches and "
            "statements whose results are never used, mixed into ordinary code."
        ),
        compliant=(
            "The following source file is clean, minimal code: every statement is reachable and needed, "
            "with no unused variables, unreachable branches or statements whose results are never used."
        ),
    ),
}


def resolve_instructions(rule: str, instructions: Sequence[str]) -> tuple[str, ...]:
    """The instruction texts a rule feeds the model, in pass order.

    Args:
        rule: ``unprompted``, ``prompted`` or ``contrast``.
        instructions: the ``instructions`` setting: empty (the default purpose), one purpose name,
            one instruction text (``prompted``), or two texts, violating then compliant (``contrast``).

    Returns:
        ``()`` for ``unprompted``; ``(compliant,)`` for ``prompted``; ``(violating, compliant)``
        for ``contrast``.

    Raises:
        ValueError: an unknown rule, instructions given to ``unprompted``, a wrong count of texts
            or an empty text (the message names the purposes).

    Example:
        >>> resolve_instructions("contrast", ["dead-code"])[1][:35]
        'The following source file is clean,'
    """
    texts = tuple(instructions)
    if rule == "unprompted":
        if texts:
            raise ValueError("instructions apply to scoring_rule prompted or contrast, not unprompted")
        return ()
    if rule not in ("prompted", "contrast"):
        raise ValueError(f"scoring_rule must be one of unprompted, prompted, contrast, got {rule!r}")
    if not texts:
        texts = (DEFAULT_PURPOSE,)
    if len(texts) == 1 and texts[0] in PURPOSES:
        pair = PURPOSES[texts[0]]
        return (pair.compliant,) if rule == "prompted" else (pair.violating, pair.compliant)
    wanted = 1 if rule == "prompted" else 2
    if len(texts) != wanted or not all(text.strip() for text in texts):
        shape = "one instruction text" if rule == "prompted" else "two instruction texts (violating, then compliant)"
        raise ValueError(
            f"instructions for scoring_rule {rule} must be a purpose ({', '.join(PURPOSES)}) or {shape}; "
            f"got {len(texts)} text(s)"
        )
    return texts


def instructions_digest(rule: str, texts: Sequence[str]) -> str:
    """A short stable hash of a rule and its instruction texts (cache, worker and threshold keys).

    Example:
        >>> len(instructions_digest("prompted", ["Keep ordinary code."]))
        12
    """
    payload = json.dumps([rule, list(texts)], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:12]
