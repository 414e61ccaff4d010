"""SonarSource's secret rules (sonar-text): each rule's examples and whether each holds a secret.

The open part of SonarQube's secrets analyzer keeps one YAML file per provider under
``sonar-text-plugin/src/main/resources/org/sonar/plugins/secrets/configuration``. Every rule there
lists ``examples``: a ``text`` (a few lines of code or config), ``containsSecret`` and, for most that
hold one, the ``match`` the rule must report; some name the ``fileName`` the text is scanned under.

Read here:

- a credential: the ``match`` in the text; a match the text holds more than once is the one the
  rule's capture group finds, or, 16 characters or longer, every one (the same key twice); a short
  match held twice that the pattern does not place (``airflow:airflow``) is counted and dropped.
  An example that holds a secret but names no match gives the rule's capture group on the text (or
  its whole match), read with the ``regex`` module (Java's possessive quantifiers). A match that
  is a key's first line (``-----BEGIN RSA PRIVATE KEY-----``, ``PuTTY-User-Key-File-3:``,
  ``<RSAKeyValue>``) gives the key block to its end. A URL's user before the password is an
  identifier.
- a look-alike: the whole text of an example that holds no secret, unless it holds a value an
  example of the same rule calls a secret: then the source rejects it for its context (a file name
  its rule skips, a misspelt key name), not because the value is no credential; counted and dropped.

Degenerate values (``aaaa``) are dropped as in every source. The files include shared lists with
``${common/...}`` lines that the public repository does not hold; those lines are removed before the
YAML is read (they only add to the rules' filters, never to the examples).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Iterator

import yaml  # type: ignore[import-untyped]

from .examples import URL_USER_INFO, Example, Span, guess_path_hint, is_degenerate, whole_text_span
from .mirror import Mirror
from .rule_yaml import compile_pattern

FOLDER = "sonar-text-plugin/src/main/resources/org/sonar/plugins/secrets/configuration"
_INCLUDE_LINE = re.compile(r"^[ \t]*\$\{common/[^}\n]*\}[ \t]*$", re.M)
# a key's first line, and what ends the block it opens
_KEY_HEAD = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d+:|<RSAKeyValue>")
_KEY_END = re.compile(r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|Private-MAC: *\w+|</RSAKeyValue>")
_MANY_OCCURRENCES_FROM = 16  # a value this long held twice is the same key twice, not a word used twice


def sonar_text_examples(m: Mirror, *, counts: Counter[str]) -> Iterator[Example]:
    for path in m.list_files(FOLDER):
        if not path.endswith((".yaml", ".yml")) or path.count("/") != FOLDER.count("/") + 1:
            continue
        try:
            doc = yaml.safe_load(_INCLUDE_LINE.sub("", m.read(path)))
        except yaml.YAMLError:
            counts["unreadable_rule_file"] += 1
            continue
        provider = doc.get("provider") if isinstance(doc, dict) else None
        for rule in (provider or {}).get("rules") or []:
            yield from _rule_examples(rule, path=path, pin=m.pin.describe(), counts=counts)


def _rule_examples(rule: dict[str, Any], *, path: str, pin: str, counts: Counter[str]) -> Iterator[Example]:
    rid = str(rule.get("id", ""))
    meta = {"rule": rid, "rule_name": (rule.get("metadata") or {}).get("name"), "file": path, "pin": pin}
    pattern = compile_pattern(str(((rule.get("detection") or {}).get("matching") or {}).get("pattern") or ""))
    examples = [ex for ex in rule.get("examples") or [] if isinstance(ex, dict) and isinstance(ex.get("text"), str)]
    secret_values = {str(ex["match"]).strip() for ex in examples if ex.get("containsSecret") and ex.get("match")}
    for k, ex in enumerate(examples):
        text: str = ex["text"]
        hint = str(ex.get("fileName") or guess_path_hint(text))
        if not ex.get("containsSecret"):
            if any(value in text for value in secret_values):
                counts["look_alike_holding_a_secret_of_its_rule"] += 1
                continue
            counts["look_alikes"] += 1
            yield Example("sonar-text", f"{rid}#{k}", text, hint, negatives=whole_text_span(text, "negative-example"),
                          meta=meta)
            continue
        spans = _secret_spans(text, ex.get("match"), pattern, counts)
        if not spans:
            continue
        if any(is_degenerate(text[s:e]) for s, e in spans):
            counts["degenerate_value"] += 1
            continue
        counts["credentials"] += len(spans)
        yield Example("sonar-text", f"{rid}#{k}", text, hint, labels=tuple(Span(s, e, "rule-example") for s, e in spans),
                      identifiers=_url_users(text, spans), meta=meta)


def _secret_spans(text: str, match: object, pattern: Any, counts: Counter[str]) -> list[tuple[int, int]]:
    """Where the example's secret is: its ``match`` (placed by the rule where it occurs twice), else the
    rule's capture on it; a key's first line stands for its block."""
    captured = _captured(text, pattern)
    if not match:
        if captured is None:
            counts["example_not_matched" if pattern is not None else "pattern_not_compiled"] += 1
            return []
        counts["secret_read_from_the_pattern"] += 1
        return [_key_block(text, *captured)]
    value = str(match).strip()
    spans = [(m.start(), m.end()) for m in re.finditer(re.escape(value), text)]
    if not spans:
        counts["match_not_in_text"] += 1
        return []
    if len(spans) > 1 and captured in spans:
        spans = [captured]
    elif len(spans) > 1 and len(value) < _MANY_OCCURRENCES_FROM:
        counts["short_match_held_twice"] += 1
        return []
    return [_key_block(text, s, e) for s, e in spans]


def _captured(text: str, pattern: Any) -> tuple[int, int] | None:
    """The rule's first capture group on the text (its whole match where it has none)."""
    found = pattern.search(text) if pattern is not None else None
    if found is None:
        return None
    group = 1 if (pattern.groups or 0) >= 1 and found.start(1) >= 0 else 0
    return found.start(group), found.end(group)


def _key_block(text: str, start: int, end: int) -> tuple[int, int]:
    """A key's first line extended to the end of its block; any other value as it is."""
    if not _KEY_HEAD.fullmatch(text, start, end):
        return start, end
    closing = _KEY_END.search(text, end)
    return (start, closing.end()) if closing else (start, end)


def _url_users(text: str, spans: list[tuple[int, int]]) -> tuple[Span, ...]:
    """The user of a URL whose password is a labelled secret: an identifier, as in the other sources."""
    out = []
    for m in URL_USER_INFO.finditer(text):
        if (m.start("password"), m.end("password")) in spans and (m.start("user"), m.end("user")) not in spans:
            out.append(Span(m.start("user"), m.end("user"), "identifier"))
    return tuple(out)
