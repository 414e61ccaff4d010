"""Trivy's secret-scanner tests: whole files, and where its tests say each secret is.

Aqua's trivy keeps one small file a secret kind under ``pkg/fanal/secret/testdata`` (AWS,
GitHub, GitLab-style tokens, Azure keys and connection strings, OpenAI keys, Hugging Face,
Grafana, Private Packagist, Docker config, Maven ``settings.xml``, JWTs, private keys, a token
inside minified JavaScript...). ``scanner_test.go`` runs the scanner on each file and lists every
finding it must report, with the reported lines copied out and the secret masked by ``*``; that
mask says, character for character, where the secret is.

Read here, for the test cases that run trivy's own rules (``skip-test.yaml`` or ``config.yaml``,
which add no rule of their own beyond the custom ``rule1``):

- a credential: each masked run on a reported line (the lines of one multi-line finding, such as
  a private key, joined into one span), for the findings of trivy's built-in rules. An access key
  id (AWS ``AKIA...``, Alibaba ``LTAI...``) is an identifier, as in the other sources.
- a look-alike: each line holding a value (a token of eight or more characters with a digit, or
  of twenty or more) in a file its test expects nothing of (invalid AWS and OpenAI keys, secrets wrapped inside
  longer words, encrypted or templated Maven passwords), and such lines with no finding in a
  file whose findings all come from built-in rules.

Left out: the cases of its configuration tests (custom rules, allow rules, keywords, severity),
files it skips by path (``example-secret.txt``, Markdown), the streaming tests (in-memory inputs),
and findings whose masked line does not match the file (a line shortened for display).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterator

from .examples import AWS_KEY_ID, Example, Span, line_starts, whole_file_example
from .mirror import Mirror

FOLDER = "pkg/fanal/secret"
TESTS = f"{FOLDER}/scanner_test.go"
# Configs that run trivy's built-in rules as shipped (config.yaml adds one custom rule, `rule1`).
_BUILTIN_CONFIGS = ("skip-test.yaml", "config.yaml")
# Files trivy's default allow rules skip by path: their empty result says nothing of their text.
_SKIPPED_BY_PATH = re.compile(r"example|\.md$")
_IDENTIFIER_RULES = frozenset({"aws-access-key-id", "alibaba-access-key-id"})
_TEST_FUNCTION = re.compile(r"^func (Test\w+)\(", re.M)
_CASE_START = re.compile(r"\n\t\t\{\n\t\t\tname:")
_FINDING_VAR = re.compile(r"\b(want\w+)\s*:=\s*types\.SecretFinding\{")
_FIELD = re.compile(r"^\s*(RuleID|StartLine|EndLine|Match):\s*(.+?),?\s*$", re.M)
_CODE_LINES = re.compile(r"Lines:\s*\[\]types\.Line\{")
# `masked := strings.Repeat("*", 84)`: a string the findings below name.
_STRING_VAR = re.compile(r"^\s*(\w+)\s*:=\s*((?:\"|`|strings\.Repeat\().*)$", re.M)
# `wantX := openAIFinding("rule-id", "Title", "SEVERITY", 56)`: a helper whose finding masks line 1 to that length.
_WHOLE_LINE_HELPER = re.compile(r'\b(want\w+)\s*:=\s*\w+Finding\("([^"]+)",\s*"[^"]*",\s*"[^"]*",\s*(\d+)\)')
_GO_PART = re.compile(r'\s*(?:"(?P<quoted>(?:[^"\\]|\\.)*)"|`(?P<raw>[^`]*)`'
                      r'|strings\.Repeat\("(?P<repeat>[^"\\]*)",\s*(?P<times>\d+)\))\s*(?:\+|$)')
_MASK_RUN = re.compile(r"\*+")
_VALUE_TOKEN = re.compile(r"""[^\s"'<>:=,;()\[\]{}]{8,}""")


@dataclass(frozen=True, slots=True)
class Finding:
    rule_id: str
    start_line: int
    end_line: int
    match: str
    causes: tuple[tuple[int, str], ...]  # (1-based line number, the line as reported, secret masked)


@dataclass(frozen=True, slots=True)
class Case:
    config: str
    path: str
    findings: tuple[Finding, ...]


def trivy_examples(m: Mirror, *, counts: Counter[str]) -> Iterator[Example]:
    meta_pin = m.pin.describe()
    custom_rules = _custom_rule_ids(m)
    by_path: dict[str, list[Case]] = {}
    for case in read_cases(m.read(TESTS)):
        if case.config not in _BUILTIN_CONFIGS or _SKIPPED_BY_PATH.search(case.path):
            counts["case_not_of_builtin_rules"] += 1
            continue
        by_path.setdefault(case.path, []).append(case)
    present = set(m.list_files(f"{FOLDER}/testdata"))
    for path in sorted(by_path):
        if f"{FOLDER}/testdata/{path}" not in present:
            counts["file_missing"] += 1
            continue
        text = m.read(f"{FOLDER}/testdata/{path}")
        findings = [f for case in by_path[path] for f in case.findings]
        spans = read_file(text, findings, custom_rules, counts)
        name = path.rsplit("/", 1)[-1]
        if ex := whole_file_example("trivy", name, text, spans, {"file": f"{FOLDER}/testdata/{path}", "pin": meta_pin}, counts):
            yield ex


def read_file(text: str, findings: list[Finding], custom_rules: set[str], counts: Counter[str]
              ) -> tuple[list[Span], list[Span], list[Span]]:
    """(credential spans, identifier spans, look-alike line spans) of one test file (see the module docstring)."""
    # A custom rule's findings say nothing of the built-in rules' view of the file's other lines.
    quiet_lines_are_negatives = not any(f.rule_id in custom_rules for f in findings)
    labels: dict[tuple[int, int], str] = {}
    identifiers: set[tuple[int, int]] = set()
    reported_lines: set[int] = set()
    for finding in findings:
        if finding.rule_id in custom_rules:
            continue
        reported_lines.update(range(finding.start_line, finding.end_line + 1))
        reported_lines.update(n for n, _ in finding.causes)
        spans = finding_spans(text, finding)
        if not spans:
            # Its secret is somewhere in the file: no quiet line of it can be called a look-alike.
            counts["finding_not_matched_in_file"] += 1
            quiet_lines_are_negatives = False
            continue
        for span in spans:
            if finding.rule_id in _IDENTIFIER_RULES:
                identifiers.add(span)
            else:
                labels[span] = "rule-example"
    for match in AWS_KEY_ID.finditer(text):
        labels.pop(match.span(), None)
        identifiers.add(match.span())
    negatives = look_alike_lines(text, reported_lines) if quiet_lines_are_negatives else []
    negatives = [n for n in negatives if not any(n.start <= a < n.end for a, _ in identifiers)]
    return ([Span(a, b, c) for (a, b), c in sorted(labels.items())],
            [Span(a, b, "identifier") for a, b in sorted(identifiers)], negatives)


def read_cases(go_source: str) -> list[Case]:
    """The cases of ``TestSecretScanner``: config file, input file and the findings each must give."""
    body = _function_body(go_source, "TestSecretScanner")
    strings = {}
    for m in _STRING_VAR.finditer(body):
        try:
            strings[m.group(1)] = go_string(m.group(2))
        except ValueError:
            continue
    named = {m.group(1): _finding(_braced(body, m.end() - 1), strings) for m in _FINDING_VAR.finditer(body)}
    for m in _WHOLE_LINE_HELPER.finditer(body):
        masked = "*" * int(m.group(3))
        named[m.group(1)] = Finding(m.group(2), 1, 1, masked, ((1, masked),))
    table_at = body.find("tests := []struct")
    cases = []
    chunks = _CASE_START.split(body[table_at:])[1:]
    for chunk in chunks:
        config = re.search(r'configPath:\s*[^\n]*"([^"/]+\.yaml)"', chunk)
        path = re.search(r'inputFilePath:\s*(?:filepath\.Join\("testdata",\s*"([^"]+)"\)|"testdata/([^"]+)")', chunk)
        if not config or not path:
            continue
        want = chunk[chunk.find("want:"):]
        findings = [named[ref] for ref in re.findall(r"\b(want[A-Z]\w*)\b", want) if ref in named]
        findings += [_finding(block, strings) for block in _inline_findings(want)]
        cases.append(Case(config.group(1), path.group(1) or path.group(2), tuple(findings)))
    return cases


def finding_spans(text: str, finding: Finding) -> list[tuple[int, int]]:
    """Character spans of a finding's secret in ``text``, read off its masked lines; [] if they do not match."""
    starts = line_starts(text)
    runs: list[tuple[int, int]] = []
    causes = finding.causes or ((finding.start_line, finding.match),)
    for number, masked in causes:
        if not masked or number > len(starts):
            return []
        line_start = starts[number - 1]
        line = text[line_start:].split("\n", 1)[0].rstrip("\r")
        offset = _masked_offset(line, masked)
        if offset is None:
            return []
        runs.extend((line_start + offset + r.start(), line_start + offset + r.end()) for r in _MASK_RUN.finditer(masked))
    if len(causes) > 1 and runs:
        return [(runs[0][0], runs[-1][1])]
    return runs


def look_alike_lines(text: str, reported_lines: set[int]) -> list[Span]:
    """Lines holding a value (a token that is not a plain word) and no finding, each as a whole."""
    out = []
    position = 0
    for number, line in enumerate(text.split("\n"), start=1):
        start = position + len(line) - len(line.lstrip())
        end = position + len(line.rstrip())
        position += len(line) + 1
        if number in reported_lines or not any(_not_a_word(t) for t in _VALUE_TOKEN.findall(line)):
            continue
        out.append(Span(start, end, "negative-example"))
    return out


def _not_a_word(token: str) -> bool:
    """A token with a digit, or of twenty characters or more: not a word or a tag's name."""
    return len(token) >= 20 or any(c.isdigit() for c in token)


def _masked_offset(line: str, masked: str) -> int | None:
    """Where the masked copy sits in the line: it may be the whole line or the match alone."""
    pattern = "".join("." * len(part) if part.startswith("*") else re.escape(part)
                      for part in re.split(r"(\*+)", masked) if part)
    found = re.search(pattern, line)
    return found.start() if found else None


def _finding(block: str, strings: dict[str, str]) -> Finding:
    code_at = _CODE_LINES.search(block)
    own = block[:code_at.start()] if code_at else block
    fields = {k: v for k, v in _FIELD.findall(own.split("Code:", 1)[0] + own.split("Code:", 1)[-1][-200:])}
    causes = []
    if code_at:
        lines = _braced(block, code_at.end() - 1)
        for m in re.finditer(r"\{\s*\n\s*Number:", lines):
            line = _braced(lines, m.start())
            line_fields = {k: v for k, v in re.findall(r"^\s*(Number|Content|IsCause):\s*(.+?),?\s*$", line, re.M)}
            if line_fields.get("IsCause") == "true":
                causes.append((int(line_fields["Number"]), _go_string_or_empty(line_fields["Content"], strings)))
    return Finding(rule_id=_go_string_or_empty(fields.get("RuleID", ""), strings),
                   start_line=int(fields.get("StartLine", "0")), end_line=int(fields.get("EndLine", "0")),
                   match=_go_string_or_empty(fields.get("Match", ""), strings), causes=tuple(causes))


def _go_string_or_empty(expression: str, strings: dict[str, str]) -> str:
    """A string expression's value (a named string resolved); "" where it cannot be read (the finding is not placed)."""
    expression = expression.strip().rstrip(",")
    if expression in strings:
        return strings[expression]
    try:
        return go_string(expression)
    except ValueError:
        return ""


def _inline_findings(want: str) -> Iterator[str]:
    for m in re.finditer(r"\{\s*\n\s*RuleID:", want):
        yield _braced(want, m.start())


def go_string(expression: str) -> str:
    """The value of a Go string expression made of literals, ``+`` and ``strings.Repeat``."""
    out = []
    rest = expression.strip().rstrip(",")
    while rest:
        m = _GO_PART.match(rest)
        if not m:
            raise ValueError(f"not a Go string expression: {expression[:60]!r}")
        if m.group("quoted") is not None:
            out.append(_unescape(m.group("quoted")))
        elif m.group("raw") is not None:
            out.append(m.group("raw"))
        else:
            out.append(m.group("repeat") * int(m.group("times")))
        rest = rest[m.end():].strip()
    return "".join(out)


def _unescape(quoted: str) -> str:
    escapes = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}
    return re.sub(r"\\(.)", lambda m: escapes.get(m.group(1), m.group(0)), quoted)


def _braced(text: str, open_at: int) -> str:
    """The text from the brace at ``open_at`` to its matching close (Go strings skipped)."""
    depth = 0
    i = open_at
    while i < len(text):
        c = text[i]
        if c == '"':
            i += 1
            while text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == "`":
            i = text.index("`", i + 1)
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return text[open_at:i + 1]
        i += 1
    return text[open_at:]


def _function_body(go_source: str, name: str) -> str:
    starts = [(m.start(), m.group(1)) for m in _TEST_FUNCTION.finditer(go_source)]
    for k, (at, found) in enumerate(starts):
        if found == name:
            return go_source[at:starts[k + 1][0] if k + 1 < len(starts) else len(go_source)]
    raise ValueError(f"{name} not found in {TESTS}")


def _custom_rule_ids(m: Mirror) -> set[str]:
    ids = {"rule1"}
    for path in m.list_files(f"{FOLDER}/testdata"):
        if path.endswith(".yaml"):
            ids.update(re.findall(r"^\s*-?\s*id:\s*(\S+)", m.read(path), re.M))
    return ids
