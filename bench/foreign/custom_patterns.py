"""GitHub's secret-scanning custom patterns: each pattern's expected matches in its folder's test files.

advanced-security/secret-scanning-custom-patterns keeps one folder a theme (``configs``,
``database``, ``generic``, ``jwt``, ``rsa``, ``uri``, ``vendors``, ...), each with a
``patterns.yml`` and the test files its patterns run on. A pattern lists ``expected`` matches
(a test file's name and the byte offsets of the match) and one or more ``test`` strings (``data``
with ``start_offset``/``end_offset``, ``-1`` or none for its end; no offsets for the whole data).
The repository's test script fails when a pattern matches anything its ``expected`` does not list.

Read here:

- a credential: each expected match of a pattern for a secret (offsets are bytes: files hold
  non-breaking spaces), one example a test file; each test string, one example of its own.
- a look-alike: the matches of patterns that find things that are no secret (e-mail addresses,
  internal URLs, IPv4 addresses, a hostname, UUIDs, SSH public keys, action references, a
  registry's typo), but for one holding a credential's match (a URL with its password); and each
  line holding a value in a test file named as one (``not_okta.txt``). The other quiet lines are
  not read as look-alikes: a folder's patterns cover few formats, and its test files hold
  credentials no pattern of the folder expects (``configs/example.json``'s password).

Left out: ``pii`` (card numbers and IBANs: personal data, not credentials), ``common`` (its test
file is a list of common passwords, one a line, with nothing around them), ``password_store``
(a whole JSON record as one match), and a match that does not fall inside its file.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from typing import Any, Iterator

import yaml  # type: ignore[import-untyped]

from .examples import Example, Span, guess_path_hint, is_degenerate
from .mirror import Mirror
from .trivy import look_alike_lines

_LEFT_OUT_FOLDERS = frozenset({"pii", "common", "password_store"})
# Patterns that find things that are not secrets: their matches are look-alikes.
_NOT_SECRET_TYPES = frozenset({
    "hardcoded_internal_emails", "hardcoded_internal_urls", "any_ipv4_addresses", "ghcr_typos",
    "azure_sql_connection_string", "ssh_public_key", "uuids", "github_actions_sha_checker",
})
_LOOK_ALIKE_FILE_PREFIX = "not_"
_NOT_TEST_FILES = frozenset({"README.md", "patterns.yml"})


def custom_pattern_examples(m: Mirror, *, counts: Counter[str]) -> Iterator[Example]:
    meta_pin = m.pin.describe()
    files = [p for p in m.list_files(".") if "/__snapshots__/" not in p]
    for patterns_file in [p for p in files if p.endswith("/patterns.yml")]:
        folder = posixpath.dirname(patterns_file)
        if folder.split("/", 1)[0] in _LEFT_OUT_FOLDERS:
            counts["pattern_file_of_a_left_out_folder"] += 1
            continue
        patterns = (yaml.safe_load(m.read(patterns_file)) or {}).get("patterns") or []
        by_file: dict[str, list[tuple[int, int, bool]]] = {}
        for pattern in patterns:
            not_secret = pattern.get("type") in _NOT_SECRET_TYPES
            for expected in pattern.get("expected") or []:
                by_file.setdefault(posixpath.join(folder, expected["name"]), []).append(
                    (int(expected["start_offset"]), int(expected["end_offset"]), not_secret))
            yield from _test_strings(pattern, folder, not_secret, meta_pin, counts)
        for path in sorted(by_file):
            ex = _test_file(m, path, by_file[path], meta_pin, counts)
            if ex is not None:
                yield ex
        for path in files:
            name = posixpath.basename(path)
            if posixpath.dirname(path) == folder and name.startswith(_LOOK_ALIKE_FILE_PREFIX) and path not in by_file:
                text = m.read(path)
                negatives = tuple(look_alike_lines(text, set()))
                counts["look_alike_lines"] += len(negatives)
                yield Example("custom-patterns", path, text, name, negatives=negatives, meta={"file": path, "pin": meta_pin})


def _test_file(m: Mirror, path: str, matches: list[tuple[int, int, bool]], meta_pin: str,
               counts: Counter[str]) -> Example | None:
    """One test file with its expected matches (``not_secret`` for a look-alike's), offsets read as bytes."""
    if posixpath.basename(path) in _NOT_TEST_FILES:
        return None
    data = m.read(path).encode("utf-8")
    text = data.decode("utf-8")
    labels: set[tuple[int, int]] = set()
    not_secrets: set[tuple[int, int]] = set()
    for start, end, not_secret in matches:
        if not 0 <= start < end <= len(data):
            counts["match_outside_its_file"] += 1
            continue
        span = _char_span(data, start, end)
        if not_secret:
            not_secrets.add(span)
        elif is_degenerate(text[span[0]:span[1]]):
            counts["degenerate_value"] += 1
        else:
            labels.add(span)
    holding = {n for n in not_secrets if any(n[0] <= a and b <= n[1] for a, b in labels)}
    counts["not_secret_match_holding_a_credential"] += len(holding)
    not_secrets -= holding
    counts["credentials"] += len(labels)
    counts["look_alikes"] += len(not_secrets)
    if not labels and not not_secrets:
        return None
    return Example("custom-patterns", path, text, posixpath.basename(path),
                   labels=tuple(Span(a, b, "rule-example") for a, b in sorted(labels)),
                   negatives=tuple(Span(a, b, "negative-example") for a, b in sorted(not_secrets)),
                   meta={"file": path, "pin": meta_pin})


def _test_strings(pattern: dict[str, Any], folder: str, not_secret: bool, meta_pin: str,
                  counts: Counter[str]) -> Iterator[Example]:
    """A pattern's test strings, each an example with its match."""
    tests = pattern.get("test") or []
    for k, test in enumerate(tests if isinstance(tests, list) else [tests]):
        data = test.get("data")
        if not isinstance(data, str) or not data.strip():
            continue
        start, end = test.get("start_offset"), test.get("end_offset")
        if start is None and end is None:
            start, end = len(data) - len(data.lstrip()), len(data.rstrip())
        raw = data.encode("utf-8")
        start = int(start or 0)
        end = len(raw) if end is None or int(end) < 0 else int(end)
        if not 0 <= start < end <= len(raw):
            counts["test_match_outside_its_data"] += 1
            continue
        span = _char_span(raw, start, end)
        ex_id = f"{folder}/{pattern.get('type', 'pattern')}#test{k + 1}"
        meta = {"file": f"{folder}/patterns.yml", "pin": meta_pin}
        text = data if data.endswith("\n") else data + "\n"
        if not_secret:
            counts["look_alike_test_strings"] += 1
            yield Example("custom-patterns", ex_id, text, guess_path_hint(text),
                          negatives=(Span(*span, "negative-example"),), meta=meta)
        elif is_degenerate(text[span[0]:span[1]]):
            counts["degenerate_value"] += 1
        else:
            counts["credential_test_strings"] += 1
            yield Example("custom-patterns", ex_id, text, guess_path_hint(text), labels=(Span(*span, "rule-example"),),
                          meta=meta)


def _char_span(raw: bytes, start: int, end: int) -> tuple[int, int]:
    """The character span of UTF-8 bytes ``raw[start:end]`` (the patterns' offsets count bytes)."""
    return len(raw[:start].decode("utf-8", errors="ignore")), len(raw[:end].decode("utf-8", errors="ignore"))
