"""Labelled examples from sources nobody on the team wrote: the record, its JSONL form, a scorable split.

One example is one small file: ``text`` (the example as its source wrote it), ``path_hint`` (the
file name it is scanned under), ``labels`` (credential spans, 0-based half-open character offsets
into ``text``), ``negatives`` (look-alike spans: text the source says must NOT be reported) and
``identifiers`` (spans the source marks as identifiers, not secrets: a key id, a client id; neither
a credential nor a look-alike, so they are left out of the scoring).

A split folder (``corpus/`` plus ``labels.jsonl``) is the layout of the shared scorer
(``shared/bench/secrets_eval/score.py``): every example becomes ``corpus/<source>/<nnnnn>/<path_hint>``.
"""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from collections import Counter
from typing import Any, Iterable, Iterator


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int
    category: str


@dataclass(frozen=True, slots=True)
class Example:
    source: str
    id: str
    text: str
    path_hint: str
    labels: tuple[Span, ...] = ()
    negatives: tuple[Span, ...] = ()
    identifiers: tuple[Span, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        for key in ("labels", "negatives", "identifiers"):
            out[key] = [asdict(s) for s in getattr(self, key)]
        return out

    @staticmethod
    def from_json(row: dict[str, Any]) -> "Example":
        spans = {k: tuple(Span(**s) for s in row.get(k, [])) for k in ("labels", "negatives", "identifiers")}
        return Example(source=row["source"], id=row["id"], text=row["text"], path_hint=row["path_hint"],
                       meta=row.get("meta", {}), **spans)


def whole_file_example(source: str, name: str, text: str, spans: tuple[list[Span], list[Span], list[Span]],
                       meta: dict[str, Any], counts: Counter[str]) -> Example | None:
    """A whole test file as one example, scanned under its own name, its (credential, identifier,
    look-alike) ``spans`` counted; None, counted too, when it holds neither a credential nor a look-alike."""
    labels, identifiers, negatives = spans
    counts["credentials"] += len(labels)
    counts["look_alike_lines"] += len(negatives)
    if not labels and not negatives:
        counts["file_without_a_scored_span"] += 1
        return None
    return Example(source, name, text, name, labels=tuple(labels), negatives=tuple(negatives),
                   identifiers=tuple(identifiers), meta=meta)


def write_jsonl(path: Path, examples: Iterable[Example]) -> int:
    n = 0
    with path.open("w", encoding="utf-8") as f:
        for ex in examples:
            f.write(json.dumps(ex.to_json(), ensure_ascii=False) + "\n")
            n += 1
    return n


def read_jsonl(path: Path) -> Iterator[Example]:
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield Example.from_json(json.loads(line))


# The user info of a URL; the password runs to the last `@` before the host (a password may hold one).
URL_USER_INFO = re.compile(r"://(?P<user>[^:/\s@]+):(?P<password>[^\s/]+)@")
# An AWS access key id: an identifier (the secret is the access key it pairs with), in every source.
AWS_KEY_ID = re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")
# A Google OAuth client id (`<number>-<id>.apps.googleusercontent.com`): an identifier, not its secret.
GOOGLE_CLIENT_ID = re.compile(r"^\d+-\w+\.apps\.googleusercontent\.com$")


def line_starts(text: str) -> list[int]:
    """The offset of each line's first character (a position's line is found by bisection)."""
    starts = [0]
    starts.extend(i + 1 for i, c in enumerate(text) if c == "\n")
    return starts


def whole_text_span(text: str, category: str) -> tuple[Span, ...]:
    """The example without its surrounding blanks, as one span (a negative example is all look-alike)."""
    start = len(text) - len(text.lstrip())
    end = len(text.rstrip())
    return (Span(start, end, category),) if end > start else ()


_JSON = re.compile(r'^\s*[\[{].*"\s*:', re.S)
_XML = re.compile(r"<[A-Za-z][^>]*>.*</|/>", re.S)
_ENV = re.compile(r"^(?:export\s+)?[A-Z][A-Z0-9_]*=\S", re.M)
_YAML = re.compile(r"^\s*[\w.\"'-]+\s*:\s+\S", re.M)
_SHELL = re.compile(r"^\s*(?:\$ |curl |export |wget |git |docker |npm |pip )", re.M)
_JS = re.compile(r"\b(?:const|let|var)\s+\w+\s*=|=>|\bfunction\b|require\(")
_PY = re.compile(r"^\s*(?:def |import |from \w+ import )|\w+\s*=\s*['\"]|os\.environ", re.M)
_GO = re.compile(r":=|\bfunc\b|\bpackage\b")
_INI = re.compile(r"^\s*\[[\w .-]+\]\s*$", re.M)


def guess_path_hint(text: str) -> str:
    """A file name for an example from its shape; the source rarely says which file it came from."""
    if "-----BEGIN" in text:
        return "key.pem"
    if _JSON.match(text):
        return "config.json"
    if _XML.search(text):
        return "config.xml"
    if _INI.search(text):
        return "config.ini"
    if _SHELL.search(text):
        return "run.sh"
    if _ENV.search(text) and not _PY.search(text.replace("=", " ")):
        return ".env"
    if _GO.search(text):
        return "main.go"
    if _JS.search(text):
        return "index.js"
    if _PY.search(text):
        return "settings.py"
    if _YAML.search(text):
        return "config.yaml"
    return "notes.txt"


def is_degenerate(value: str) -> bool:
    """A placeholder, not a credential: at most three distinct characters (``aaaa``), or one character
    making up 60% of it (``AKIAZZZZZZZZZZZZZZZZ``, ``AP6xxxxxxxxxx``)."""
    if len(set(value)) <= 3:
        return True
    return max(value.count(c) for c in set(value)) >= 0.6 * len(value)


_PLACEHOLDER_WORD = re.compile(r"example|fake|dummy|sample|placeholder|your|xxxx|0000|1234|abcd", re.I)
_REPEATED_UNIT = re.compile(r"(.{2,8}?)\1{2,}")


def _has_ascending_run(value: str, n: int = 5) -> bool:
    run = 1
    for a, b in zip(value, value[1:]):
        run = run + 1 if ord(b) == ord(a) + 1 else 1
        if run >= n:
            return True
    return False


def value_category(value: str) -> str:
    """``patterned`` for a value a person typed as a stand-in (``abcd1234abcd1234``, ``1234567890abcdef``,
    ``FakeValues99...``, ``your-key``), else ``realistic``. Both stay credentials, as their source says;
    the scorer reports recall on each, so a judgement that calls a stand-in a placeholder is seen doing so."""
    letters = "".join(c for c in value.lower() if c.isalpha())
    digits = "".join(c for c in value if c.isdigit())
    if (value.isalpha() and value.islower() and len(value) <= 12  # "password", "secret": a word
            or _PLACEHOLDER_WORD.search(value) or _REPEATED_UNIT.search(value) or _has_ascending_run(value)
            or _has_ascending_run(letters, 6) or _has_ascending_run(digits, 6)):  # a1b2c3d4e5f6g7...
        return "patterned"
    return "realistic"


def write_split(examples: list[Example], dst: Path) -> list[dict[str, Any]]:
    """A fresh split folder ``dst`` (corpus/ + labels.jsonl) for the shared scorer; returns its label rows.

    Examples with identifier spans only are left out: they hold neither a credential nor a look-alike.
    """
    if dst.exists():
        shutil.rmtree(dst)
    (dst / "corpus").mkdir(parents=True)
    rows = []
    for n, ex in enumerate(examples):
        if ex.identifiers and not ex.labels and not ex.negatives:
            continue
        rel = f"{ex.source}/{n:05d}/{ex.path_hint}"
        target = dst / "corpus" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(ex.text.encode("utf-8"))
        spans = [{"start": s.start, "end": s.end, "category": value_category(ex.text[s.start:s.end]), "secret_id": i,
                  "context": ex.source} for i, s in enumerate(ex.labels)]
        negatives = [{"start": s.start, "end": s.end, "category": s.category} for s in ex.negatives]
        rows.append({"path": rel, "source": ex.source, "id": ex.id, "ext_class": ex.path_hint.rsplit(".", 1)[-1],
                     "spans": spans, "negatives": negatives})
    (dst / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return rows
