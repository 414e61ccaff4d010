"""detect-secrets' plugin test tables: the lines its tests say a plugin must flag, and those it must not.

``tests/plugins/*_test.py`` of Yelp/detect-secrets hold parametrize tables of pairs: ``(line, True|False)``
(should the plugin flag it) and ``(line, secret|None)`` (the keyword plugin: which value it must find).
The pairs are read with ``ast``, evaluating only string constants, module-level string names, ``+``,
``str.format`` and f-strings over those; anything else (random or base64-built lines) is skipped.
The credential in a ``(line, secret)`` pair is that value in the line. In a ``(line, True)`` pair it is the
password of a ``scheme://user:password@`` URL, else the last run of value characters (8 or more, not
a lower-case word); a line with no such run is dropped. A negative that holds a value the same file flags elsewhere
(the keyword plugin's file-type cases) is dropped too. The public-IP plugin's tests are left out (an
address is not a credential). ``False``/``None`` pairs are look-alikes as a whole.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from typing import Any, Iterator

from .examples import Example, Span, guess_path_hint, is_degenerate, whole_text_span
from .mirror import Mirror

TESTS_FOLDER = "tests/plugins"
_URL_PASSWORD = re.compile(r"://[^:/\s@]+:([^@\s/]+)@")
_VALUE_RUN = re.compile(r"[^\s'\"=:,;(){}<>\[\]`]{8,}")


class _NotConstant(Exception):
    pass


def evaluate(node: ast.AST, names: dict[str, Any]) -> Any:
    """The value of a string expression built from constants and known names, else _NotConstant."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, bool)) or isinstance(node, ast.Constant) and node.value is None:
        return node.value
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = evaluate(node.left, names), evaluate(node.right, names)
        if isinstance(left, str) and isinstance(right, str):
            return left + right
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format"):
        template = evaluate(node.func.value, names)
        args = [evaluate(a, names) for a in node.args]
        kwargs = {k.arg: evaluate(k.value, names) for k in node.keywords if k.arg}
        if isinstance(template, str):
            try:
                return template.format(*args, **kwargs)
            except (IndexError, KeyError, ValueError):
                raise _NotConstant from None
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            elif isinstance(v, ast.FormattedValue) and v.format_spec is None and v.conversion == -1:
                parts.append(str(evaluate(v.value, names)))
            else:
                raise _NotConstant
        return "".join(parts)
    raise _NotConstant


def pairs(src: str) -> Iterator[tuple[str, Any]]:
    """(line, expectation) of every two-element tuple of the module that evaluates to a pair."""
    tree = ast.parse(src)
    names: dict[str, Any] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            try:
                value = evaluate(stmt.value, names)
            except _NotConstant:
                continue
            if isinstance(value, str):
                names[stmt.targets[0].id] = value
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Tuple) and len(node.elts) == 2):
            continue
        try:
            line, expect = evaluate(node.elts[0], names), evaluate(node.elts[1], names)
        except _NotConstant:
            continue
        if isinstance(line, str) and line.strip() and (isinstance(expect, (bool, str)) or expect is None):
            if isinstance(expect, str) and expect not in line:
                continue  # a (template, value) pair of another shape
            if "{secret}" in line or "{non_secret}" in line:
                continue
            yield line, expect


def value_span(line: str, expect: Any) -> tuple[int, int] | None:
    if isinstance(expect, str):
        k = line.find(expect)
        return (k, k + len(expect)) if expect and k >= 0 else None
    m = _URL_PASSWORD.search(line)
    if m:
        return m.span(1)
    runs = [m.span() for m in _VALUE_RUN.finditer(line) if not m.group().isalpha() or not m.group().islower()]
    if not runs:
        return None
    start, end = runs[-1]
    cut = line.rfind("/", start, end)  # a value at the end of a URL path: the last segment
    return (cut + 1, end) if cut >= 0 and end - cut - 1 >= 8 else (start, end)


def detect_secrets_examples(mirror: Mirror, *, counts: Counter[str], folder: str = TESTS_FOLDER) -> Iterator[Example]:
    seen: set[str] = set()
    for path in mirror.list_files(folder):
        if not path.endswith("_test.py") or path.endswith("ip_public_test.py"):
            continue
        meta = {"rule": path.rsplit("/", 1)[-1], "file": path, "pin": mirror.pin.describe()}
        found = list(pairs(mirror.read(path)))
        positives = {e if isinstance(e, str) else "" for _, e in found} - {""}
        for k, (line, expect) in enumerate(found):
            if line in seen:
                counts["repeated_line"] += 1
                continue
            seen.add(line)
            name = f"{meta['rule']}#{k}"
            if expect is False or expect is None:
                if any(v in line for v in positives):
                    # the keyword plugin's "not in this file type" cases: the value is a credential all the same
                    counts["negative_holding_a_positive_value"] += 1
                    continue
                counts["negative_examples"] += 1
                yield Example("detect-secrets", name, line, guess_path_hint(line),
                              negatives=whole_text_span(line, "negative-example"), meta=meta)
                continue
            span = value_span(line, expect)
            if span is None:
                counts["positive_without_value"] += 1
                continue
            if is_degenerate(line[span[0]:span[1]]):
                counts["degenerate_value"] += 1
                continue
            counts["examples"] += 1
            yield Example("detect-secrets", name, line, guess_path_hint(line),
                          labels=(Span(span[0], span[1], "test-case"),), meta=meta)
