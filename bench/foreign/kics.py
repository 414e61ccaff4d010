"""KICS' passwords-and-secrets query tests: whole infrastructure files, and the lines its tests expect.

Checkmarx KICS (DataDog's fork, pinned here) keeps one query for hard-coded secrets in any
infrastructure file, ``assets/queries/common/passwords_and_secrets``. Its ``test`` folder holds
``positiveN.<ext>`` and ``negativeN.<ext>`` files (Terraform, Kubernetes and Ansible YAML,
CloudFormation JSON, Dockerfiles) and ``positive_expected_result.json``, which lists every
(file, line) the query must report. The test compares that list with what the query reports, so a
line not listed is one the query must not report.

Read here:

- a credential: the value on each expected line, read from the line's shape (``ARG name=value``,
  the whole quoted value of ``name = "..."``, ``name: value``, else as semgrep-rules' lines are: a
  URL's password, a lone long word); an expected line in a private-key or PuTTY key block (its
  first line, a header, or its first line of key material) gives the block. AWS access key ids
  (every prefix) and Google OAuth client ids are identifiers, as in the other sources.
- a look-alike: each line holding a value (a token of eight or more characters with a digit, or
  of twenty or more) that no expected result names, in a positive or a negative file, the way
  trivy's quiet lines are read; a line one or two characters off a value the same file reports is
  counted and dropped (it tests the query's bounds, not whether the line holds a credential).

An expected line whose value cannot be read, is a reference (``var.x``, ``${...}``,
``{{resolve:...}}``), a template or prose, or is degenerate (``aaaa``, ``****``), is counted and
dropped, and so is the whole file: where its secret is cannot be told, so none of its
quiet lines can be called a look-alike.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Iterator

from .examples import GOOGLE_CLIENT_ID, URL_USER_INFO, Example, Span, is_degenerate, line_starts, whole_file_example
from .mirror import Mirror
from .semgrep_rules import line_value, near_a_reported_value
from .trivy import look_alike_lines

FOLDER = "assets/queries/common/passwords_and_secrets/test"
EXPECTED = f"{FOLDER}/positive_expected_result.json"
_TEST_FILE = re.compile(r"^(?:positive|negative)\d+\.\w+$")
_KEY_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-\d+:")
_KEY_END = re.compile(r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|Private-MAC: \w+")
# `ARG name=value`, `ENV NAME=value`, `- NAME=value`: a value after `=` in a Dockerfile or a compose list
_ASSIGNED_WORD = re.compile(r"^\s*(?:ARG|ENV|-)\s+[\w.-]+=(?P<value>\S+)\s*$")
# `name = "value"`, `name: 'value'`, `"name": "value"`: the whole quoted string, spaces and all
_QUOTED_VALUE = re.compile(r"""^\s*["']?[\w.-]+["']?\s*[:=]\s*(?P<q>["'])(?P<value>[^"']+)(?P=q)\s*,?\s*$""")
# `name: value` in YAML, unquoted
_PLAIN_VALUE = re.compile(r"^\s*[\w.-]+:\s+(?P<value>[^\s'\"#{\[][^\s#]*)\s*$")
# CloudFormation's `SecretStringTemplate: '{"username":"admin"}'`: the generated secret is not in it
_TEMPLATE = re.compile(r"^\s*SecretStringTemplate\s*:")
# `Description: 'Used to create ... policy'`: prose after the name
_PROSE = re.compile(r"[:=]\s*[\"']?(?:[A-Za-z,.()-]+\s+){3,}")
_REFERENCE = re.compile(r"\{\{\s*resolve:|\$\{|^(?:var|local|data)\.|[?:]\s")
# every AWS key-id prefix (access key, temporary, certificate, context...): identifiers
_AWS_KEY_ID = re.compile(r"(?:AKIA|ASIA|ACCA|ASCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[0-9A-Z]{16}")


def kics_examples(m: Mirror, *, counts: Counter[str]) -> Iterator[Example]:
    meta_pin = m.pin.describe()
    expected: dict[str, set[int]] = {}
    for entry in json.loads(m.read(EXPECTED)):
        expected.setdefault(entry["fileName"], set()).add(int(entry["line"]))
    for path in m.list_files(FOLDER):
        name = path.rsplit("/", 1)[-1]
        if not _TEST_FILE.match(name):
            continue
        text = m.read(path)
        read = read_file(text, expected.get(name, set()), counts)
        if read is not None and (ex := whole_file_example("kics", name, text, read, {"file": path, "pin": meta_pin}, counts)):
            yield ex


def read_file(text: str, reported: set[int], counts: Counter[str]) -> tuple[list[Span], list[Span], list[Span]] | None:
    """(credential spans, identifier spans, look-alike line spans) of one test file, or None if a
    reported line's value cannot be placed (see the module docstring)."""
    lines = text.split("\n")
    starts = line_starts(text)
    labels: list[Span] = []
    identifiers: list[Span] = []
    quiet_exempt: set[int] = set(reported)
    values: list[str] = []
    for number in sorted(reported):
        if number > len(lines):
            counts["expected_line_past_end_of_file"] += 1
            return None
        block = _key_block(lines, number)
        if block is not None:
            first, last = block
            begin = starts[first - 1] + len(lines[first - 1]) - len(lines[first - 1].lstrip(" \t\"'"))
            end = starts[last - 1] + len(lines[last - 1].rstrip(" \t\"'"))
            quiet_exempt.update(range(first, last + 1))
            labels.append(Span(begin, end, "rule-example"))
            counts["credential_key_blocks"] += 1
            continue
        line = lines[number - 1]
        if _TEMPLATE.match(line) or _PROSE.search(line):
            counts["expected_line_holding_a_template_or_prose"] += 1
            return None
        found = line_credential(line)
        if found is None:
            counts["expected_line_without_a_value"] += 1
            return None
        (a, b), user = found
        value = line[a:b]
        if _REFERENCE.search(value):
            counts["expected_line_holding_a_reference"] += 1
            return None
        if is_degenerate(value):
            counts["degenerate_value"] += 1
            return None
        values.append(value)
        span = Span(starts[number - 1] + a, starts[number - 1] + b, "rule-example")
        if _AWS_KEY_ID.fullmatch(value) or GOOGLE_CLIENT_ID.match(value):
            identifiers.append(Span(span.start, span.end, "identifier"))
            counts["identifier_lines"] += 1
            continue
        labels.append(span)
        if user is not None:
            identifiers.append(Span(starts[number - 1] + user[0], starts[number - 1] + user[1], "identifier"))
    negatives = []
    for span in look_alike_lines(text, quiet_exempt):
        line = text[span.start:span.end]
        found = line_credential(line)
        if near_a_reported_value(line, found[0] if found else None, values):
            counts["look_alike_near_a_reported_value"] += 1
            continue
        negatives.append(span)
    return labels, identifiers, negatives


def line_credential(line: str) -> tuple[tuple[int, int], tuple[int, int] | None] | None:
    """((start, end) of the credential on a reported line, (start, end) of a URL's user or None), or None."""
    for shape in (_ASSIGNED_WORD, _QUOTED_VALUE, _PLAIN_VALUE):
        found = shape.match(line)
        if found and not URL_USER_INFO.search(found.group("value")):
            return found.span("value"), None
    return line_value(line)


def _key_block(lines: list[str], number: int) -> tuple[int, int] | None:
    """(first, last) 1-based line numbers of the key block a reported line opens or sits in (a header
    such as ``Proc-Type:``, or the first line of key material, is reported for its block), or None."""
    first = next((n for n in range(number, 0, -1) if _KEY_BEGIN.search(lines[n - 1])), None)
    if first is None:
        return None
    last = next((n for n in range(first, len(lines) + 1) if _KEY_END.search(lines[n - 1])), None)
    return None if last is None or last < number else (first, last)
