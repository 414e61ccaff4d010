"""Baselines: accepted findings, recorded by content so that only new findings are reported.

The file (``smscan baseline -o .smscan-baseline.json``) is JSON, one entry a line, sorted, with no
timestamps and no line numbers, so that moving code never breaks it and two branches that each
accept a finding rarely conflict::

    {
      "smscan_baseline": 1,
      "salt": "6f1c...32 hex digits...",
      "entries": [
        {"kind": "surprise", "path": "src/settings.py", "hash": "9b2e...64 hex digits..."}
      ]
    }

An entry matches a finding with the same kind, the same normalised path (POSIX, ``./`` and
``..`` folded, Unicode NFC) and ``hash == sha256(salt + "\\0" + flagged text)``. The salt is
random per baseline (kept when the baseline is rewritten), so hashes cannot be compared across
repositories. A hash is not encryption: a short or common value (a weak password) can still be
guessed from its hash by trying candidates, so a baseline is as confidential as the code.

A new value is never hidden: it has another hash, wherever it is written, even on a line that
held an accepted value. An entry is *stale* when the file it names was scanned whole and no
finding matched it (the value was removed or changed); scans of changed lines only (``staged``,
``diff``, ``hook``) cannot tell, so they list no stale entries.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import secrets
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from smscan.errors import SmscanError
from smscan.fileio.finite import check_finite
from smscan.records import BaselineEntry, Finding
from smscan.fileio.regular import read_config_file
from smscan.reports.visible import json_escaped

FORMAT_VERSION = 1
_SALT_HEX = 32
_HASH_HEX = 64


@dataclass(frozen=True, slots=True)
class Baseline:
    """A salt and the accepted entries."""

    salt: str
    entries: frozenset[BaselineEntry]

    @classmethod
    def new(cls, *, salt: str | None = None) -> Baseline:
        """An empty baseline with a fresh random salt (or the given one)."""
        return cls(salt or secrets.token_hex(_SALT_HEX // 2), frozenset())

    def entry_for(self, finding: Finding, value: str) -> BaselineEntry:
        """The entry that would accept ``finding`` whose flagged text is ``value``."""
        digest = hashlib.sha256(
            f"{self.salt}\0{value}".encode("utf-8", "surrogatepass")
        ).hexdigest()
        return BaselineEntry(normalise_path(finding.path), finding.kind, digest)

    def with_findings(self, findings: Iterable[Finding], values: Mapping[str, str]) -> Baseline:
        """A baseline with the same salt accepting exactly these findings."""
        return Baseline(
            self.salt,
            frozenset(self.entry_for(f, values.get(f.fingerprint, "")) for f in findings),
        )


@dataclass(frozen=True, slots=True)
class BaselineMatch:
    """The findings a baseline does not accept, how many it did, and its stale entries."""

    new: list[Finding]
    accepted: int
    stale: list[BaselineEntry]


def normalise_path(path: str) -> str:
    """A POSIX path with separators, ``./`` and ``..`` folded and Unicode in NFC.

    Example:
        >>> normalise_path("./src\\\\a/../b.py")
        'src/b.py'
    """
    return unicodedata.normalize("NFC", posixpath.normpath(path.replace("\\", "/")))


def match_findings(
    baseline: Baseline,
    findings: list[Finding],
    values: Mapping[str, str],
    *,
    wholly_scanned: Iterable[str] = (),
) -> BaselineMatch:
    """Split findings into new and accepted ones, and find stale entries.

    Args:
        baseline: the accepted entries.
        findings: the scan's findings.
        values: finding fingerprint -> flagged text (``ScanResult.values``).
        wholly_scanned: paths scanned whole, where an unmatched entry is known to be stale.

    Returns:
        The new findings (in their order), the number accepted, and the stale entries (sorted).
    """
    matched: set[BaselineEntry] = set()
    new: list[Finding] = []
    for finding in findings:
        entry = baseline.entry_for(finding, values.get(finding.fingerprint, ""))
        if entry in baseline.entries:
            matched.add(entry)
        else:
            new.append(finding)
    scanned = {normalise_path(path) for path in wholly_scanned}
    stale = sorted(e for e in baseline.entries - matched if e.path in scanned)
    return BaselineMatch(new, len(findings) - len(new), stale)


def dump_baseline(baseline: Baseline) -> str:
    """The baseline file's text: stable key order, one entry a line, sorted by path, kind, hash."""
    lines = [
        # Escaped where a terminal would act on a path (bidi, controls) or UTF-8 cannot hold it
        # (a non-UTF-8 file name's bytes); readable characters stay as they are.
        "    " + json_escaped(json.dumps({"kind": e.kind, "path": e.path, "hash": e.hash}, ensure_ascii=False))
        for e in sorted(baseline.entries)
    ]
    body = ",\n".join(lines)
    entries = f"[\n{body}\n  ]" if lines else "[]"
    return (
        "{\n"
        f'  "smscan_baseline": {FORMAT_VERSION},\n'
        f'  "salt": "{baseline.salt}",\n'
        f'  "entries": {entries}\n'
        "}\n"
    )


def load_baseline(path: Path) -> Baseline:
    """Read a baseline file.

    Raises:
        SmscanError: the file is missing, unreadable, not JSON or not a baseline (what is wrong
            and where is named).
    """
    try:
        data = json.loads(read_config_file(path).decode("utf-8"))
    except FileNotFoundError as exc:
        raise SmscanError(
            f"{path}: baseline file not found; create it with `smscan baseline -o {path}`"
        ) from exc
    except OSError as exc:
        raise SmscanError(f"{path}: cannot read the baseline: {exc.strerror}") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SmscanError(f"{path}: not a baseline file (not valid JSON)") from exc
    check_finite(data, source=str(path))
    if not isinstance(data, dict) or data.get("smscan_baseline") != FORMAT_VERSION:
        raise SmscanError(
            f"{path}: not an smscan baseline of format {FORMAT_VERSION} "
            "(expected a key 'smscan_baseline': 1)"
        )
    salt = data.get("salt")
    if not isinstance(salt, str) or len(salt) != _SALT_HEX or not _is_hex(salt):
        raise SmscanError(f"{path}: key 'salt' must be {_SALT_HEX} hex digits")
    raw_entries = data.get("entries")
    if not isinstance(raw_entries, list):
        raise SmscanError(f"{path}: key 'entries' must be a list")
    entries = set()
    for index, raw in enumerate(raw_entries):
        where = f"{path}: entries[{index}]"
        if not isinstance(raw, dict) or set(raw) != {"kind", "path", "hash"}:
            raise SmscanError(f"{where} must have exactly the keys kind, path and hash")
        if not all(isinstance(raw[key], str) and raw[key] for key in ("kind", "path", "hash")):
            raise SmscanError(f"{where}: kind, path and hash must be non-empty strings")
        if len(raw["hash"]) != _HASH_HEX or not _is_hex(raw["hash"]):
            raise SmscanError(f"{where}: key 'hash' must be {_HASH_HEX} hex digits")
        entries.add(BaselineEntry(normalise_path(raw["path"]), raw["kind"], raw["hash"]))
    return Baseline(salt, frozenset(entries))


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdef" for c in text)
