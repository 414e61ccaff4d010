"""secretlint's snapshot tests: whole files, each with the findings secretlint's recommended preset must report.

Every case of ``secretlint-rule-preset-recommend/test/snapshots/<rule>/<case>/`` holds one input file
and ``output.json``: the file's text (``sourceContent``) and the preset's findings on it, each a
character range. So a case is judged by every rule of the preset, not only the rule it was written
for (a basic-auth rule's "ok" file of database URLs is a negative only if no other rule flags it).
Rules outside the preset (Azure, secp256k1 keys) give their own snapshots the same way.

A finding's range often holds more than the value (``AWS_SECRET_ACCESS_KEY = <key>``, a whole URL,
a whole service-account JSON); the credential is narrowed to the value, the password of a URL's
user info (its user is an identifier; with ``x-oauth-basic`` as password the user is the token), or
the key block. Findings secretlint names as ids (an access key id, an account or tenant id) are
identifiers. A case with no findings is a look-alike as a whole unless its name says a finding was
expected (``ng.*``: left out as undecided). Left out: cases with a ``.secretlintrc.json`` (options
change the verdict), rules that flag files or text rather than values (``no-dotenv``,
``no-homedir``, ``no-k8s-kind-secret``, ``pattern``, ``example``), the comment-filter rule (its
verdicts depend on secretlint's own disable comments) and binary inputs.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections import Counter
from typing import Any, Iterator

from .examples import URL_USER_INFO, Example, Span, guess_path_hint, is_degenerate, whole_text_span
from .mirror import Mirror

PRESET_FOLDER = "packages/@secretlint/secretlint-rule-preset-recommend/test/snapshots"
RULES_FOLDER = "packages/@secretlint"
_NOT_VALUE_RULES = frozenset({"secretlint-rule-no-dotenv", "secretlint-rule-no-homedir", "secretlint-rule-no-k8s-kind-secret",
                              "secretlint-rule-pattern", "secretlint-rule-example", "secretlint-rule-filter-comments"})
_GENERIC_INPUT_NAMES = frozenset({"input", "input.txt"})
_ID_MESSAGE = re.compile(r"(?:ID|Id)$")
# to its END line, or, cut short in a JSON string, to the string's end
_KEY_BLOCK = re.compile(r'-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:.*?-----END [A-Z0-9 ]*PRIVATE KEY-----|[^"]*)', re.S)
_ASSIGNED = re.compile(r"""\s*(?:["']?[\w.-]+["']?)?\s*(?:=>|:=|[=:](?!//))\s*["']?""")
# secretlint's ranges can stop short of the value or run past it: the value is the run of token characters
_VALUE_RUN = re.compile(r"""[^\s"'`,;<>(){}\[\]]+""")


def secretlint_examples(m: Mirror, *, counts: Counter[str], preset_folder: str = PRESET_FOLDER,
                        rules_folder: str = RULES_FOLDER) -> Iterator[Example]:
    cases = _case_folders(m, preset_folder, depth=2)
    in_preset = {case.split("/")[0] for case in cases}
    for case, files in sorted(cases.items()):
        yield from _read_case(m, preset_folder, case, files, counts)
    for case, files in sorted(_case_folders(m, rules_folder, depth=4).items()):
        rule, test, snapshots, _name = case.split("/")
        if (test, snapshots) != ("test", "snapshots") or rule in in_preset or rule.startswith("secretlint-rule-preset"):
            continue
        yield from _read_case(m, rules_folder, case, files, counts)


def _case_folders(m: Mirror, folder: str, *, depth: int) -> dict[str, set[str]]:
    """Case folder (relative to ``folder``, ``depth`` parts) -> the names of the files in it."""
    out: dict[str, set[str]] = {}
    for path in m.list_files(folder):
        parts = path[len(folder) + 1:].split("/")
        if len(parts) == depth + 1:
            out.setdefault("/".join(parts[:depth]), set()).add(parts[-1])
    return out


def _read_case(m: Mirror, folder: str, case: str, files: set[str], counts: Counter[str]) -> Iterator[Example]:
    rule, name = case.split("/")[0], case.split("/")[-1]
    if "output.json" not in files:
        return
    if rule in _NOT_VALUE_RULES:
        counts["rule_not_about_values"] += 1
        return
    if ".secretlintrc.json" in files:
        counts["case_with_options"] += 1
        return
    output: dict[str, Any] = json.loads(m.read(f"{folder}/{case}/output.json"))
    text = output.get("sourceContent")
    if not isinstance(text, str) or output.get("sourceContentType") != "text" or not text.strip():
        counts["not_text"] += 1
        return
    file_name = posixpath.basename(output.get("filePath", ""))
    path_hint = guess_path_hint(text) if file_name in _GENERIC_INPUT_NAMES or not file_name else file_name
    meta = {"rule": rule, "case": name, "file": f"{folder}/{case}", "pin": m.pin.describe()}
    messages = output.get("messages") or []
    if not messages:
        if name.startswith("ng."):
            counts["ng_case_without_findings"] += 1
            return
        counts["negative_files"] += 1
        yield Example("secretlint", f"{rule}/{name}", text, path_hint, negatives=whole_text_span(text, "negative-example"), meta=meta)
        return
    values: set[tuple[int, int]] = set()
    identifiers: set[tuple[int, int]] = set()
    for message in messages:
        start, end = message["range"]
        found, ids = narrow(text, start, end, identifier=bool(_ID_MESSAGE.search(message.get("messageId", ""))))
        identifiers.update(ids)
        for s, e in found:
            if is_degenerate(text[s:e]):
                counts["degenerate_value"] += 1
            else:
                values.add((s, e))
    labels = _narrowest(values)
    if not labels:
        counts["identifier_or_degenerate_only"] += 1
        return
    counts["files_with_credentials"] += 1
    counts["credentials"] += len(labels)
    yield Example("secretlint", f"{rule}/{name}", text, path_hint,
                  labels=tuple(Span(s, e, "rule-example") for s, e in sorted(labels)),
                  identifiers=tuple(Span(s, e, "identifier") for s, e in sorted(identifiers - labels)), meta=meta)


def _narrowest(spans: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """One span per value where two findings overlap (a token as a URL's user, and the URL): the narrower."""
    kept: set[tuple[int, int]] = set()
    for s, e in sorted(spans, key=lambda span: span[1] - span[0]):
        if all(e <= ks or s >= ke for ks, ke in kept):
            kept.add((s, e))
    return kept


def narrow(text: str, start: int, end: int, *, identifier: bool) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(credential spans, identifier spans) of one finding's range: the value in it, not the words around it."""
    found = text[start:end]
    if identifier:
        return [], [_value_span(text, start, end)]
    block = _KEY_BLOCK.search(found)
    if block:
        return [(start + block.start(), start + block.end())], []
    url = URL_USER_INFO.search(found)
    if url:
        user = (start + url.start("user"), start + url.end("user"))
        password = (start + url.start("password"), start + url.end("password"))
        if url.group("password") == "x-oauth-basic":
            return [user], []
        return [password], [user]
    return [_value_span(text, start, end)], []


def _value_span(text: str, start: int, end: int) -> tuple[int, int]:
    assigned = _ASSIGNED.match(text, start, end)
    if assigned and end - assigned.end() >= 8:  # not the padding of a base64 token (``...Q==``)
        start = assigned.end()
    run = _VALUE_RUN.match(text, start)
    return (start, run.end()) if run else (start, end)
