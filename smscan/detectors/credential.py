"""Credential-like values: surprising values in places where credentials live.

The recipe (paper section 2 and D.1, made precise):

1. Find value slots (:mod:`smscan.detectors.slots`): string literals, config and env values, URL
   passwords, ``Authorization`` values, option values, private-key blocks, long tokens.
2. Drop what cannot be a credential whatever the model thinks: references, placeholders and
   documented examples (:mod:`smscan.detectors.placeholders`); values shaped like identifiers
   of other things (UUIDs, versions, URLs, paths, digests under a hash-like name, prose); values
   too short or too plain (one character class) for their place.
3. Score what is left by its surprise: the highest mean NLL of a ``window``-token window that
   overlaps the value (Global SM with one selected window), plus the evidence of its place: a
   name that says secret (``password``, ``api_key``, ``token``...), a URL password, an
   ``Authorization`` value or a private-key block adds ``secret_bonus``; a bare token with no
   name at all pays ``token_penalty``. The score stays in nats, so one calibrated threshold
   per model decides, and the whole value is the span.

Nothing here knows a vendor's format: a random token behind ``acme_live_`` is judged exactly like
one behind ``ghp_``.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from smscan.detectors.candidate import Candidate
from smscan.detectors.placeholders import is_placeholder, is_stand_in
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
from smscan.engine.windows import Windows, fixed_windows
from smscan.kinds import CREDENTIAL
from smscan.records import TokenScores

KIND = CREDENTIAL

# Words of a name that say its value is a secret. "key" needs company (api_key, secret_key,
# private_key), because alone it names dict keys, sort keys and primary keys.
_SECRET_WORDS = frozenset(
    """
    password passwd passwords pwd passphrase pass pw secret secrets token tokens apikey
    credential credentials creds cred auth authorization bearer privkey
    """.split()
)
_KEY_COMPANY = frozenset(
    """
    api access secret private auth client signing encryption master license app service account
    ssh tls ssl gpg pgp deploy webhook session consumer shared hmac jwt
    """.split()
)
# Words of a name that say its value identifies something (random-looking but public).
_IDENTIFIER_WORDS = frozenset(
    """
    id ids uuid guid sha sha1 sha256 sha512 md5 hash hashes digest checksum integrity commit
    rev revision etag version ver release build tag ref nonce fingerprint trace correlation
    request session_id cache color colour name path file dir url uri host endpoint homepage
    """.split()
)
# Words just before a value in prose that say it is a digest or an id.
_IDENTIFIER_CONTEXT = re.compile(
    r"\b(?:commit|sha\d*|hash|digest|checksum|integrity|revision|rev|uuid|guid|etag|"
    r"fingerprint|build|version)\b[^\n]{0,24}$",
    re.IGNORECASE,
)
_NAME_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_VERSION = re.compile(r"^[vV]?\d+(?:\.\d+)+(?:[-.+]?[A-Za-z0-9.]+)?$")
# Digests named by their algorithm: SRI `sha512-...`, `sha256:...`, Go's `h1:...`, `md5=...`.
_DIGEST_NAME = r"(?:sha1|sha224|sha256|sha384|sha512|sha3-\d+|md5|blake2b?|h1)[-:=]"
_DIGEST_PREFIXED = re.compile("^" + _DIGEST_NAME, re.IGNORECASE)
_DIGEST_BEFORE = re.compile(_DIGEST_NAME + "$", re.IGNORECASE)
# Patterns, not values: globs (`*/build/*`, `*.py`) and regular expressions (ranges, groups,
# class escapes, case classes such as `[Ll]`). A bare `**` is no glob: random passwords hold it.
_PATTERN = re.compile(
    r"\*/|/\*|\*\.[A-Za-z0-9]{1,5}$|\[[a-zA-Z0-9]-[a-zA-Z0-9]\]|\(\?[:=!<P]|\\[dwsbDWSB]"
    r"|\[([A-Za-z])(?!\1)(?i:\1)\]"
)
# Escaped regex metacharacters (`\[`, `\.`, `\(`): two of them make a pattern; one backslash
# before punctuation can happen in a random password.
_REGEX_ESCAPE = re.compile(r"\\[.\[\](){}*+?|^$]")
# Words of prose, in any language written in Latin letters: `Voorbeelden:`, `boshlang'ich`,
# `requi-yar-ed`. Each word is lower case, capitalised or all capitals, never mixed like a key.
_WORD_RUN = re.compile(r"^(?:[A-Z]?[a-z]+|[A-Z]{2,})(?:['\-](?:[A-Z]?[a-z]+|[A-Z]{2,}))*[:.!?]?$")
# Windows paths: a drive letter, or UNC and escaped separators.
_WINDOWS_PATH = re.compile(r"^[A-Za-z]:[\\/]|\\\\")
# Package, image and action references: name@version, owner/repo@ref.
_REFERENCE_AT_VERSION = re.compile(r"^[\w.\-]+(?:/[\w.\-]+)*@v?\d[\w.\-]*$")
# Requirement specifiers: name>=1.2, name==1.2.3, name~=2.0 (PEP 440 and npm-like).
_REQUIREMENT = re.compile(r"^[A-Za-z0-9][\w.\-]*(?:\[[\w,\-]+\])?\s*(?:===?|>=|<=|~=|!=|\^|~|>|<)\s*v?\d[\w.\-*+]*(?:,\s*(?:[<>=!~]=?)\s*\d[\w.\-*]*)*$")
_DATA_URI = re.compile(r"^data:[\w.+\-]+/[\w.+\-]+(?:;[\w=\-]+)*[;,]")
_HEX = re.compile(r"^[0-9a-fA-F]+$")
_BASE64 = re.compile(r"^(?:[A-Za-z0-9+/]+|[A-Za-z0-9_\-]+)={0,2}$")
_CREDENTIAL_PAIR = re.compile(r"^[\w.@+\-]+:\S+$")
_URLISH = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.\-]*://|www\.|mailto:|/|\./|\.\./|~/)")
_EMAIL = re.compile(r"^[\w.+\-]+@[\w\-]+\.[\w.\-]+$")
_HOSTNAME = re.compile(r"^(?:[a-z0-9\-]+\.)+[a-z]{2,}(?::\d+)?$")
_IP = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+Z?)?$")
_FILE_NAME = re.compile(r"^[\w\-]+(?:\.[A-Za-z0-9]{1,5})+$")
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z_$]*(?:[.:][A-Za-z_$][A-Za-z_$]*)*$")

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
        return [(slot.start, slot.end) for slot in find_slots(text) if judge_slot(text, slot, self._rule) is not None]

    def candidates(self, text: str, scores: TokenScores) -> list[Candidate]:
        rule = self._rule
        windows = fixed_windows(scores.nll, size=rule.window)
        token_starts = np.asarray(scores.char_starts, np.int64)
        token_ends = np.asarray(scores.char_ends, np.int64)
        found = []
        for slot in find_slots(text):
            value = text[slot.start : slot.end]
            evidence = judge_slot(text, slot, rule)
            if evidence is None:
                continue
            if rule.statistic == "rate":
                surprise = _nll_per_char(scores.nll, token_starts, token_ends, slot.start, slot.end)
            else:
                surprise = _max_window_score(windows, token_starts, token_ends, slot.start, slot.end)
            if not math.isfinite(surprise):
                continue
            score = surprise + evidence
            found.append(
                Candidate(
                    slot.start,
                    slot.end,
                    score,
                    {"place": slot.where, "surprise": round(surprise, 4), "length": len(value)},
                )
            )
        return found


def name_class(name: str) -> str:
    """``"secret"``, ``"identifier"`` or ``"neutral"``: what a name says about its value.

    Example:
        >>> name_class("stripeSecretKey"), name_class("gitSha"), name_class("timeout")
        ('secret', 'identifier', 'neutral')
    """
    words = [word.lower() for word in _NAME_WORDS.findall(name)]
    joined = "".join(words)
    if any(word in _SECRET_WORDS for word in words) or "apikey" in joined or "passw" in joined:
        return "secret"
    if "key" in words and any(word in _KEY_COMPANY for word in words):
        return "secret"
    if words and words[-1] == "key" and len(words) == 1:
        return "neutral"
    if any(word in _IDENTIFIER_WORDS for word in words):
        return "identifier"
    return "neutral"


def judge_slot(text: str, slot: Slot, rule: CredentialRule) -> float | None:
    """The evidence a slot adds to its value's surprise, or None when it cannot be a credential."""
    value = text[slot.start : slot.end]
    if slot.where == PEM:
        return rule.secret_bonus
    if slot.where == PUBLIC_BLOCK:
        return None
    if is_stand_in(value):
        return None
    place = name_class(slot.key) if slot.key else "neutral"
    if slot.where in _SECRET_PLACES or slot.where == ARGUMENT and place == "secret":
        place = "secret"
    letter_key = place == "secret" and is_letter_key(value, rule)
    if _is_other_identifier(value) and not letter_key:
        return None
    if place != "secret" and is_prose(value):
        return None
    if slot.where != HEADER and is_encoded_text(value):
        return None
    line_start = text.rfind("\n", 0, slot.start) + 1
    before = text[line_start : slot.start]
    if place != "secret" and (place == "identifier" or _IDENTIFIER_CONTEXT.search(before)):
        return None
    if _DIGEST_BEFORE.search(before):
        return None
    if len(set(value)) < 4 or (_character_classes(value) < 2 and not letter_key):
        return None
    if slot.where == TOKEN or (slot.where == ARGUMENT and place != "secret"):
        if len(value) < rule.min_length_token or _character_classes(value) < 2:
            return None
        return -rule.token_penalty
    if place == "secret":
        return rule.secret_bonus if len(value) >= rule.min_length_named else None
    if slot.where in (STRING, ASSIGNMENT) and len(value) >= rule.min_length_unnamed:
        # Short hex without a name is an id (short commit hashes, revision ids), not a key: hex
        # carries 4 bits a character, so a key in hex is long.
        if _HEX.match(value) and len(value) < rule.min_length_unnamed_hex:
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


def is_prose(value: str) -> bool:
    """True for words rather than a key: non-ASCII text, or letter words joined by ``-``/``'``.

    Credentials are ASCII; translations and labels (``Voorbeelden:``, ``没有提供足够的参数``)
    surprise an English-trained model without being secret.

    Example:
        >>> is_prose("Voorbeelden:"), is_prose("boshlang'ich"), is_prose("Zq8x-P1sV9")
        (True, True, False)
    """
    return not value.isascii() or bool(_WORD_RUN.match(value))


def is_encoded_text(value: str) -> bool:
    """True for base64 that decodes to readable text (``aGVsbG8gd29ybGQ=``): data, not a key.

    Random key material almost never decodes to printable ASCII (for 12 bytes, odds of about
    1 in 10^5), while encoded messages, markup and JSON always do. A decoded ``user:password``
    pair (HTTP Basic credentials) is not mere text and stays a candidate.

    Example:
        >>> is_encoded_text("aGVsbG8gd29ybGQ="), is_encoded_text("YWRtaW46czNjcjN0"), is_encoded_text("q8Zt3kPx0wLm9Rv2")
        (True, False, False)
    """
    if len(value) < 12 or not _BASE64.match(value):
        return False
    padded = value + "=" * (-len(value) % 4)
    try:
        decoded = base64.b64decode(padded, altchars=b"-_" if ("-" in value or "_" in value) else None, validate=True)
    except (binascii.Error, ValueError):
        return False
    if len(decoded) < 6 or not all(32 <= byte < 127 or byte in (9, 10, 13) for byte in decoded):
        return False
    text = decoded.decode("ascii")
    # A user:password pair is a credential, unless it is a stand-in pair such as foo:bar.
    return not _CREDENTIAL_PAIR.match(text) or is_placeholder(text.replace(":", " "))


def _is_other_identifier(value: str) -> bool:
    """Shapes of other things: UUIDs, versions, URLs, paths, hosts, dates, digests, data URIs,
    globs and regexes, package references, plain names, numbers."""
    return bool(
        _UUID.match(value)
        or _VERSION.match(value)
        or _DIGEST_PREFIXED.match(value)
        or _DATA_URI.match(value)
        or _PATTERN.search(value)
        or len(_REGEX_ESCAPE.findall(value)) >= 2
        or _WINDOWS_PATH.search(value)
        or _REFERENCE_AT_VERSION.match(value)
        or _REQUIREMENT.match(value)
        or _URLISH.match(value)
        or _EMAIL.match(value)
        or _HOSTNAME.match(value)
        or _IP.match(value)
        or _DATE.match(value)
        or _FILE_NAME.match(value)
        or _IDENTIFIER.match(value)
        or value.isdigit()
    )


def _character_classes(value: str) -> int:
    return (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
        + any(not c.isalnum() for c in value)
    )


def shannon_entropy(value: str) -> float:
    """Bits per character of the value's own character distribution."""
    counts = Counter(value)
    total = len(value)
    return -sum(n / total * math.log2(n / total) for n in counts.values()) if total else 0.0


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
