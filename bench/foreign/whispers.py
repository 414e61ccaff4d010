"""Whispers' test fixtures: whole configuration and code files, with what its tests say must be found.

Skyscanner's whispers keeps one fixture a format (``.npmrc``, ``.pypirc``, ``pip.conf``,
``.htpasswd``, ``.aws/credentials``, ``.dockercfg``, Spring ``beans.xml``, JDBC realms, Jenkins'
``config.xml``, CloudFormation, Java properties, ``.env``/ini/cfg, Dockerfile, shell, Python, Go,
JavaScript, Java, PHP...), each split by comments or keys into a ``Compliant`` part (values that
must not be reported: empty, templated, read from the environment, placeholders) and a
``Noncompliant`` part. Its tests assert that every value it reports contains the word
``hardcoded`` (or decodes from base64 to it) and how many it reports a file; a few fixtures are
checked by key instead (AWS keys, private keys, Jenkins' secrets, a CloudFormation default).

Read here:

- a credential: in the noncompliant part (or a file with no parts), each value that holds
  ``hardcoded`` in any case or decodes to it, cut to the value (after a ``name=`` or ``name:``, the
  password of a URL's user info); a private-key block; the value of an element or key whose name
  says non-compliant; a password assigned in a connection string; the AWS fixtures' secret key
  and session token. An AWS access key id is an identifier, as a URL's user is.
- a look-alike: each line of a compliant part that names a secret (password, token, key, auth,
  secret...), as a whole: whispers must keep quiet on all of it. Fixtures whose test expects no
  finding at all (``placeholders.*``, ``custom.*``, ``empty.dockercfg``) are compliant throughout.

Left out: credit card numbers (not credentials), HTML comments (whispers' ``comments`` rule
reports any comment saying ``hardcoded``), the Python 2 fixture, and the fixtures of its
configuration tests (``excluded.*``, ``paths.yml``, rule lists).
"""

from __future__ import annotations

import base64
import binascii
import re
from bisect import bisect_right
from collections import Counter
from typing import Iterator

from .examples import AWS_KEY_ID, URL_USER_INFO, Example, Span, line_starts, whole_file_example
from .mirror import Mirror

FOLDER = "tests/fixtures"
# The fixtures its detection tests read (tests/unit/test_secrets.py), and those it expects nothing of.
_FIXTURES = """
hardcoded.yml hardcoded.json hardcoded.xml passwords.yml passwords.json passwords.xml apikeys.yml apikeys.json
apikeys.xml .npmrc .pypirc pip.conf integration.conf integration.yml integration.json integration.xml
settings.conf settings.cfg settings.ini settings.env Dockerfile .dockercfg beans.xml beans.xml.dist
beans.xml.template jdbc.xml .htpasswd .aws/credentials falsepositive.yml language.sh language.py language.js
language.java language.go language.php plaintext.txt uri.yml java.properties webhooks.yml gitkeys.yml
privatekeys.yml privatekeys.json privatekeys.xml aws.yml aws.json aws.xml jenkins.xml cloudformation.yml
cloudformation.json connection.config
""".split()
_COMPLIANT_THROUGHOUT = """
custom.yml custom.json custom.xml placeholders.yml placeholders.json placeholders.xml empty.dockercfg
""".split()

# A line that only opens a part: `# Compliant`, `compliant:`, `[noncompliant]`, `<!-- Noncompliant -->`,
# `<incompliant>`, `--- COMPLIANT`, `<ss:user-service id="compliant">`, `"https://host/v1/compliant4": {`.
_PART_LINE = re.compile(
    r"""^\s*(?:#+|//+|/\*+|<!--|</?|\[|-{3,}|")?\s*(?:[\w:.\-]+\s+)?(?:\w+\s*=\s*["'])?(?:[^\s=]*[/"'=])?"""
    r"""(?P<word>(?:non-?|in)?compliant)\d*["']?\s*(?:-->|\*/|>|\]|:\s*\{?|,)?\s*$""",
    re.IGNORECASE,
)
_OWN_PART = re.compile(r"(?P<word>(?:non-?|in)?compliant)", re.IGNORECASE)
_VALUE_RUN = re.compile(r"""[^\s"'`<>,;()\[\]{}\\]+""")
_NAME_BEFORE = re.compile(r"^[\w.\-/?&;:@=]*[=:]")
_KEY_BLOCK = re.compile(
    r"-----BEGIN (?!PUBLIC)(?:[A-Z]+ )*(?:PRIVATE )?KEY-----.*?-----END (?:[A-Z]+ )*(?:PRIVATE )?KEY-----", re.S
)
# A value in an element or under a key whose name says non-compliant: `<noncompliantApiToken>...<`.
_NAMED_NONCOMPLIANT = re.compile(r"<(?P<tag>(?:non|in)compliant\w*)>\{?(?P<value>[^<\s{}]+)\}?</(?P=tag)>", re.IGNORECASE)
# CloudFormation's `Default:` under a parameter whose name says non-compliant.
_DEFAULT_OF = re.compile(r"""(?:non|in)compliant\w*["']?\s*:[^\n]*\n(?:[^\n]*\n){0,4}?\s*["']?Default["']?\s*:\s*["']?(?P<value>[^\s"',}]+)""",
                         re.IGNORECASE)
_CONNECTION_PASSWORD = re.compile(r"(?i)\b(?:password|pwd)=(?P<value>[^;\s&\"'<]+)")
_AWS_SECRET = re.compile(r"(?i)\baws_(?:key|token)\W+(?P<value>[A-Za-z0-9/+=]{30,})")
_LONG_NUMBER = re.compile(r"(?<![\w.])\d{16,}(?![\w.])")
_SECRET_WORD = re.compile(r"(?i)pass|pwd|secret|token|key|auth|cred")
_HARDCODED = "hardcoded"
# A line that only opens a block holds no value (`secrets:`, `"auths": {`).
_OPENERS = (":", "{", "[", "(", "\\")


def whispers_examples(m: Mirror, *, counts: Counter[str]) -> Iterator[Example]:
    meta_pin = m.pin.describe()
    present = set(m.list_files(FOLDER))
    for name in _FIXTURES + _COMPLIANT_THROUGHOUT:
        if f"{FOLDER}/{name}" not in present:
            counts["fixture_missing"] += 1
            continue
        text = m.read(f"{FOLDER}/{name}")
        spans = read_fixture(text, compliant_throughout=name in _COMPLIANT_THROUGHOUT)
        if ex := whole_file_example("whispers", name, text, spans, {"file": f"{FOLDER}/{name}", "pin": meta_pin}, counts):
            yield ex


def read_fixture(text: str, *, compliant_throughout: bool = False) -> tuple[list[Span], list[Span], list[Span]]:
    """(credential spans, identifier spans, look-alike line spans) of one fixture (see the module docstring)."""
    parts = line_parts(text, compliant_throughout)
    starts = line_starts(text)

    def part_at(position: int) -> str:
        return parts[bisect_right(starts, position) - 1]

    found: dict[tuple[int, int], str] = {}
    identifiers: list[Span] = []
    for start, end in _hardcoded_values(text):
        if part_at(start) != "compliant":
            found[(start, end)] = "rule-example"
    for match in _KEY_BLOCK.finditer(text):
        if part_at(match.start()) != "compliant":
            found[match.span()] = "rule-example"
    for shape in (_NAMED_NONCOMPLIANT, _DEFAULT_OF):
        for match in shape.finditer(text):
            found[match.span("value")] = "rule-example"
    for shape in (_CONNECTION_PASSWORD, _AWS_SECRET):
        for match in shape.finditer(text):
            if part_at(match.start()) != "compliant" and not match.group("value").startswith(("$", "{")):
                found[match.span("value")] = "rule-example"
    for match in _LONG_NUMBER.finditer(text):
        if part_at(match.start()) == "noncompliant":
            found[match.span()] = "rule-example"
    for match in AWS_KEY_ID.finditer(text):
        found.pop(match.span(), None)
        identifiers.append(Span(match.start(), match.end(), "identifier"))
    for match in URL_USER_INFO.finditer(text):
        identifiers.append(Span(match.start("user"), match.end("user"), "identifier"))
    labels = [Span(a, b, c) for (a, b), c in sorted(found.items()) if not _inside_another((a, b), found)]
    negatives = []
    for index, (line_start, part) in enumerate(zip(starts, parts)):
        line_end = starts[index + 1] - 1 if index + 1 < len(starts) else len(text)
        line = text[line_start:line_end]
        if part != "compliant" and (part or any(parts)) or _PART_LINE.match(line) or line.rstrip().endswith(_OPENERS):
            continue
        if not _SECRET_WORD.search(line) and _HARDCODED not in line.lower() or line.lstrip().startswith("#!"):
            continue
        stripped_start = line_start + len(line) - len(line.lstrip())
        stripped_end = line_start + len(line.rstrip())
        if any(a < stripped_end and stripped_start < b for a, b in found):
            continue
        negatives.append(Span(stripped_start, stripped_end, "negative-example"))
    return labels, identifiers, negatives


def line_parts(text: str, compliant_throughout: bool = False) -> list[str]:
    """Each line's part: ``compliant``, ``noncompliant`` or ``""`` (before any part opens).

    A line that only opens a part sets it for the lines after it; a line naming a part inside a
    name (`COMPLIANT_APITOKEN = ...`, `<noncompliantApiToken>`) is of that part itself only."""
    current = "compliant" if compliant_throughout else ""
    out = []
    for line in text.split("\n"):
        opened = _PART_LINE.match(line)
        if opened and not compliant_throughout:
            current = _part_of(opened.group("word"))
            out.append(current)
            continue
        own = _OWN_PART.search(line)
        out.append(_part_of(own.group("word")) if own and not compliant_throughout else current)
    return out


def _part_of(word: str) -> str:
    return "compliant" if word.lower() == "compliant" else "noncompliant"


def _hardcoded_values(text: str) -> Iterator[tuple[int, int]]:
    """Spans of values holding ``hardcoded`` (any case, or base64 of it), cut to the value."""
    for run in _VALUE_RUN.finditer(text):
        value = run.group()
        if _HARDCODED not in value.lower() and not _decodes_to_hardcoded(value):
            continue
        start, end = run.span()
        if _is_a_name(text, start, end):
            continue
        url = URL_USER_INFO.search(value)
        if url:
            yield start + url.start("password"), start + url.end("password")
            continue
        if "://" in value:
            # A URL without user info keeps its secret in the path: the segment holding it.
            word = value.lower().rfind(_HARDCODED)
            segment_start = max(value.rfind("/", 0, word + 1), value.rfind("=", 0, word + 1)) + 1
            yield start + segment_start, end
            continue
        name = _NAME_BEFORE.match(value)
        # `password=hardcoded1`, `//registry/:_authToken=...`, `noncompliant1:$apr1$...`; a base64
        # value keeps its own `=` (the name ends before the word or the encoded run).
        if name and name.end() < len(value):
            start += name.end()
        yield start, end


def _is_a_name(text: str, start: int, end: int) -> bool:
    """A key (`01_hardcoded_password:`, `"02_hardcoded_passwords":`) or an element's tag (`<o1_hardcoded_password>`)."""
    if text[end - 1] == ":" or text[max(0, start - 2):start].endswith(("<", "</")):
        return True
    # A quoted key opens its line or follows `{`/`,` (`== "hardcoded3":` ends a condition).
    quoted_key = text[end:end + 1] in ("\"", "'") and text[end + 1:end + 2] == ":"
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start - 1].strip()
    return quoted_key and (before == "" or before.endswith(("{", ",")))


def _decodes_to_hardcoded(value: str) -> bool:
    if len(value) < 8:
        return False
    try:
        return _HARDCODED in base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8", "replace").lower()
    except (binascii.Error, ValueError):
        return False


def _inside_another(span: tuple[int, int], spans: dict[tuple[int, int], str]) -> bool:
    a, b = span
    return any((c, d) != (a, b) and c <= a and b <= d for c, d in spans)
