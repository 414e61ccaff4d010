"""A document's candidates, remembered: a rescan judges only the documents that changed.

Once no text is scored twice, a rescan of an unchanged repository still spends its time planning
and judging every file (finding value slots, parsing Python for dead lines). Scores are a pure
function of (model fingerprint, scoring settings, text), and a detector's candidates a pure function
of (its rule, the document's path and text, those scores), so the candidates of a whole document
are stored under the digest of all of them, beside the token scores in the score cache (same
bound, same least-recently-used eviction).

An entry holds offsets, scores and the detectors' details (place, length, evidence): no text.
Only whole documents are remembered (a diff scan's pieces depend on its changed lines, and raw
``surprise`` needs the token scores themselves).
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smscan import __version__
from smscan.detectors import js_syntax
from smscan.records import Candidate, Detector
from smscan.records import Document

Judgement = dict[str, list[Candidate]]
"""Kind -> the candidates a detector found in one document."""


@dataclass(frozen=True, slots=True)
class Remembered:
    """A document's candidates and how many of its tokens were scored to find them."""

    candidates: Judgement
    tokens_scored: int

# Bump when what a detector returns for the same rule, path and text changes in a way its rule
# does not show (a new slot shape, a new evidence kind). 3: dead code judged as statement blocks
# with data-flow evidence (2 was a development state of the same change). 4: JavaScript and
# TypeScript dead statements from tree-sitter syntax trees (the `js` extra).
JUDGEMENT_FORMAT = 4


@functools.cache
def detector_code_digest() -> str:
    """A digest of the code that turns scores into candidates (smscan's version and the source of
    its detector, plan and region modules, and the detectors' data files).

    A format bump is easy to forget; with this, a detector changed by an upgrade or an edit never
    answers from what its older code remembered. Read once per process (a few dozen small files).
    """
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(__version__.encode())
    # The detectors' data files too: the cheap gate reads the packaged judgement's parameters.
    code = [*(package / "detectors").rglob("*.py"), *(package / "detectors").rglob("*.json"), *(package / "plan").glob("*.py")]
    for path in sorted(code):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


class JudgementMemo:
    """Candidates of whole documents in a score cache (``smscan.scoring.cache.ScoreCache``).

    Args:
        cache: the score cache (``get_many``/``put_many`` of hex keys to bytes).
        fingerprint: the scorer's fingerprint.
        settings_key: the scorer's scoring settings key.
        detectors: the enabled detectors, whose rules are part of every key.
    """

    def __init__(self, cache: Any, *, fingerprint: str, settings_key: str, detectors: Sequence[Detector]) -> None:
        self._cache = cache
        identity = {
            "format": JUDGEMENT_FORMAT,
            "code": detector_code_digest(),
            # With or without the `js` extra, the same JavaScript gets different candidates.
            "js_syntax": js_syntax.grammar_versions(),
            "fingerprint": fingerprint,
            "settings": settings_key,
            "detectors": [[d.kind, d.rule(), getattr(d, "context_chars", None)] for d in detectors],
        }
        self._prefix = hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).digest()

    def key(self, document: Document) -> str | None:
        """The entry's key, or None for a document that is not remembered (a diff scan's)."""
        if document.changed_lines is not None:
            return None
        digest = hashlib.sha256(self._prefix)
        digest.update(document.path.encode("utf-8", "surrogatepass") + b"\0")
        digest.update(document.text.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def recall(self, documents: Sequence[Document]) -> list[Remembered | None]:
        """Each document's remembered candidates, or None where there are none."""
        keys = [self.key(document) for document in documents]
        stored = self._cache.get_many([key for key in keys if key is not None])
        return [_decode(stored[key]) if key in stored else None for key in keys]

    def remember(self, judged: Sequence[tuple[Document, Remembered]]) -> None:
        """Store the candidates of whole documents (others are ignored)."""
        entries = {}
        for document, remembered in judged:
            key = self.key(document)
            if key is not None:
                entries[key] = _encode(remembered)
        self._cache.put_many(entries)


def _encode(remembered: Remembered) -> bytes:
    candidates = {
        kind: [[c.char_start, c.char_end, c.score, dict(c.details)] for c in found]
        for kind, found in remembered.candidates.items()
    }
    data = {"candidates": candidates, "tokens_scored": remembered.tokens_scored}
    # Key order kept as the detector made it: reports print details in that order.
    return json.dumps(data, allow_nan=True, default=_plain).encode()


def _plain(value: Any) -> Any:
    # numpy scalars in a detector's details (np.int64, np.bool_) as the Python values they hold.
    item = getattr(value, "item", None)
    if callable(item):
        return item()
    raise TypeError(f"cannot store {type(value).__name__} in a judgement")


def _decode(value: bytes) -> Remembered | None:
    # A damaged entry reads as none: the document is judged again.
    try:
        data = json.loads(value)
        candidates = {
            str(kind): [Candidate(int(start), int(end), float(score), dict(details)) for start, end, score, details in rows]
            for kind, rows in data["candidates"].items()
        }
        return Remembered(candidates, int(data["tokens_scored"]))
    except (ValueError, TypeError, AttributeError, KeyError):
        return None
