"""Credential-like values: surprising values in places where credentials live.

The recipe (paper section 2 and D.1, made precise):

1. Find value slots (:mod:`smscan.detectors.slots`) in any text format: string literals, config
   and env values, URL passwords and secret-named query parameters, ``Authorization`` values,
   option values, labels in prose and tables, vendor-format tokens, private-key blocks, long
   tokens; a notebook cell by cell (:mod:`smscan.detectors.notebooks`).
2. Drop what cannot be a credential whatever the model thinks: references, placeholders and
   documented examples (:mod:`smscan.detectors.placeholders`); values shaped like identifiers
   of other things (:mod:`smscan.detectors.value_shapes`: UUIDs under a name that is not
   secret, versions, URLs, paths, digests, names of things, prose); values too short or too
   plain (one character class) for their place.
3. Score what is left by its surprise (nats per character, or the paper's best 4-token window)
   plus the evidence of its place, added up: a name that says secret
   (:mod:`smscan.detectors.secret_names`), a URL password, an ``Authorization`` value or a
   private-key block adds ``secret_bonus``; a vendor's published format
   (:mod:`smscan.detectors.vendor_prefixes`) adds ``vendor_bonus``; a bare token with neither
   pays ``token_penalty``. The score stays in nats, so one calibrated threshold per model
   decides, and the whole value is the span.

A vendor format is evidence, not a way in: a token behind an unknown ``acme_live_`` is judged by
its name and surprise, as every value is, and a known prefix only adds a little to a value that
must still surprise the model.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from smscan.detectors.candidate import Candidate
from smscan.detectors.notebooks import is_notebook, notebook_cells
from smscan.detectors.placeholders import is_stand_in
from smscan.detectors.secret_names import name_class
from smscan.detectors.slots import (
    ARGUMENT,
    ASSIGNMENT,
    HEADER,
    PEM,
    PUBLIC_BLOCK,
    STRING,
    TOKEN,
    URL_USERINFO,
    Slot,
    find_slots,
)
from smscan.detectors.test_context import is_made_up, is_test_path
from smscan.detectors.value_shapes import (
    character_classes,
    has_digest_name_before,
    is_encoded_text,
    is_hex,
    is_name_of_thing,
    is_other_identifier,
    is_prose,
    is_ssh_public_key,
    is_uuid,
    shannon_entropy,
)
from smscan.detectors.vendor_prefixes import vendor_of
from smscan.engine.windows import Windows, fixed_windows
from smscan.kinds import CREDENTIAL
from smscan.records import TokenScores

KIND = CREDENTIAL
__all__ = [
    "CredentialDetector", "CredentialRule", "is_encoded_text", "is_letter_key", "is_prose", "judge_slot",
    "name_class", "shannon_entropy",
]

# Words just before a value in prose that say it is a digest or an id.
_IDENTIFIER_CONTEXT = re.compile(
    r"\b(?:commit|sha\d*|hash|digest|checksum|integrity|revision|rev|uuid|guid|etag|"
    r"fingerprint|build|version)\b[^\n]{0,24}$",
    re.IGNORECASE,
)

# `sha256sum` output: a hex digest, two spaces (or ` *`), a file name.
_CHECKSUM_LINE_AFTER = re.compile(r" [ *][\w./\-]+\.\w+")

# Secret-bearing places: the slot itself says what the value is.
_SECRET_PLACES = frozenset({PEM, URL_USERINFO, HEADER})


@dataclass(frozen=True, slots=True)
class CredentialRule:
    """Parameters of the credential score (saved with the threshold they were calibrated for)."""

    statistic: str = "rate"
    """``window``: the highest mean NLL (nats/token) of a ``window``-token window touching the
    value (the paper's rule); ``rate``: the value's total NLL per character (nats/char), the
    model's estimate of how random the value is."""
    window: int = 4
    secret_bonus: float = 1.0
    token_penalty: float = 1.0
    vendor_bonus: float = 0.5
    """Added for a value in a format a vendor publishes (``xoxb-``, ``glrt-``, JWTs, AWS ids)."""
    min_length_named: int = 6
    min_length_unnamed: int = 12
    min_length_unnamed_hex: int = 20
    min_length_token: int = 20

    def as_dict(self) -> dict[str, Any]:
        return {"rule": "credential-slots", **asdict(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CredentialRule:
        fields = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        return cls(**fields)


class CredentialDetector:
    """Credential-like values; see the module docstring for the recipe."""

    kind = KIND
    unit = "char"
    propagate = True
    sensitive = True  # a value is a secret: redacted wherever it is shown
    # About 32 tokens: the name and syntax around a value, what its surprise depends on.
    context_chars = 128

    def __init__(self, rule: CredentialRule | None = None) -> None:
        self._rule = rule or CredentialRule()

    @classmethod
    def from_rule(cls, rule: Mapping[str, Any]) -> CredentialDetector:
        """The detector with a saved rule's parameters; unknown keys are ignored."""
        return cls(CredentialRule.from_dict(dict(rule)))

    def rule(self) -> dict[str, Any]:
        return self._rule.as_dict()

    def reasons(self, score: float, details: Mapping[str, Any]) -> list[str]:
        """Why a candidate scored what it did, for ``smscan explain``."""
        from smscan.detectors.explaining import credential_reasons

        return credential_reasons(score, details)

    def dropped(self, text: str, scores: TokenScores, windows: Windows, *, tau: float, near: float) -> list[Any]:
        """Slots dropped before scoring, for ``smscan explain`` (``detectors/explaining.py``)."""
        from smscan.detectors.explaining import credential_dropped

        return credential_dropped(text, self._rule, scores, windows, tau=tau, near=near)

    def applies_to(self, path: str) -> bool:
        return True

    def regions(self, text: str, path: str) -> list[tuple[int, int]]:
        """The values that survive the model-free judgement: only they need the model."""
        return [(judged.start, judged.end) for judged in judged_slots(text, self._rule, path=path)]

    def candidates(self, text: str, scores: TokenScores, *, path: str = "") -> list[Candidate]:
        rule = self._rule
        windows = fixed_windows(scores.nll, size=rule.window)
        token_starts = np.asarray(scores.char_starts, np.int64)
        token_ends = np.asarray(scores.char_ends, np.int64)
        found = []
        for judged in judged_slots(text, rule, path=path):
            if rule.statistic == "rate":
                surprise = _nll_per_char(scores.nll, token_starts, token_ends, judged.start, judged.end)
            else:
                surprise = _max_window_score(windows, token_starts, token_ends, judged.start, judged.end)
            if not math.isfinite(surprise):
                continue
            details = {"place": judged.where, "surprise": round(surprise, 4), "length": judged.length}
            found.append(Candidate(judged.start, judged.end, surprise + judged.evidence, {**details, **judged.extra}))
        return found


@dataclass(frozen=True, slots=True)
class JudgedSlot:
    """A slot that can be a credential: its file span, its evidence (nats), and where it was."""

    start: int
    end: int
    evidence: float
    where: str
    length: int
    extra: Mapping[str, Any]


def judged_slots(text: str, rule: CredentialRule, *, path: str = "") -> list[JudgedSlot]:
    """Every slot of ``text`` that survives the model-free judgement, with its evidence.

    A notebook is judged cell by cell on the decoded source (:mod:`smscan.detectors.notebooks`);
    spans point into the file, and ``extra`` says which cell and where in it.
    """
    out = []
    if is_notebook(text):
        for cell in notebook_cells(text):
            for slot in find_slots(cell.text):
                evidence = judge_slot(cell.text, slot, rule, path=path)
                if evidence is not None:
                    start, end = cell.file_span(slot.start, slot.end)
                    extra = {"cell": cell.index, "cell_start": slot.start, "cell_end": slot.end}
                    out.append(JudgedSlot(start, end, evidence, slot.where, slot.end - slot.start, extra))
        return out
    for slot in find_slots(text):
        evidence = judge_slot(text, slot, rule, path=path)
        if evidence is not None:
            out.append(JudgedSlot(slot.start, slot.end, evidence, slot.where, slot.end - slot.start, {}))
    return out


def judge_slot(text: str, slot: Slot, rule: CredentialRule, *, path: str = "") -> float | None:
    """The evidence a slot adds to its value's surprise, or None when it cannot be a credential.

    Evidence adds up: a name that says secret (or a secret-bearing place) gives ``secret_bonus``,
    a known vendor format ``vendor_bonus`` more; a bare token with neither pays ``token_penalty``.
    In a test file (``path``) a value typed by hand is made-up test data (:mod:`.test_context`).
    """
    value = text[slot.start : slot.end]
    if slot.where == PEM:
        return rule.secret_bonus
    if slot.where == PUBLIC_BLOCK:
        return None
    if is_stand_in(value) or is_test_path(path) and is_made_up(value):
        return None
    place = name_class(slot.key) if slot.key else "neutral"
    if slot.where in _SECRET_PLACES or slot.where == ARGUMENT and place == "secret":
        place = "secret"
    vendor = vendor_of(value)
    if vendor is not None:
        return (rule.secret_bonus if place == "secret" else 0.0) + rule.vendor_bonus
    letter_key = place == "secret" and is_letter_key(value, rule)
    # A UUID under a secret name is a key (API keys and tokens are often drawn as UUIDs);
    # under any other name it is an id.
    secret_uuid = place == "secret" and is_uuid(value)
    if is_ssh_public_key(value):
        return None
    if not secret_uuid and (is_uuid(value) or is_other_identifier(value)) and not letter_key:
        return None
    if place != "secret" and (is_prose(value) or is_name_of_thing(value)):
        return None
    if slot.where != HEADER and is_encoded_text(value):
        return None
    line_start = text.rfind("\n", 0, slot.start) + 1
    before = text[line_start : slot.start]
    if place != "secret" and (place == "identifier" or _IDENTIFIER_CONTEXT.search(before)):
        return None
    if has_digest_name_before(before):
        return None
    if is_hex(value) and _CHECKSUM_LINE_AFTER.match(text, slot.end):
        return None
    if len(set(value)) < 4 or (character_classes(value) < 2 and not letter_key and not secret_uuid):
        return None
    if slot.where == TOKEN or (slot.where == ARGUMENT and place != "secret"):
        if len(value) < rule.min_length_token or character_classes(value) < 2:
            return None
        return -rule.token_penalty
    if place == "secret":
        return rule.secret_bonus if len(value) >= rule.min_length_named else None
    if slot.where in (STRING, ASSIGNMENT) and len(value) >= rule.min_length_unnamed:
        # Short hex without a name is an id (short commit hashes, revision ids), not a key: hex
        # carries 4 bits a character, so a key in hex is long.
        if is_hex(value) and len(value) < rule.min_length_unnamed_hex:
            return None
        return 0.0
    return None


def is_letter_key(value: str, rule: CredentialRule) -> bool:
    """True for a long run of ASCII letters alone, a key shape under a secret name.

    Keys drawn from letters (base32 without digits, ``AKIA...`` ids whose random part has no
    digit) look like one long name; under ``password``/``key`` names the model's surprise
    decides, as for any other value.

    Example:
        >>> rule = CredentialRule()
        >>> is_letter_key("AKIAQZLRMEUDXJIWGOCR", rule), is_letter_key("Authorization", rule)
        (True, False)
    """
    return value.isascii() and value.isalpha() and len(value) >= rule.min_length_token


def _max_window_score(
    windows: Windows, token_starts: np.ndarray, token_ends: np.ndarray, start: int, end: int
) -> float:
    """Highest valid window score among windows holding a token that overlaps ``[start, end)``.

    Tokens partition the text in order, so the overlapping tokens are one index range, found by
    binary search.
    """
    first = int(np.searchsorted(token_ends, start, side="right"))
    last = int(np.searchsorted(token_starts, end, side="left")) - 1
    if first > last or len(windows) == 0:
        return -math.inf
    size = int(windows.ends[0] - windows.starts[0])
    # Window i covers tokens [i, i + size): it overlaps [first, last] when i <= last and
    # i + size > first.
    window_scores = windows.scores[max(first - size + 1, 0) : min(last + 1, len(windows))]
    window_scores = window_scores[np.isfinite(window_scores)]
    return float(window_scores.max()) if window_scores.size else -math.inf


def _nll_per_char(
    nll: np.ndarray, token_starts: np.ndarray, token_ends: np.ndarray, start: int, end: int
) -> float:
    """Total NLL of the tokens overlapping ``[start, end)`` per character of the value."""
    first = int(np.searchsorted(token_ends, start, side="right"))
    last = int(np.searchsorted(token_starts, end, side="left")) - 1
    if first > last:
        return -math.inf
    values = nll[first : last + 1]
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return -math.inf
    return float(finite.sum()) / (end - start)
