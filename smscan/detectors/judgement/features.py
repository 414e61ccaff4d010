"""Features of one credential candidate: what the learned judgement weighs.

Two groups, in a fixed order (the order of a saved model's weights):

- **cheap** features (:data:`CHEAP_FEATURES`), known before the model runs: the value's shape
  (length, character classes and their mix, entropy, how often the character class changes, a
  rough stand-in for how a BPE tokenizer cuts it), the place it sits in (the slot kind, the name
  it is stored under, words on its line, the file's type, a test path) and every signal today's
  rules compute (:mod:`smscan.detectors.credential_evidence` and the shape predicates it calls),
  each as a 0/1 feature rather than a gate, with the rules' own verdict and evidence besides;
- **surprise** features (:data:`SURPRISE_FEATURES`), from the reference model's token scores:
  the value's NLL per character, its best 4-token window, its mean and highest token NLL, how
  many characters a token of the reference tokenizer covers in it, and the value's rate against
  the rest of its line and the rest of the scored file.

A feature is a plain float; a missing surprise (no scored token) leaves the value unjudged by
the full model, never a made-up number.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

from smscan.detectors.credential_evidence import is_letter_key, judge_slot
from smscan.detectors.credential_rule import CredentialRule
from smscan.detectors.enclosing_names import names_a_thing
from smscan.detectors.letter_pairs import reads_as_word
from smscan.detectors.passphrases import is_passphrase
from smscan.detectors.placeholders import is_reference, is_stand_in
from smscan.detectors.secret_names import is_password_name, name_class
from smscan.detectors.slot_kinds import PRIORITY, Slot
from smscan.detectors.test_context import is_made_up, is_test_path
from smscan.detectors.value_shapes import (
    character_classes,
    has_digest_name_before,
    is_encoded_text,
    is_hex,
    is_list_of_names,
    is_name_of_thing,
    is_other_identifier,
    is_prose,
    is_ssh_public_key,
    is_uuid,
)
from smscan.detectors.value_surprise import max_window_score, nll_per_char
from smscan.engine.windows import Windows

# Slot kinds in the finder's priority order: one 0/1 feature each.
PLACES = tuple(sorted(PRIORITY, key=PRIORITY.__getitem__))

_DOC_EXTENSIONS = frozenset({"md", "rst", "txt", "adoc", "po", "pot", "html", "htm", "tex", "rdoc", "markdown"})
_CONFIG_EXTENSIONS = frozenset({
    "yaml", "yml", "json", "toml", "ini", "cfg", "conf", "env", "properties", "xml", "plist", "tf", "tfvars",
    "npmrc", "pypirc", "netrc", "pgpass", "gitconfig", "config", "lock", "sql", "csv",
})
_SHELL_EXTENSIONS = frozenset({"sh", "bash", "zsh", "ps1", "bat", "cmd", "dockerfile"})
# Words on a value's line that say it is secret, or that it is an example.
_SECRET_WORDS = re.compile(r"pass|pwd|secret|token|api[_\-. ]?key|private|credential|auth|bearer|signing", re.IGNORECASE)
_EXAMPLE_WORDS = re.compile(r"example|sample|dummy|fake|placeholder|changeme|your[_\- ]|xxx|redacted|mock", re.IGNORECASE)
_IDENTIFIER_WORDS = re.compile(
    r"\b(?:commit|sha\d*|hash|digest|checksum|integrity|revision|rev|uuid|guid|etag|fingerprint|build|version|id)\b",
    re.IGNORECASE,
)
_COMMENT_START = re.compile(r"^\s*(?:#|//|--|;|\*|/\*|<!--|%|rem\b)", re.IGNORECASE)
_BASE64ISH = re.compile(r"^[A-Za-z0-9+/_\-]+={0,2}$")
# Runs of letters split at case changes: `PoolManager` -> `Pool`, `Manager`; `SSLError` -> `SSL`, `Error`.
_LETTER_RUN = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
# Code written as a value: a call, an index or a template field, a scope path
# (`Session.get()`, `headers['location']`, `{self.username}`, `std::string`).
_CODE_SYNTAX = re.compile(r"\w\(|\[['\"\w]|\{[\w.]*\}|\w::\w")
_BEFORE_CHARS = 64
# How far from a value its line is read (features of the line, the line's surprise).
_LINE_REACH = 256
_CHECKSUM_LINE_AFTER = re.compile(r" [ *][\w./\-]+\.\w+")

CHEAP_FEATURES: tuple[str, ...] = (
    "log_length", "distinct_share", "classes", "digit_share", "upper_share", "lower_share", "symbol_share",
    "entropy_bits", "class_changes_per_char", "is_hex", "is_uuid", "is_base64ish", "has_space",
    "word_share", "code_syntax",
    *(f"place:{place}" for place in PLACES),
    "name:secret", "name:identifier", "name:neutral", "name:none", "name:password", "name:inherited",
    "vendor_format", "passphrase", "letter_key",
    "stand_in", "reference", "test_path", "made_up_in_test",
    "other_identifier", "prose", "name_of_thing", "list_of_names", "encoded_text", "ssh_public_key",
    "identifier_words_before", "digest_name_before", "checksum_line_after",
    "line_secret_words", "line_example_words", "line_is_comment",
    "file:doc", "file:config", "file:shell", "file:code",
    "rules:keep", "rules:evidence",
)
SURPRISE_FEATURES: tuple[str, ...] = (
    "rate", "window", "token_mean", "token_max", "chars_per_token", "rate_minus_line", "rate_minus_file",
    "rate_x_secret_name", "rate_x_rules_keep",
)
FEATURES = CHEAP_FEATURES + SURPRISE_FEATURES


@dataclass(frozen=True, slots=True)
class Surroundings:
    """What the cheap features read around a slot: its line, and the file's path."""

    line: str
    before: str
    after: str
    path: str


def surroundings(text: str, slot: Slot, path: str) -> Surroundings:
    """The line around the slot (at most 256 characters on each side: a minified line is read
    near its values only, never once per value), the words just before it (at most 64 characters
    of its line) and the rest of its line, for ``path``."""
    line_start, line_end = line_around(text, slot.start, slot.end)
    window = max(slot.start - _BEFORE_CHARS, line_start)
    return Surroundings(text[line_start:line_end], text[window : slot.start], text[slot.end : line_end], path)


def line_around(text: str, start: int, end: int, reach: int = _LINE_REACH) -> tuple[int, int]:
    """The span of the line holding ``[start, end)``, cut at ``reach`` characters on each side."""
    low = max(start - reach, 0)
    line_start = text.rfind("\n", low, start)
    line_start = low if line_start < 0 else line_start + 1
    high = min(end + reach, len(text))
    line_end = text.find("\n", end, high)
    return line_start, high if line_end < 0 else line_end


def file_type(path: str) -> str:
    """``doc``, ``config``, ``shell`` or ``code`` for a path, by its extension or name."""
    name = path.rsplit("/", 1)[-1].lower()
    extension = name.rsplit(".", 1)[-1] if "." in name.lstrip(".") else name.lstrip(".")
    if name.startswith("dockerfile") or extension in _SHELL_EXTENSIONS:
        return "shell"
    if extension in _DOC_EXTENSIONS or "." not in name.lstrip(".") and extension in {"readme", "license", "changes", "notes"}:
        return "doc"
    if extension in _CONFIG_EXTENSIONS or name.startswith(".env") or "." not in name:
        return "config"
    return "code"


def shape_features(value: str) -> list[float]:
    """The shape of a value: its first 15 cheap features.

    Example:
        >>> [round(x, 3) for x in shape_features("ab12")]
        [1.386, 1.0, 2.0, 0.5, 0.0, 0.5, 0.0, 2.0, 0.25, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    """
    length = len(value)
    counts = Counter(value)
    digits = sum(c.isdigit() for c in value)
    upper = sum(c.isupper() for c in value)
    lower = sum(c.islower() for c in value)
    entropy = -sum(n / length * math.log2(n / length) for n in counts.values())
    changes = sum(1 for a, b in zip(value, value[1:]) if _char_class(a) != _char_class(b))
    return [
        math.log(length),
        len(counts) / length,
        float(character_classes(value)),
        digits / length,
        upper / length,
        lower / length,
        (length - digits - upper - lower) / length,
        entropy,
        changes / length,
        float(is_hex(value)),
        float(is_uuid(value)),
        float(bool(_BASE64ISH.match(value))),
        float(any(c.isspace() for c in value)),
        word_share(value),
        float(bool(_CODE_SYNTAX.search(value))),
    ]


def word_share(value: str) -> float:
    """The share of a value's characters in runs of three or more letters that read as words
    (:func:`smscan.detectors.letter_pairs.reads_as_word`; runs split at case changes, so
    ``PoolManager`` is two words). Names, paths and prose are mostly words; a random key's
    letters break into short runs that pair as no word does.

    Example:
        >>> round(word_share("urllib3.exceptions.SSLError"), 2), word_share("Zq8xP1sV9kL2wQbR")
        (0.89, 0.0)
    """
    in_words = sum(len(run) for run in _LETTER_RUN.findall(value) if len(run) >= 3 and reads_as_word(run))
    return in_words / len(value)


def _char_class(char: str) -> int:
    return 0 if char.islower() else 1 if char.isupper() else 2 if char.isdigit() else 3


def cheap_features(text: str, slot: Slot, rule: CredentialRule, *, path: str = "") -> np.ndarray:
    """The cheap features of one slot of ``text`` (at ``path``), in :data:`CHEAP_FEATURES` order."""
    return judged_cheap_features(text, slot, rule, judge_slot(text, slot, rule, path=path), path=path)


def judged_cheap_features(
    text: str, slot: Slot, rule: CredentialRule, evidence: float | None, *, path: str = ""
) -> np.ndarray:
    """:func:`cheap_features` of a slot the rules have judged already (``evidence``: what
    ``judge_slot`` gave it), so the cheap gate does not judge it twice."""
    value = text[slot.start : slot.end]
    around = surroundings(text, slot, path)
    name = name_class(slot.key) if slot.key else "none"
    test_path = is_test_path(path)
    kind = file_type(path)
    features = shape_features(value)
    features += [float(slot.where == place) for place in PLACES]
    features += [
        float(name == "secret"), float(name == "identifier"), float(name == "neutral"), float(name == "none"),
        float(bool(slot.key) and is_password_name(slot.key)), float(name == "secret" and names_a_thing(slot)),
    ]
    from smscan.detectors.vendor_prefixes import vendor_of

    features += [float(vendor_of(value) is not None), float(is_passphrase(value)), float(is_letter_key(value, rule))]
    features += [float(is_stand_in(value)), float(is_reference(value)), float(test_path), float(test_path and is_made_up(value))]
    features += [
        float(is_other_identifier(value)), float(is_prose(value)), float(is_name_of_thing(value)),
        float(is_list_of_names(value)), float(is_encoded_text(value)), float(is_ssh_public_key(value)),
    ]
    features += [
        float(bool(_IDENTIFIER_WORDS.search(around.before))), float(has_digest_name_before(around.before)),
        float(is_hex(value) and bool(_CHECKSUM_LINE_AFTER.match(text, slot.end))),
    ]
    line_outside = around.line.replace(value, " ", 1)
    features += [
        float(bool(_SECRET_WORDS.search(line_outside))), float(bool(_EXAMPLE_WORDS.search(line_outside))),
        float(bool(_COMMENT_START.match(around.line))),
    ]
    features += [float(kind == "doc"), float(kind == "config"), float(kind == "shell"), float(kind == "code")]
    features += [float(evidence is not None), float(evidence or 0.0)]
    return np.asarray(features, dtype=np.float64)


@dataclass(frozen=True, slots=True)
class ScoredText:
    """A document's sparse token scores prepared once for every slot's surprise features."""

    nll: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    windows: Windows
    file_rate: float
    """Mean NLL per character over every scored token of the document (nats/char)."""


def scored_text(nll: np.ndarray, starts: np.ndarray, ends: np.ndarray, windows: Windows) -> ScoredText:
    """:class:`ScoredText` of a document's (sparse) token scores and 4-token windows."""
    finite = np.isfinite(nll)
    chars = float((ends[finite] - starts[finite]).sum())
    file_rate = float(nll[finite].sum()) / chars if chars > 0 else math.nan
    return ScoredText(nll, starts, ends, windows, file_rate)


def surprise_features(scored: ScoredText, text: str, start: int, end: int, cheap: np.ndarray) -> np.ndarray | None:
    """The surprise features of the value ``text[start:end]``, or None when no token of it is scored.

    ``cheap`` is the value's cheap feature vector (two interactions read it).
    """
    rate = nll_per_char(scored.nll, scored.starts, scored.ends, start, end)
    window = max_window_score(scored.windows, scored.starts, scored.ends, start, end)
    if not math.isfinite(rate):
        return None
    first = int(np.searchsorted(scored.ends, start, side="right"))
    last = int(np.searchsorted(scored.starts, end, side="left")) - 1
    tokens = scored.nll[first : last + 1]
    finite = tokens[np.isfinite(tokens)]
    line_start, line_end = line_around(text, start, end)
    line_rate = _outside_rate(scored, line_start, line_end, first, last)
    secret_name = cheap[FEATURE_INDEX["name:secret"]] + cheap[FEATURE_INDEX["place:url-userinfo"]]
    keep = cheap[FEATURE_INDEX["rules:keep"]]
    features = [
        rate,
        window if math.isfinite(window) else rate,
        float(finite.mean()),
        float(finite.max()),
        (end - start) / max(last - first + 1, 1),
        rate - line_rate if math.isfinite(line_rate) else 0.0,
        rate - scored.file_rate if math.isfinite(scored.file_rate) else 0.0,
        rate * min(secret_name, 1.0),
        rate * keep,
    ]
    return np.asarray(features, dtype=np.float64)


def _outside_rate(scored: ScoredText, line_start: int, line_end: int, first: int, last: int) -> float:
    """NLL per character of the scored tokens of a line outside tokens ``first..last``."""
    lo = int(np.searchsorted(scored.ends, line_start, side="right"))
    hi = int(np.searchsorted(scored.starts, line_end, side="left"))
    index = np.r_[lo:first, last + 1 : hi]
    if index.size == 0:
        return math.nan
    nll = scored.nll[index]
    keep = np.isfinite(nll)
    chars = float((scored.ends[index][keep] - scored.starts[index][keep]).sum())
    return float(nll[keep].sum()) / chars if chars > 0 else math.nan


FEATURE_INDEX = {name: index for index, name in enumerate(FEATURES)}
