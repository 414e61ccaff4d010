"""Horusec's rule tests: the vulnerable and safe code samples of its secret rules, and the lines it reports.

Each engine of ZupIT/horusec (``internal/services/engines/<engine>/``) keeps its samples as Go raw
strings in ``samples.go`` (``SampleVulnerable<ID>``, ``SampleSafe<ID>``) and, in ``rules_test.go``,
the findings each vulnerable sample must give: the code of the line and its 1-based line number.
The secret rules are every rule of the ``leaks`` engine and, in the other engines, the rules
``rules.go`` names "Hard-coded credential(s)".

Read here:

- a credential: the value on each reported line of a vulnerable sample: a URL's password (its user
  is an identifier), a private-key block, else the last quoted string, else a ``name: value``
  value. A line with none (a URL without user info) is counted and dropped. Values of rules that
  report an identifier (client ids, AWS access key ids, Google OAuth client ids) are identifiers.
- a look-alike: the whole text of a secret rule's safe sample (the rule must report nothing there).

Degenerate values (``aaaa``) are dropped as in every source.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterator

from .examples import (AWS_KEY_ID, GOOGLE_CLIENT_ID, URL_USER_INFO, Example, Span, guess_path_hint, is_degenerate,
                       whole_text_span)
from .mirror import Mirror

ENGINES = "internal/services/engines"
_SAMPLE = re.compile(r"\b(Sample(?:Vulnerable|Safe)\w+)\s*=\s*`([^`]*)`")
_RULE = re.compile(r'\bID:\s*"(?P<id>[^"]+)".*?\bName:\s*"(?P<name>[^"]+)"', re.S)
_TEST_CASE = re.compile(r'\bName:\s*"(?P<id>[^"]+)"(?P<body>.*?)(?=\bName:\s*"|\Z)', re.S)
_SRC = re.compile(r"\bSrc:\s*(\w+)")
_FINDING = re.compile(r'\bCodeSample:\s*(?:`(?P<raw>[^`]*)`|"(?P<quoted>(?:[^"\\]|\\.)*)").*?\bLine:\s*(?P<line>\d+)',
                      re.S)
_HARD_CODED = re.compile(r"hard-?coded credential", re.I)
_IDENTIFIER_RULE = re.compile(r"\b(?:Client|Manager) ID\b")
_KEY_BLOCK = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?-----END [A-Z0-9 ]*PRIVATE KEY-----", re.S)
_QUOTED = re.compile(r"""'(?P<single>[^'\n]*)'|"(?P<double>[^"\n]*)\"""")
_NAMED = re.compile(r"^\s*[\w.-]+\s*[:=]\s*(?P<value>\S+?)\s*,?\s*$")


def horusec_examples(m: Mirror, *, counts: Counter[str]) -> Iterator[Example]:
    pin = m.pin.describe()
    engines = sorted({path.split("/")[3] for path in m.list_files(ENGINES) if path.count("/") == 4})
    for engine in engines:
        folder = f"{ENGINES}/{engine}"
        files = set(m.list_files(folder))
        if not {f"{folder}/samples.go", f"{folder}/rules_test.go", f"{folder}/rules.go"} <= files:
            continue
        names = {r["id"]: r["name"] for r in _RULE.finditer(m.read(f"{folder}/rules.go"))}
        secret_rules = {rid for rid, name in names.items() if engine == "leaks" or _HARD_CODED.search(name)}
        samples = dict(_SAMPLE.findall(m.read(f"{folder}/samples.go")))
        for case in _TEST_CASE.finditer(m.read(f"{folder}/rules_test.go")):
            rid, body = case.group("id"), case.group("body")
            src = _SRC.search(body)
            if rid not in secret_rules or src is None:
                continue
            text = samples.get(src.group(1))
            if text is None:
                counts["sample_not_a_raw_string"] += 1
                continue
            meta = {"rule": rid, "rule_name": names[rid], "file": f"{folder}/samples.go", "sample": src.group(1),
                    "pin": pin}
            hint = _path_hint(text)
            if src.group(1).startswith("SampleSafe"):
                if text.strip():
                    counts["look_alikes"] += 1
                    yield Example("horusec", f"{rid}#safe", text, hint,
                                  negatives=whole_text_span(text, "negative-example"), meta=meta)
                continue
            labels, identifiers = _reported_values(text, body, identifier_rule=bool(_IDENTIFIER_RULE.search(names[rid])),
                                                   url_is_value=not _HARD_CODED.search(names[rid]), counts=counts)
            if labels or identifiers:
                yield Example("horusec", f"{rid}#vulnerable", text, hint, labels=tuple(labels),
                              identifiers=tuple(identifiers), meta=meta)


def _reported_values(text: str, test_case: str, *, identifier_rule: bool, url_is_value: bool, counts: Counter[str]
                     ) -> tuple[list[Span], list[Span]]:
    """(credential spans, identifier spans) of the lines a vulnerable sample's test case expects; a
    vendor's rule reports a URL as its secret (a Slack webhook), a credentials rule only its password."""
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    labels: list[Span] = []
    identifiers: list[Span] = []
    for finding in _FINDING.finditer(test_case):
        code = finding.group("raw") if finding.group("raw") is not None else finding.group("quoted")
        number = int(finding.group("line"))
        if not 1 <= number <= len(starts):
            counts["finding_line_outside_the_sample"] += 1
            continue
        line_start = starts[number - 1]
        line = text[line_start:starts[number] - 1] if number < len(starts) else text[line_start:]
        if code.strip() not in line:
            counts["finding_code_not_on_its_line"] += 1
            continue
        found = line_value(line, url_is_value=url_is_value)
        if found is None:
            counts["finding_without_a_value"] += 1
            continue
        (start, end), user = found
        value = line[start:end]
        if user is not None:
            identifiers.append(Span(line_start + user[0], line_start + user[1], "identifier"))
        if identifier_rule or AWS_KEY_ID.fullmatch(value) or GOOGLE_CLIENT_ID.match(value):
            counts["identifiers"] += 1
            identifiers.append(Span(line_start + start, line_start + end, "identifier"))
        elif is_degenerate(value):
            counts["degenerate_value"] += 1
        else:
            counts["credentials"] += 1
            labels.append(Span(line_start + start, line_start + end, "rule-example"))
    return labels, identifiers


def _path_hint(text: str) -> str:
    if "<?php" in text:
        return "config.php"
    if re.search(r"^services:", text, re.M):
        return "docker-compose.yml"
    return guess_path_hint(text)


def line_value(line: str, *, url_is_value: bool) -> tuple[tuple[int, int], tuple[int, int] | None] | None:
    """((start, end) of the value a reported line holds, (start, end) of a URL's user or None), or None."""
    url = URL_USER_INFO.search(line)
    if url:
        return url.span("password"), url.span("user")
    block = _KEY_BLOCK.search(line)
    if block:
        return block.span(), None
    quoted = list(_QUOTED.finditer(line))
    if quoted:
        last = quoted[-1]
        group = "single" if last.group("single") is not None else "double"
        if last.end(group) == last.start(group) or "://" in last.group(group) and not url_is_value:
            return None
        return last.span(group), None
    named = _NAMED.match(line)
    return (named.span("value"), None) if named else None
