"""Gitleaks' rule true/false positives, read from the Go source of its config generator.

Every rule in ``cmd/generate/config/rules/*.go`` is a function that builds a ``config.Rule`` and
checks it with ``tps`` (text the rule must match) and ``fps`` (text it must not). Only the list
elements that are one plain string literal are taken; those built at run time (random secrets from
``secrets.NewSecret``, ``GenerateSampleSecrets`` templates, concatenations) are counted and skipped.
A false positive is a look-alike as a whole. The credential in a true positive is where the rule's
secret pattern matches in it (the capture group of a ``regexp.MustCompile`` rule, the secret regex
given to ``GenerateUniqueTokenRegex``/``GenerateSemiGenericRegex``); a true positive it does not
match here is dropped.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Iterator

import regex  # type: ignore[import-untyped]  # Rust-style patterns (inline flags, POSIX classes); comes with transformers

from .examples import Example, Span, guess_path_hint, is_degenerate, whole_text_span
from .mirror import Mirror

RULES_FOLDER = "cmd/generate/config/rules"

_TOKEN = re.compile(r'`[^`]*`|"(?:\\.|[^"\\\n])*"|//[^\n]*|/\*.*?\*/|[A-Za-z_][\w.]*|:=|\S', re.S)

# the character-class helpers of cmd/generate/config/utils/patterns.go, by name: (class, needs a size)
_HELPERS = {
    "utils.Numeric": "[0-9]", "utils.Hex": "[a-f0-9]", "utils.AlphaNumeric": "[a-z0-9]",
    "utils.AlphaNumericExtendedShort": "[a-z0-9_-]", "utils.AlphaNumericExtended": r"[a-z0-9=_\-]",
    "utils.AlphaNumericExtendedLong": r"[a-z0-9\/=_\+\-]",
}
_HEX_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def tokens(src: str) -> list[str]:
    return [t for t in _TOKEN.findall(src) if not t.startswith(("//", "/*"))]


def literal(tok: str) -> str | None:
    if tok.startswith("`"):
        return tok[1:-1]
    if tok.startswith('"'):
        try:
            return str(json.loads(tok))
        except json.JSONDecodeError:
            return None
    return None


def _group(toks: list[str], i: int) -> tuple[list[list[str]], int]:
    """Top-level comma-separated elements of the bracketed list opening at toks[i]; index after it."""
    close = {"(": ")", "{": "}", "[": "]"}
    depth = 0
    elems: list[list[str]] = []
    cur: list[str] = []
    j = i
    while j < len(toks):
        t = toks[j]
        if t in close:
            depth += 1
            if depth == 1:
                j += 1
                continue
        elif t in close.values():
            depth -= 1
            if depth == 0:
                if cur:
                    elems.append(cur)
                return elems, j + 1
        if depth == 1 and t == ",":
            elems.append(cur)
            cur = []
        else:
            cur.append(t)
        j += 1
    return elems, j


def string_expr(elem: list[str]) -> str | None:
    """The value of a Go string expression of literals and character-class helpers joined by ``+``."""
    out, k = [], 0
    while k < len(elem):
        t = elem[k]
        lit = literal(t)
        if lit is not None:
            out.append(lit)
            k += 1
        elif t in _HELPERS and k + 1 < len(elem) and elem[k + 1] == "(":
            args, nxt = _group(elem, k + 1)
            size = literal(args[0][0]) if len(args) == 1 and len(args[0]) == 1 else None
            if size is None:
                return None
            out.append(f"{_HELPERS[t]}{{{size}}}")
            k = nxt
        elif t == "utils.Hex8_4_4_4_12" and elem[k + 1:k + 3] == ["(", ")"]:
            out.append(_HEX_UUID)
            k += 3
        else:
            return None
        if k < len(elem):
            if elem[k] != "+":
                return None
            k += 1
    return "".join(out)


def secret_pattern(body: list[str]) -> tuple[str, bool, bool] | None:
    """(regex, case-insensitive, whole-rule regex) of a rule function, or None where it is built otherwise."""
    for i, t in enumerate(body):
        if t != "Regex" or i + 2 >= len(body) or body[i + 1] != ":":
            continue
        call = body[i + 2]
        args, _ = _group(body, i + 3)
        if call == "regexp.MustCompile" and len(args) == 1:
            rx = string_expr(args[0])
            return (rx, False, True) if rx is not None else None
        if call == "utils.GenerateUniqueTokenRegex" and len(args) == 2:
            rx = string_expr(args[0])
            return (rx, args[1] == ["true"], False) if rx is not None else None
        if call == "utils.GenerateSemiGenericRegex" and len(args) == 3:
            rx = string_expr(args[1])
            return (rx, args[2] == ["true"], False) if rx is not None else None
        return None
    return None


def _compile(rx: str, ignore_case: bool) -> regex.Pattern[str] | None:
    try:
        return regex.compile(rx.replace(r"\z", r"\Z"), (regex.I if ignore_case else 0) | regex.V0)
    except (regex.error, ValueError):
        return None


def label(text: str, pattern: regex.Pattern[str], whole_rule: bool) -> tuple[int, int] | None:
    """Where the secret lies in a true positive: capture group 1 of a whole-rule regex, else the
    longest (then rightmost) match of the secret regex that no letter or digit touches."""
    if whole_rule:
        m = pattern.search(text)
        if not m:
            return None
        g = 1 if pattern.groups else 0
        return (m.start(g), m.end(g)) if m.end(g) > m.start(g) else None
    best: tuple[int, int] | None = None
    for m in pattern.finditer(text, overlapped=True):
        s, e = m.span()
        if e <= s or (s > 0 and text[s - 1].isalnum()) or (e < len(text) and text[e].isalnum()):
            continue
        if best is None or (e - s, s) > (best[1] - best[0], best[0]):
            best = (s, e)
    return best


def functions(src: str) -> Iterator[tuple[str, list[str]]]:
    """(name, body tokens) of each top-level ``func`` in a Go file."""
    toks = tokens(src)
    i = 0
    while i < len(toks):
        if toks[i] == "func" and i + 1 < len(toks) and re.match(r"[A-Za-z_]\w*$", toks[i + 1]):
            name = toks[i + 1]
            j = i + 2
            while j < len(toks) and toks[j] != "{":
                j += 1
            _, end = _group(toks, j)
            yield name, toks[j:end]
            i = end
        else:
            i += 1


def cases(body: list[str], which: str, counts: Counter[str]) -> Iterator[str]:
    """The plain string literals of the ``tps``/``fps`` lists of a rule function."""
    for i, t in enumerate(body):
        if t != which or i + 2 >= len(body):
            continue
        if body[i + 1] == ":=" and body[i + 2] == "[" and body[i + 3:i + 6] == ["]", "string", "{"]:
            elems, _ = _group(body, i + 5)
        elif body[i + 1] == "=" and body[i + 2] == "append" and body[i + 3] == "(":
            elems, _ = _group(body, i + 3)
            elems = elems[1:]  # the list appended to
        else:
            continue
        for e in elems:
            lit = literal(e[0]) if len(e) == 1 else None
            if lit is None:
                counts[f"{which}_built_at_run_time"] += 1
            else:
                yield lit


def gitleaks_examples(mirror: Mirror, *, counts: Counter[str], folder: str = RULES_FOLDER) -> Iterator[Example]:
    for path in mirror.list_files(folder):
        if not path.endswith(".go") or path.endswith("_test.go"):
            continue
        for name, body in functions(mirror.read(path)):
            if "tps" not in body and "fps" not in body:
                continue
            meta = {"rule": name, "file": path, "pin": mirror.pin.describe()}
            found = secret_pattern(body)
            pattern = _compile(found[0], found[1]) if found else None
            for k, text in enumerate(cases(body, "tps", counts)):
                if pattern is None or found is None:
                    counts["tp_rule_pattern_unknown"] += 1
                    continue
                span = label(text, pattern, found[2])
                if span is None:
                    counts["tp_not_matched"] += 1
                    continue
                if is_degenerate(text[span[0]:span[1]]):
                    counts["degenerate_value"] += 1
                    continue
                counts["true_positives"] += 1
                yield Example("gitleaks", f"{name}#tp{k}", text, guess_path_hint(text),
                              labels=(Span(span[0], span[1], "rule-example"),), meta=meta)
            for k, text in enumerate(cases(body, "fps", counts)):
                if not text.strip() or len(set(text.strip())) <= 2:
                    counts["trivial_negative"] += 1
                    continue
                counts["false_positives"] += 1
                yield Example("gitleaks", f"{name}#fp{k}", text, guess_path_hint(text),
                              negatives=whole_text_span(text, "negative-example"), meta=meta)
