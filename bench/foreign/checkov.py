"""Checkov's secret-scanner tests: whole fixture files, and what its tests say each one must report.

bridgecrewio/checkov keeps the fixtures of its secrets runner under ``tests/secrets`` and, in the test
modules beside them (``test_runner.py``, ``test_plugin*.py``, ``test_multiline_*.py``,
``test_log_prefix_stripper.py``...), what the runner must report: mostly a count of failed checks per
file or folder, sometimes a check id, a line, the masked form of a value, or the resource id of each
finding (the SHA-1 of its value). The expectations are Python assertions, so ``EXPECTED`` names, file
by file, the test that states them, and the loader checks that this test, at the pin, still names the
file or folder and the number before the file is read. Where a test runs a folder, the count per file
comes from the tests that run it one file type at a time (.ts 2, .py 2, .yml/.yaml 2, .tf 3,
Dockerfiles 4; 13 in all).

Read here:

- a credential: each value the test says is reported, placed by what the test gives, else by shape:
  the values whose SHA-1 it lists; the value on each line it names (a URL's password, its user an
  identifier); the values whose masked prefix it asserts (``AKIAI**********``); the capture of the
  custom rule (a regex) it installs; a private-key block; every value of ``sanity/secrets``' JSON;
  else the AWS pair (the secret key: 40 characters of base64). AWS access key ids are identifiers, as
  in every source. The findings read (credentials and identifiers) must number what the test says, on
  the lines it names, or the file is counted and dropped.
- a look-alike: where the test pins every finding of a file (a count or hashes under checkov's default
  checks; the ``sanity`` false-positive sets, run with CKV_SECRET_6 alone), each other line holding a
  value (a token of eight or more characters with a digit, or of twenty or more), as trivy's quiet
  lines are read. Files run under a custom rule, the build logs (at least one key is asked for), the
  git history fixture and the masking report give credentials only.

Left out, counted: suppression and skip tests (the secret is real, only suppressed); custom rules that
match a word inside values (``HANA``, ``LIR``); the Pomerium compose files (a count of 6, or 4, against
more candidate values); a test rule's made-up markers (``line1_of_secret_aaaa...``); a PuTTY key with
only its public lines; a report repeating one secret twelve times; the git history fixture's other
files (the password in ``main.py`` is never reported, but that test is about history, not false
positives) and its git internals. The plugin tests' inline lines and the history tests' mocked commits
are not read (no files).
"""
from __future__ import annotations

import ast
import bisect
import hashlib
import re
import subprocess
import warnings
from collections import Counter
from dataclasses import dataclass, replace
from typing import Iterator

from .examples import AWS_KEY_ID, Example, Span, is_degenerate, line_starts, whole_file_example
from .horusec import line_value
from .mirror import Mirror
from .trivy import look_alike_lines

FOLDER = "tests/secrets"


@dataclass(frozen=True, slots=True)
class Expected:
    path: str  # under tests/secrets/
    test: str  # "module.py::function": the test that states it
    stated: tuple[str, ...]  # what that function must hold: the folder or file it runs on, the number it asserts
    reported: int  # findings of this file (credentials and identifiers), by that test
    complete: bool  # the test pins every finding: the file's other lines holding a value are look-alikes
    read: tuple[str, ...]  # readers: aws, hashes, lines, masked, rule, key_blocks, every_value (none: nothing reported)
    lines: tuple[int, ...] = ()  # 1-based lines the findings sit on (read by "lines", checked for the others)
    hashes_from: str = ""  # "module.py::function" listing the SHA-1 of each reported value


_TF = "test_plugin_multiline_terraform.py::test_multiline_keyword_password"
_LINES = "test_multiline_finding_line_number.py::test_"
_RUNNER = "test_runner.py::test_runner"
_LOGS = "test_log_prefix_stripper.py::test_"

EXPECTED: tuple[Expected, ...] = (
    # resources/: the cfn folder gives 2 (CKV_SECRET_2 and CKV_SECRET_6), both secret.yml's: the two
    # no-false-positive files give 0 (runner and plugin tests), and so does the k8s file (.yml/.yaml 2).
    Expected("resources/cfn/secret.yml", f"{_RUNNER}_failing_check", ("/resources/cfn", "2"), 2, True, ("aws",)),
    Expected("resources/cfn/secret-no-false-positive.yml", "test_runner.py::test_no_false_positive_yml_2",
             ("/secret-no-false-positive.yml", "0"), 0, True, ()),
    Expected("resources/cfn/secret-no-false-positive2.yml", "test_plugin.py::test_no_false_positive_yml_2",
             ("resources/cfn/secret-no-false-positive2.yml", "0"), 0, True, ()),
    Expected("resources/k8s/secret-name.yaml", f"{_RUNNER}_requested_file_type_only_yml", ("/resources", "2"), 0, True, ()),
    Expected("resources/file_type/Dockerfile", f"{_RUNNER}_requested_file_only_dockerfile", ("/resources", "4"), 2, True,
             ("aws",)),
    Expected("resources/file_type/Dockerfile.simple", f"{_RUNNER}_requested_file_only_dockerfile", ("/resources", "4"), 2,
             True, ("aws",)),
    Expected("resources/file_type/test.py", "test_runner.py::test_true_positive_py", ("/resources/file_type/test.py", "2"),
             2, True, ("aws",)),
    Expected("resources/file_type/test.ts", f"{_RUNNER}_requested_file_type_only_ts", ("/resources", "2"), 2, True, ("aws",)),
    Expected("resources/terraform/main.tf", f"{_RUNNER}_passing_check", ("/resources/terraform", "failed_checks, []"), 0,
             True, ()),
    Expected("resources/terraform_failed/main.tf", f"{_RUNNER}_tf_failing_check", ("/resources/terraform_failed", "2"), 2,
             True, ("aws",)),
    # sanity/: run with CKV_SECRET_6 alone; an explicit positive set and false-positive sets.
    Expected("sanity/secrets/true_positive.json", "test_runner.py::test_sanity_check_secrets", ("/sanity/secrets", "6"), 6,
             True, ("every_value",)),
    Expected("sanity/non_secrets/true_negative.json", "test_runner.py::test_sanity_check_non_secrets",
             ("/sanity/non_secrets", "0"), 0, True, ()),
    Expected("sanity/iac_fp/main.json", "test_runner.py::test_fp_sanity_check_secrets_non_iac", ("/sanity/iac_fp", "0"),
             0, True, ()),
    Expected("sanity/iac_fp/main.tf", "test_runner.py::test_fp_sanity_check_secrets_non_iac", ("/sanity/iac_fp", "0"),
             0, True, ()),
    Expected("sanity/non_iac_fp/a.py", "test_runner.py::test_fp_sanity_check_secrets_iac", ("/sanity/non_iac_fp", "0"),
             0, True, ()),
    # CKV_SECRET_6 on line 4, CKV_SECRET_4 (basic auth in a URL) on line 6
    Expected("test_entropy_source_files/db-conn.js", f"{_RUNNER}_entropy_source_files",
             ("/test_entropy_source_files", "2", "[4, 5]", "[6, 7]"), 2, True, ("lines",), lines=(4, 6)),
    Expected("omit_multiple_secrets/test/multiple_secrets_one_line.txt", f"{_RUNNER}_omit_multiple_secrets_in_line",
             ("/omit_multiple_secrets/test", "2"), 2, True, ("masked",)),
    # the resource id of each finding is the SHA-1 of its value; the JSON and YAML files hold the same values
    Expected("terraform_multiline/pod.tf", f"{_TF}_in_pod", ("terraform_multiline/pod.tf",), 5, True, ("hashes",),
             hashes_from=f"{_TF}_in_pod"),
    Expected("terraform_multiline/ecs_jsonencode.tf", f"{_TF}_in_jsonencode", ("terraform_multiline/ecs_jsonencode.tf",), 5,
             True, ("hashes",), hashes_from=f"{_TF}_in_jsonencode"),
    Expected("terraform_multiline/ecs_heredoc.tf", f"{_TF}_in_json_heredoc", ("terraform_multiline/ecs_heredoc.tf",), 5, True,
             ("hashes",), hashes_from=f"{_TF}_in_json_heredoc"),
    Expected("terraform_multiline/cfn_heredoc.tf", f"{_TF}_in_yaml_heredoc", ("terraform_multiline/cfn_heredoc.tf",), 5, True,
             ("hashes",), hashes_from=f"{_TF}_in_yaml_heredoc"),
    Expected("terraform_multiline/data.tf", f"{_TF}_skip_data_blocks", ("terraform_multiline/data.tf", "== 0"), 0, True, ()),
    Expected("json_multiline/test-multiline-secrets.json",
             "test_plugin_multiline_json.py::test_multiline_keyword_password_report",
             ("json_multiline/test-multiline-secrets.json", "5"), 5, True, ("hashes",), hashes_from=f"{_TF}_in_pod"),
    Expected("yml_multiline/test-multiline-secrets.yml",
             "test_plugin_multiline_yml.py::test_multiline_keyword_password_report",
             ("yml_multiline/test-multiline-secrets.yml", "5"), 5, True, ("hashes",), hashes_from=f"{_TF}_in_pod"),
    # a custom rule's findings only: the rest of the file is not pinned
    Expected("single_line_finding/secret.txt", f"{_LINES}single_line_two_secrets_same_check_id", ("/single_line_finding", "2"),
             2, False, ("rule",), lines=(1, 5)),
    Expected("multiline_finding/Dockerfile.mine", f"{_LINES}multiline_finding", ("/Dockerfile.mine", "1"), 1, False, ("rule",),
             lines=(2,)),
    Expected("custom_and_entropy/main.tf", "test_load_detectors.py::test_non_entropy_take_precedence_over_entropy",
             ("/custom_and_entropy", "1"), 1, False, ("rule",)),
    # "at least one finding, of type Private Key" (and AWS Access Key in the mixed log)
    Expected("build_log_prefix/build_log_with_private_key.log", f"{_LOGS}rsa_private_key_in_pipe_log",
             ("build_log_with_private_key.log", "Private Key"), 1, False, ("key_blocks",)),
    Expected("build_log_prefix/bracket_log_with_private_key.log", f"{_LOGS}rsa_private_key_in_bracket_log",
             ("bracket_log_with_private_key.log", "Private Key"), 1, False, ("key_blocks",)),
    Expected("build_log_prefix/plain_private_key.txt", f"{_LOGS}plain_file_still_detected",
             ("plain_private_key.txt", "Private Key"), 1, False, ("key_blocks",)),
    Expected("build_log_prefix/build_log_with_mixed_secrets.log", f"{_LOGS}mixed_secrets_in_build_log",
             ("build_log_with_mixed_secrets.log", "Private Key", "AWS Access Key"), 2, False, ("key_blocks", "aws")),
    # two findings over the history: this file's (still there) and one in a line main.py has since lost
    Expected("git_history/testing_repo/pass.py", "test_secret_git_history.py::test_scan_git_history_real_repo",
             ("git_history/testing_repo", "== 2"), 1, False, ("aws",)),
    Expected("masking_secrets/assets_report_with_pass.json", "test_masking_secrets.py::test_multiline_keyword_password_in_pod",
             ("assets_report_with_pass.json", "== 1"), 2, False, ("masked",)),
)

# (path or folder under tests/secrets/, why it is left out): counted as left_out_<why>
LEFT_OUT: tuple[tuple[str, str], ...] = (
    ("suppressions/", "suppression_or_skip_test"),
    ("skip_test/", "suppression_or_skip_test"),
    ("resources/terraform_skip/", "suppression_or_skip_test"),
    ("custom_regex_detector/", "custom_rule_matching_a_word"),
    ("long_line_custom_regex_detector/", "custom_rule_matching_a_word"),
    ("multiline_custom_regex_detector/", "custom_rule_matching_a_word"),
    ("json_multiline/pomerium_compose.json", "count_without_places"),
    ("yml_multiline/pomerium_compose.yml", "count_without_places"),
    ("multiline_finding/Dockerfile.two_secrets", "made_up_markers"),
    ("build_log_prefix/build_log_with_putty_key.log", "public_key_lines_only"),
    ("masking_secrets/findings_report_with_pass.json", "one_secret_repeated"),
    ("git_history/testing_repo/git_to_change/", "git_internals"),
    ("git_history/testing_repo/main.py", "history_fixture_without_a_finding"),
    ("git_history/testing_repo/foobar.py", "history_fixture_without_a_finding"),
    ("git_history/testing_repo/README.md", "history_fixture_without_a_finding"),
)

_TEST_MODULE = re.compile(r"^(?:git_history/)?[\w]+\.py$")
_SHA1 = re.compile(r"\b[0-9a-f]{40}\b")
_KEY_BLOCK = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?-----END [A-Z0-9 ]*PRIVATE KEY-----", re.S)
# an AWS secret access key: 40 characters of base64 standing alone
_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
# a masked value as a test asserts it: its visible prefix, then asterisks (`AKIAI**********`)
_MASKED = re.compile(r"(?<![A-Za-z0-9_/+-])([A-Za-z0-9_/+-]{3,})\*{5,}")
_VALUE_CHARS = re.compile(r"[A-Za-z0-9_/+-]+=*")
_QUOTED = re.compile(r""""(?P<double>[^"\n]*)"|'(?P<single>[^'\n]*)'""")
_UNQUOTED = re.compile(r"(?:^|\s)[\w.-]+\s*[:=]\s*(?P<value>[^\s\"'#{\[][^\s#,;]*)\s*$", re.M)
_JSON_VALUE = re.compile(r"""^\s*"[^"\n]*"\s*:\s*"(?P<value>[^"\n]*)",?\s*$""", re.M)


def checkov_examples(m: Mirror, *, counts: Counter[str], expected: tuple[Expected, ...] = EXPECTED,
                     left_out: tuple[tuple[str, str], ...] = LEFT_OUT) -> Iterator[Example]:
    meta_pin = m.pin.describe()
    by_path = {e.path: e for e in expected}
    modules: dict[str, str] = {}
    for full in m.list_files(FOLDER):
        path = full[len(FOLDER) + 1:]
        if _TEST_MODULE.match(path):
            continue  # the tests themselves
        e = by_path.get(path)
        if e is None:
            why = next((w for prefix, w in left_out if path == prefix or prefix.endswith("/") and path.startswith(prefix)),
                       "file_without_an_expectation")
            counts[f"left_out_{why}"] += 1
            continue
        test = _test_source(m, modules, e.test)
        if test is None or not all(s in test for s in e.stated):
            counts["expectation_not_in_its_test"] += 1
            continue
        hashes: set[str] = set()
        if e.hashes_from:
            hashes = set(_SHA1.findall(_test_source(m, modules, e.hashes_from) or ""))
        text = m.read(full)
        spans = read_file(text, e, test, hashes, counts)
        if spans is None:
            continue
        name = path.rsplit("/", 1)[-1]
        if ex := whole_file_example("checkov", name, text, spans, {"file": full, "test": e.test, "pin": meta_pin}, counts):
            yield replace(ex, id=path)


def read_file(text: str, e: Expected, test: str, hashes: set[str], counts: Counter[str]
              ) -> tuple[list[Span], list[Span], list[Span]] | None:
    """(credential spans, identifier spans, look-alike line spans) of one file, or None (counted) when
    the values read do not number, or sit where, its test says."""
    found: dict[tuple[int, int], str] = {}  # the findings: span -> "credential" or "identifier"
    users: set[tuple[int, int]] = set()  # a URL's user: an identifier, not a finding of its own
    for reader in e.read:
        if reader == "aws":
            found.update({mt.span(): "identifier" for mt in AWS_KEY_ID.finditer(text)})
            found.update({mt.span(): "credential" for mt in _AWS_SECRET.finditer(text)})
        elif reader == "key_blocks":
            found.update({mt.span(): "credential" for mt in _KEY_BLOCK.finditer(text)})
        elif reader == "hashes":
            found.update({span: "credential" for span in _candidate_values(text)
                          if hashlib.sha1(text[span[0]:span[1]].encode()).hexdigest() in hashes})
        elif reader == "every_value":
            found.update({mt.span("value"): "credential" for mt in _JSON_VALUE.finditer(text)})
        elif reader == "masked":
            found.update(_masked_values(text, test))
        elif reader == "rule":
            for regex in custom_rules(test):
                found.update({mt.span(1): "credential" for mt in re.finditer(regex, text) if mt.group(1)})
        elif reader == "lines":
            starts = line_starts(text)
            lines = text.split("\n")
            for number in e.lines:
                value = line_value(lines[number - 1], url_is_value=False) if number <= len(lines) else None
                if value is None:
                    counts["named_line_without_a_value"] += 1
                    return None
                (a, b), user = value
                found[(starts[number - 1] + a, starts[number - 1] + b)] = "credential"
                if user is not None:
                    users.add((starts[number - 1] + user[0], starts[number - 1] + user[1]))
    for span, kind in list(found.items()):
        if kind == "credential" and AWS_KEY_ID.fullmatch(text[span[0]:span[1]]):
            found[span] = "identifier"
    if len(found) != e.reported:
        counts["count_differs_from_the_test"] += 1
        return None
    starts = line_starts(text)
    first_lines = sorted(_line_of(starts, a) for a, _ in found)
    if e.lines and first_lines != sorted(e.lines):
        counts["lines_differ_from_the_test"] += 1
        return None
    labels: list[Span] = []
    identifiers = {span for span, kind in found.items() if kind == "identifier"} | users
    identifiers |= {mt.span() for mt in AWS_KEY_ID.finditer(text)}
    for (a, b), kind in sorted(found.items()):
        if kind != "credential":
            continue
        if is_degenerate(text[a:b]):
            counts["degenerate_value"] += 1
            continue
        labels.append(Span(a, b, "rule-example"))
    counts["identifiers"] += len(identifiers)
    negatives: list[Span] = []
    if e.complete:
        reported_lines = {n for a, b in [*found, *users] for n in range(_line_of(starts, a), _line_of(starts, b - 1) + 1)}
        negatives = [n for n in look_alike_lines(text, reported_lines)
                     if not any(n.start <= a < n.end for a, _ in identifiers)]
    return labels, [Span(a, b, "identifier") for a, b in sorted(identifiers)], negatives


def custom_rules(test: str) -> list[str]:
    """The regexes of the custom secrets policies a test installs (``secretsPolicies``: a ``conditionQuery``
    value, or the ``value`` list of its YAML ``code``)."""
    out: list[str] = []
    for node in ast.walk(_parse(test)):
        policies = _dict_value(node, "secretsPolicies")
        if not isinstance(policies, ast.List):
            continue
        for policy in policies.elts:
            # a policy's other fields may name variables (`"incidentId": check_id`): only these two are read
            query, code = _dict_value(policy, "conditionQuery"), _dict_value(policy, "code")
            values = _dict_value(query, "value") if query is not None else None
            if values is not None:
                out.extend(ast.literal_eval(values))
            elif isinstance(code, ast.Constant) and isinstance(code.value, str):
                out.extend(_yaml_values(code.value))
    return out


def _dict_value(node: ast.AST | None, key: str) -> ast.expr | None:
    """The value node of ``key`` in a dict literal, or None."""
    if not isinstance(node, ast.Dict):
        return None
    return next((v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant) and k.value == key), None)


def _yaml_values(code: str) -> list[str]:
    """The items of ``value:`` in a policy's YAML definition (plain or single-quoted scalars)."""
    values = []
    in_value = False
    for line in code.split("\n"):
        if re.match(r"^\s*value:\s*$", line):
            in_value = True
        elif in_value and re.match(r"^\s*- ", line):
            item = line.strip()[2:].strip()
            if len(item) > 1 and item[0] == item[-1] == "'":
                item = item[1:-1].replace("''", "'")
            values.append(item)
        elif line.strip():
            in_value = False
    return values


def _masked_values(text: str, test: str) -> dict[tuple[int, int], str]:
    """The values whose masked prefix the test asserts (``AKIAI**********``): each from its prefix to its token's end."""
    out: dict[tuple[int, int], str] = {}
    for prefix in sorted(set(_MASKED.findall(test))):
        for at in (mt.start() for mt in re.finditer(re.escape(prefix), text)):
            if at and re.match(r"[A-Za-z0-9_/+-]", text[at - 1]):
                continue
            token = _VALUE_CHARS.match(text, at)
            if token:
                out[token.span()] = "credential"
    return out


def _candidate_values(text: str) -> Iterator[tuple[int, int]]:
    """Every quoted string's content and every unquoted ``name: value`` / ``name = value`` value."""
    for mt in _QUOTED.finditer(text):
        yield mt.span("double") if mt.group("double") is not None else mt.span("single")
    for mt in _UNQUOTED.finditer(text):
        yield mt.span("value")


def _line_of(starts: list[int], position: int) -> int:
    """The 1-based line holding ``position``."""
    return bisect.bisect_right(starts, position)


def _test_source(m: Mirror, modules: dict[str, str], ref: str) -> str | None:
    """The source of ``module.py::function`` (a function or a test class's method), or None."""
    module, _, function = ref.partition("::")
    if module not in modules:
        try:
            modules[module] = m.read(f"{FOLDER}/{module}")
        except subprocess.CalledProcessError:  # a module missing at the pin: its expectations cannot be checked
            modules[module] = ""
    source = modules[module]
    try:
        tree = _parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == function:
            return ast.get_source_segment(source, node)
    return None


def _parse(source: str) -> ast.Module:
    """A module's (or a function's) syntax tree; checkov's tests write regexes in plain strings (``'\\s'``),
    which Python only warns about."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        return ast.parse(source)
