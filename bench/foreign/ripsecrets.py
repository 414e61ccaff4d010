"""ripsecrets' test files: lines its tests say hold one secret each, files holding one, and lines holding none.

``test/one_per_line/<kind>``: every line holds exactly one secret (its test counts one finding a
line). ``test/one_per_file/*``: one secret in the file. ``test/none``: no line may be reported;
each line is a look-alike as a whole, except lines its tests keep quiet by other means (a
``pragma: allowlist secret`` comment, or a value listed under ``[secrets]`` in ``.secretsignore``).

The tests say how many, not where, so the secret of a line is read from its shape: the password of
a URL's user info (the user is an identifier), a private-key block, the text of an XML element,
the value of a ``name = value`` / ``name: value`` / ``name := value`` line, a value after
``:_authToken=`` and the like, else the whole line when it is one token. A secret of a file is its
private-key block; an AWS access key id alone is an identifier, so that file gives no credential.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterator

from .examples import AWS_KEY_ID, URL_USER_INFO, Example, Span, guess_path_hint, is_degenerate, whole_text_span
from .mirror import Mirror

_KEY_BLOCK = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?-----END [A-Z0-9 ]*PRIVATE KEY-----", re.S)
_XML_ELEMENT = re.compile(r"<(?P<tag>\w+)>(?P<value>[^<]+)</(?P=tag)>")
_ASSIGNED = re.compile(r"""^\s*(?:export\s+)?[\[\]'"\w.-]+\s*(?::=|=|:(?!//))\s*["'`]?(?P<value>.+?)["'`]?,?\s*$""")
_AFTER_OPTION = re.compile(r"[:/]_?[A-Za-z]\w*=(?P<value>\S{8,})$")
_ALLOWED = "pragma: allowlist secret"


def ripsecrets_examples(m: Mirror, *, counts: Counter[str]) -> Iterator[Example]:
    meta_pin = m.pin.describe()
    for path in m.list_files("test/one_per_line"):
        for k, line in enumerate(m.read(path).splitlines()):
            if not line.strip():
                continue
            span = line_secret(line)
            if span is None:
                counts["line_without_a_value"] += 1
                continue
            (start, end), user = span
            if is_degenerate(line[start:end]):
                counts["degenerate_value"] += 1
                continue
            counts["credential_lines"] += 1
            yield Example("ripsecrets", f"{path.rsplit('/', 1)[-1]}#{k}", line + "\n", guess_path_hint(line),
                          labels=(Span(start, end, "rule-example"),),
                          identifiers=(Span(*user, "identifier"),) if user else (),
                          meta={"file": path, "pin": meta_pin})
    for path in m.list_files("test/one_per_file"):
        text = m.read(path)
        block = _KEY_BLOCK.search(text)
        if block is None:
            counts["file_with_an_identifier_only" if AWS_KEY_ID.search(text) else "file_without_a_key_block"] += 1
            continue
        counts["credential_files"] += 1
        yield Example("ripsecrets", path.rsplit("/", 1)[-1], text, guess_path_hint(text),
                      labels=(Span(block.start(), block.end(), "rule-example"),), meta={"file": path, "pin": meta_pin})
    ignored = ignored_secrets(m.read(".secretsignore"))
    for k, line in enumerate(m.read("test/none").splitlines()):
        if not line.strip():
            continue
        if _ALLOWED in line or any(value in line for value in ignored):
            counts["negative_kept_quiet_otherwise"] += 1
            continue
        counts["negative_lines"] += 1
        yield Example("ripsecrets", f"none#{k}", line + "\n", guess_path_hint(line),
                      negatives=whole_text_span(line, "negative-example"), meta={"file": "test/none", "pin": meta_pin})


def ignored_secrets(text: str) -> list[str]:
    """The values listed under ``[secrets]`` in a ``.secretsignore`` file."""
    values: list[str] = []
    in_secrets = False
    for line in text.splitlines():
        if line.strip().startswith("["):
            in_secrets = line.strip() == "[secrets]"
        elif in_secrets and line.strip():
            values.append(line.strip())
    return values


def line_secret(line: str) -> tuple[tuple[int, int], tuple[int, int] | None] | None:
    """((start, end) of the line's secret, (start, end) of a URL's user or None), or None."""
    url = URL_USER_INFO.search(line)
    if url:
        return url.span("password"), url.span("user")
    for shape in (_XML_ELEMENT, _ASSIGNED, _AFTER_OPTION):
        found = shape.search(line)
        if found and len(found.group("value")) >= 8:
            return found.span("value"), None
    token = line.strip()
    if " " in token:
        return None
    start = line.index(token)
    return (start, start + len(token)), None
