"""Examples and negative examples of the YAML rules of Nosey Parker, Titus and Kingfisher.

Each rule has a ``pattern`` (Rust/Hyperscan regex syntax; read here with the ``regex`` module),
``examples`` (text the rule must match) and often ``negative_examples`` (text it must not). The
credential in an example is the rule's capture group(s) on it; a negative example is a look-alike as
a whole. Rules the source marks as identifiers (a key id, a client id, a host) give identifier spans:
neither credentials nor look-alikes. An example the pattern does not match here, or whose value is
degenerate (``aaaa...``), is counted and dropped, never guessed.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Iterator

import regex  # type: ignore[import-untyped]  # Rust-style patterns (inline flags, POSIX classes); comes with transformers
import yaml  # type: ignore[import-untyped]

from .examples import Example, Span, guess_path_hint, is_degenerate, whole_text_span
from .mirror import Mirror

# a rule named for something that identifies rather than authenticates
_ID_NAME = re.compile(r"\b(?:ids?|identifier|user ?names?|users?|hosts?(?:names?)?|urls?|uris?|endpoints?|domains?|"
                      r"regions?|accounts?(?: ids?)?|org(?:ani[sz]ation)?s?|tenants?|projects?|emails?|app ids?|"
                      r"client ids?|sids?|subdomains?|instances?)\b", re.I)
_SECRET_NAME = re.compile(r"secret|token|password|passwd|private|credential|\bpat\b|api ?key|access ?key|\bkey\b|"
                          r"signing|webhook|session|cookie|jwt|bearer|auth", re.I)
_ID_GROUP = re.compile(r"^(?:id|.*_id|user(?:name)?|host|url|domain|region|account|org|tenant|email|client_?id|"
                       r"app_?id|key_?id|.*identifier.*)$", re.I)


def is_identifier_rule(rule: dict[str, Any], *, trust_categories: bool) -> bool:
    """Whether a rule finds identifiers rather than secrets.

    Nosey Parker and Titus categorise every rule (``secret`` vs ``identifier``); Kingfisher's categories
    are not reliable for this (its GitHub token rule says ``identifier``), so its rules are judged by
    name, and its hidden helper rules (``visible: false``) count as identifiers.
    """
    categories = set(rule.get("categories") or [])
    if trust_categories and categories & {"secret", "identifier"}:
        return "secret" not in categories
    if rule.get("visible") is False:
        return True
    name = str(rule.get("name", ""))
    return bool(_ID_NAME.search(name)) and not _SECRET_NAME.search(_ID_NAME.sub(" ", name))


def compile_pattern(pattern: str) -> regex.Pattern[str] | None:
    text = pattern.replace(r"\z", r"\Z")
    flags = 0
    # global inline flags may sit after blanks or each other; move them to the compile flags
    while True:
        m = regex.match(r"\s*\(\?([a-zA-Z]+)\)", text)
        if not m:
            break
        for c in m.group(1):
            flags |= {"i": regex.I, "x": regex.X, "s": regex.S, "m": regex.M, "u": 0}.get(c, 0)
        text = text[m.end():]
    try:
        return regex.compile(text, flags | regex.V0)
    except (regex.error, ValueError):
        return None


_LAST_WORD = re.compile(r"([A-Za-z][A-Za-z0-9_-]*)[^A-Za-z0-9]{0,6}$")
_ID_WORD = re.compile(r"(?:name|id|user|login|machine|host|server|endpoint|account|domain|uid|region|url|uri|"
                      r"database|db|source|email)$", re.I)
_SECRET_WORD = re.compile(r"pass|pwd|secret|key|token|auth|cred|sig|sas", re.I)
_ID_VALUE = re.compile(r"^(?:machine|login|user(?:name)?)\s|client[_-]?id|:$|^\w+\\\w+$", re.I)  # machine x, DOMAIN\\user
_HOST_OR_NUMBER = re.compile(r"^(?:[\w-]+(?:\.[\w-]+)+(?::\d+)?(?:/\S*)?|\d+|[\w.-]+:\d+)$")


def is_identifier_group(text: str, start: int, end: int, before_from: int) -> bool:
    """Whether one of several captured values is a user, a host or an id rather than the credential.

    Read from the last word between the previous value and this one (``AccountName=``, ``machine``,
    ``password``), then from ``://`` and ``@`` before it, then from its shape (a host name, a port).
    """
    between, value = text[before_from:start], text[start:end]
    if _ID_VALUE.search(value):
        return True
    word = _LAST_WORD.search(between)
    if word and _ID_WORD.search(word.group(1)):
        return True
    if _HOST_OR_NUMBER.match(value) and "." in value:
        return True
    if word and _SECRET_WORD.search(word.group(1)):
        return False
    if between.endswith(("://", "@")):
        return True
    return bool(_HOST_OR_NUMBER.match(text[start:end]))


def secret_spans(pattern: regex.Pattern[str], text: str) -> list[tuple[int, int, bool]]:
    """(start, end, is_identifier) of the values in every match of the rule on text.

    The capture groups are the values; no group: the whole match. Where a rule captures several, a
    named group named for an id, a user or a host is an identifier, and so is an unnamed one that
    ``is_identifier_group`` says holds one (``user`` in ``scheme://user:password@host``, ``host``,
    ``AccountName=...``, ``machine ...``).
    """
    out: set[tuple[int, int, bool]] = set()
    names = {i: n for n, i in pattern.groupindex.items()}
    for m in pattern.finditer(text):
        spans = sorted((m.start(i), m.end(i), names.get(i, "")) for i in range(1, (pattern.groups or 0) + 1)
                       if m.start(i) >= 0 and m.end(i) > m.start(i))
        if not spans:
            out.add((m.start(), m.end(), False))
            continue
        prev_end: int | None = None
        for s, e, name in spans:
            ident = bool(name and _ID_GROUP.match(name))
            if len(spans) > 1 and not ident:
                ident = is_identifier_group(text, s, e, max(0, s - 40) if prev_end is None else min(prev_end, s))
            out.add((s, e, ident))
            prev_end = e
    return sorted(out)


def rule_examples(mirror: Mirror, *, source: str, folder: str, trust_categories: bool, counts: Counter[str]) -> Iterator[Example]:
    """Every example and negative example of the rule files under ``folder`` in the pinned commit."""
    for path in mirror.list_files(folder):
        if not path.endswith((".yml", ".yaml")):
            continue
        try:
            doc = yaml.safe_load(mirror.read(path))
        except yaml.YAMLError:
            counts["unreadable_rule_file"] += 1
            continue
        for rule in (doc or {}).get("rules", []) if isinstance(doc, dict) else []:
            yield from _one_rule(rule, source=source, path=path, mirror=mirror,
                                 trust_categories=trust_categories, counts=counts)


def _one_rule(rule: dict[str, Any], *, source: str, path: str, mirror: Mirror, trust_categories: bool,
              counts: Counter[str]) -> Iterator[Example]:
    rid = str(rule.get("id", ""))
    pattern = compile_pattern(str(rule.get("pattern", "")))
    identifier = is_identifier_rule(rule, trust_categories=trust_categories)
    meta = {"rule": rid, "rule_name": rule.get("name"), "file": path, "pin": mirror.pin.describe()}
    for k, text in enumerate(rule.get("examples") or []):
        if not isinstance(text, str) or not text.strip():
            continue
        if pattern is None:
            counts["pattern_not_compiled"] += 1
            continue
        spans = secret_spans(pattern, text)
        if not spans:
            counts["example_not_matched"] += 1
            continue
        secrets = [(s, e) for s, e, ident in spans if not ident and not identifier]
        idents = tuple(Span(s, e, "identifier") for s, e, ident in spans if ident or identifier)
        if not secrets:
            counts["identifier_examples"] += 1
            yield Example(source, f"{rid}#ex{k}", text, guess_path_hint(text), identifiers=idents, meta=meta)
            continue
        if any(is_degenerate(text[s:e]) for s, e in secrets):
            counts["degenerate_value"] += 1
            continue
        counts["examples"] += 1
        yield Example(source, f"{rid}#ex{k}", text, guess_path_hint(text),
                      labels=tuple(Span(s, e, "rule-example") for s, e in secrets), identifiers=idents, meta=meta)
    for k, text in enumerate(rule.get("negative_examples") or []):
        if not isinstance(text, str) or not text.strip():
            continue
        if len(set(text.strip())) <= 2:  # '======', '//////': a separator, not a look-alike
            counts["trivial_negative"] += 1
            continue
        counts["negative_examples"] += 1
        yield Example(source, f"{rid}#neg{k}", text, guess_path_hint(text),
                      negatives=whole_text_span(text, "negative-example"), meta=meta)
