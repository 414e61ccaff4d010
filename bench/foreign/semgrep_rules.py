"""semgrep-rules' secret-rule tests: the lines its test files say a rule must, or must not, report.

Every rule ``generic/secrets/{security,gitleaks}/X.yaml`` has a test file ``X.<ext>`` (``.txt``, ``.go``,
``.jsx``, ``.php``, ``.npmrc``, ``.generic``). A comment line ``ruleid: X`` (``todoruleid: X``: one the
rule misses, still a credential by its authors' intent) marks the next line as one the rule must report;
``ok: X`` (``todook: X``) marks the next line as one it must not. The comment syntax is the file's
(``//``, ``#``, ``<!-- -->``, ...); a bare ``// ok`` is read as ``ok``. At the pinned commit every
annotation is a line of its own; one sharing its line with code is counted and skipped, and so is a
comment naming the rule with no verdict (``// TODO: X``).

The annotation comments are left out of the examples (they name the rule). A marked line is one
example; the credential in it is read from its shape (the tests say which line, not where in it): the
password of a URL's user info (the user is an identifier), a secret query parameter, the value after
``-p``/``--token``, the shapes ripsecrets' lines are read by (``name = value``, an XML element, a lone
token), a quoted string, else the line's one long word. A private-key block spans several lines: a
marked ``-----BEGIN ... PRIVATE KEY-----`` line gives the block. Rules named for an id (``*-client-id``,
``aws-account-id``) and AWS access key ids give identifier spans only; degenerate values are dropped.

A look-alike is the marked line as a whole, with the lines that continue it (more indented ones up to
its closing bracket, a fenced block, a key block): an annotation marks where a finding would start,
and the test fails on any finding in an unmarked line too, so a continuation is as much a look-alike.
An ``ok`` line holding a value the file's reported lines hold, or one a character or two off, is
counted and dropped: it tests the rule's bounds (another name, a length its regex rejects), not
whether the line holds a credential.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterator

from .examples import (AWS_KEY_ID, GOOGLE_CLIENT_ID, URL_USER_INFO, Example, Span, guess_path_hint, is_degenerate,
                       whole_text_span)
from .mirror import Mirror
from .ripsecrets import line_secret

FOLDER = "generic/secrets"

# a whole-line annotation: comment opener, verdict, optional rule list, optional comment closer
_ANNOTATION = re.compile(r"^\s*(?:<!--|//|/\*|/|#|;|--)\s*(?P<verdict>todoruleid|todook|ruleid|ok)\b\s*"
                         r"(?::\s*(?P<rules>[\w.,\s-]*?))?\s*(?:-->|\*/)?\s*$")
_POSITIVE = {"ruleid", "todoruleid"}
_KEY_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
_KEY_END = re.compile(r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
_KEY_HEADER = re.compile(r"^[\w-]+: ")  # Version:, Comment: of a PGP block
# rules whose marked line holds no value: a service-account file's "type" field, a shadow line with no password
_NO_VALUE_RULES = {"detected-google-gcm-service-account", "detected-etc-shadow"}
_ID_RULE = re.compile(r"-id(?:-value)?$")  # adobe-client-id, sumologic-access-id, aws-account-id: identifiers
_QUERY_SECRET = re.compile(r"[?&](?:\w*token|\w*secret|key|t)=(?P<value>[^&\s\"'\\#]+)")
_OPTION = re.compile(r"(?:^|\s)--?(?:p|password|token|api-key|secret)(?:\s+|=)(?P<q>['\"]?)(?P<value>[^\s'\"]+)(?P=q)")
# `x:_password=<value>`, `--set a.password=<value>`: a value named inside the value read
_NESTED = re.compile(r"^(?:[A-Za-z][\w-]*\.)*_?(?:password|passwd|auth|authToken|token|secret|key)=(?=\S{4,}$)", re.I)
_XML_ELEMENT = re.compile(r"<(?P<tag>\w+)(?:\s[^<>]*)?>(?P<value>[^<]+)</(?P=tag)>")  # with attributes, unlike ripsecrets'
_QUOTED = re.compile(r"""(?P<q>["'`])(?P<value>[^"'`\s\\]{8,})(?P=q)""")
_WORD = re.compile(r"\S+")
_WRAPPERS = "'\"`()[]{}<>\\,;"
_OPENS = {"{": "}", "[": "]", "(": ")"}


def semgrep_examples(m: Mirror, *, counts: Counter[str]) -> Iterator[Example]:
    meta_pin = m.pin.describe()
    for path in m.list_files(FOLDER):
        name = path.rsplit("/", 1)[-1]
        stem, _, ext = name.partition(".")
        if ext in ("yaml", "yml") or "fixed" in ext.split("."):  # the rules themselves, autofix outputs
            continue
        lines = m.read(path).splitlines()
        hint = None if ext in ("txt", "generic") else ".npmrc" if ext == "npmrc" else f"snippet.{ext}"
        marked = list(_marked_lines(lines, stem, counts))
        # the values the file's reported lines hold, for telling a look-alike from a near miss of one
        reported = [lines[k][span[0][0]:span[0][1]] for k, v in marked if v & _POSITIVE and (span := line_value(lines[k]))]
        for k, verdicts in marked:
            if verdicts & _POSITIVE and verdicts - _POSITIVE:
                counts["conflicting_annotations"] += 1
                continue
            meta = {"file": path, "pin": meta_pin}
            ex_id = f"{stem}#{k + 1}"
            if verdicts & _POSITIVE:
                ex = _positive(lines, k, stem, ex_id, hint, meta, counts)
            else:
                ex = _negative(lines, k, ex_id, hint, meta, reported, counts)
            if ex is not None:
                yield ex


def _marked_lines(lines: list[str], stem: str, counts: Counter[str]) -> Iterator[tuple[int, set[str]]]:
    """(index of a marked line, its verdicts) for each annotated line of a test file."""
    pending: set[str] = set()
    for k, line in enumerate(lines):
        found = _ANNOTATION.match(line)
        if found:
            if not found.group("rules"):
                counts["ok_without_a_rule_name"] += 1  # `// ok`: the authors' verdict all the same
            pending.add(found.group("verdict"))
            continue
        if re.search(rf"\b(?:todoruleid|todook|ruleid|ok):\s*{re.escape(stem)}\b", line):
            counts["annotation_sharing_a_line_with_code"] += 1  # where its code starts cannot be told reliably
            pending.clear()
            continue
        if re.match(rf"^\s*(?://|#)\s*todo:\s*{re.escape(stem)}\s*$", line, re.I):
            counts["annotation_without_a_verdict"] += 1
            pending.clear()
            continue
        if pending:
            if not line.strip():
                counts["annotation_before_a_blank_line"] += 1
            else:
                yield k, pending
            pending = set()
    if pending:
        counts["annotation_at_end_of_file"] += 1


def _positive(lines: list[str], k: int, stem: str, ex_id: str, hint: str | None, meta: dict[str, str],
              counts: Counter[str]) -> Example | None:
    line = lines[k]
    if stem in _NO_VALUE_RULES:
        counts["rule_flags_no_value"] += 1
        return None
    if _KEY_BEGIN.search(line):
        text, (start, end), body = _key_block(lines, k)
        if len(body) < 16 or is_degenerate(body):  # `anything`, `ababab...` between the markers
            counts["key_block_without_key_material"] += 1
            return None
        counts["credential_key_blocks"] += 1
        return Example("semgrep", ex_id, text, hint or guess_path_hint(text), labels=(Span(start, end, "rule-example"),),
                       meta=meta)
    found = line_value(line)
    if found is None:
        counts["line_without_a_value"] += 1
        return None
    (start, end), user = found
    value = line[start:end]
    text = line + "\n"
    if is_degenerate(value):
        counts["degenerate_value"] += 1
        return None
    if user is None and (_ID_RULE.search(stem) or AWS_KEY_ID.fullmatch(value) or GOOGLE_CLIENT_ID.match(value)):
        counts["identifier_lines"] += 1
        return Example("semgrep", ex_id, text, hint or guess_path_hint(line),
                       identifiers=(Span(start, end, "identifier"),), meta=meta)
    counts["credential_lines"] += 1
    return Example("semgrep", ex_id, text, hint or guess_path_hint(line), labels=(Span(start, end, "rule-example"),),
                   identifiers=(Span(*user, "identifier"),) if user else (), meta=meta)


def _negative(lines: list[str], k: int, ex_id: str, hint: str | None, meta: dict[str, str], reported: list[str],
              counts: Counter[str]) -> Example | None:
    if _KEY_BEGIN.search(lines[k]):
        text = _key_block(lines, k)[0]
    else:
        text = "".join(line + "\n" for line in lines[k:_continuation_end(lines, k)])
    if len(set("".join(text.split()))) <= 2:  # `{`, '======': no look-alike
        counts["trivial_negative"] += 1
        return None
    # `ok` says the rule must not report the line, not that it holds no credential: a reported value
    # under another name (`other_token: <the Snyk key>`), inside a public-key block, or one or two
    # characters off (`SG.<22>.<42>`: a length the rule's regex rejects) is a test of the rule's bounds
    found = line_value(lines[k])
    if near_a_reported_value(lines[k], found[0] if found else None, reported):
        counts["negative_near_a_reported_value"] += 1
        return None
    counts["negative_lines"] += 1
    return Example("semgrep", ex_id, text, hint or guess_path_hint(text),
                   negatives=whole_text_span(text, "negative-example"), meta=meta)


def near_a_reported_value(line: str, value: tuple[int, int] | None, reported: list[str]) -> bool:
    """Whether the line's value (``value``, its span) or one of its words, with or without the
    quotes and brackets around it, is at most two edits from a reported value of eight characters
    or more: a line that tests a rule's bounds (a length its regex rejects), not whether it holds a
    credential."""
    candidates = [line[a:b] for a, b in ([value] if value else []) + [w.span() for w in _WORD.finditer(line)]]
    candidates += [c.strip(_WRAPPERS) for c in candidates]
    return any(len(r) >= 8 and _within_edits(c, r, 2) for c in candidates for r in reported)


def _within_edits(a: str, b: str, n: int) -> bool:
    """Whether a and b are at most n single-character edits apart."""
    if abs(len(a) - len(b)) > n:
        return False
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
        if min(row) > n:
            return False
    return row[-1] <= n


def _continuation_end(lines: list[str], k: int) -> int:
    """The index after the last line that continues line k (see the module docstring)."""
    first = lines[k]
    if first.strip().startswith("```"):  # a fenced block runs to its closing fence
        for j in range(k + 1, len(lines)):
            if lines[j].strip().startswith("```"):
                return j + 1
        return k + 1
    indent = len(first) - len(first.lstrip())
    j = k + 1
    if first.rstrip().endswith(":"):  # `# Installation URL:` introduces the lines of its paragraph
        while j < len(lines) and lines[j].strip() and not _ANNOTATION.match(lines[j]):
            j += 1
        return j
    while j < len(lines) and lines[j].strip() and not _ANNOTATION.match(lines[j]):
        deeper = len(lines[j]) - len(lines[j].lstrip()) > indent
        if not deeper:
            # a closing bracket at the opening line's depth ends it; any other line starts something new
            return j + 1 if lines[j].lstrip()[:1] in _OPENS.values() and first.rstrip()[-1:] in _OPENS else j
        j += 1
    return j


def _key_block(lines: list[str], k: int) -> tuple[str, tuple[int, int], str]:
    """(example text, span of the block in it, the block's key material) of a block opening on line k.

    The block runs to its END marker, or, with none before the next annotation, to the next blank line.
    """
    last = k
    for j in range(k, len(lines)):
        if j > k and _ANNOTATION.match(lines[j]):
            break
        if _KEY_END.search(lines[j]):
            last = j
            break
    if last == k and not _KEY_END.search(lines[k]):
        while last + 1 < len(lines) and lines[last + 1].strip() and not _ANNOTATION.match(lines[last + 1]):
            last += 1
    text = "".join(line + "\n" for line in lines[k:last + 1])
    start = _KEY_BEGIN.search(text)
    assert start is not None
    end_marker = _KEY_END.search(text)
    end = end_marker.end() if end_marker else len(text.rstrip())
    body_lines = text[start.end():end_marker.start() if end_marker else end].splitlines()
    body = "".join(b.strip() for b in body_lines if b.strip() and not _KEY_HEADER.match(b.strip()))
    return text, (start.start(), end), body


def line_value(line: str) -> tuple[tuple[int, int], tuple[int, int] | None] | None:
    """((start, end) of the line's credential, (start, end) of a URL's user or None), or None."""
    url = URL_USER_INFO.search(line)
    if url:
        return url.span("password"), url.span("user")
    for shape in (_QUERY_SECRET, _OPTION, _XML_ELEMENT):  # shapes ripsecrets' lines do not have
        found = shape.search(line)
        if found:
            return found.span("value"), None
    read = line_secret(line)
    if read is not None:
        span = _unwrap(line, *read[0])
        if span is not None:
            return span, None
    quoted = list(_QUOTED.finditer(line))
    for least in (16, 8):  # define('BOT_TOKEN', '<value>'): the longer string when one is
        values = [q for q in quoted if len(q.group("value")) >= least]
        if values and len({q.group("value") for q in values}) == 1:
            return values[0].span("value"), None
    words = [span for span in (_unwrap(line, *w.span()) for w in _WORD.finditer(line)) if span and span[1] - span[0] >= 16]
    if len(words) == 1:
        return words[0], None
    return None


def _unwrap(line: str, start: int, end: int) -> tuple[int, int] | None:
    """The value within a span read from a line's shape: without the operator and quotes before it, the
    quote, comma or semicolon after it, and the words after an unquoted one; None if nothing is left."""
    while start < end and line[start] in ":=?@ \t":  # `NAME ::= "v"`, `=@"v"`: the rest of the operator
        start += 1
    if start < end and line[start] in "\"'`":
        close = line.find(line[start], start + 1, end + 1)
        start += 1
        if close != -1:
            end = close
    else:
        word = _WORD.match(line, start, end)
        if word is None:
            return None
        end = word.end()
    while start < end and line[start] in _WRAPPERS:
        start += 1
    while start < end and line[end - 1] in _WRAPPERS:
        end -= 1
    nested = _NESTED.match(line[start:end])
    if nested:
        start += nested.end()
    return (start, end) if end > start else None
