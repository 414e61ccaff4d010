"""Values written next to a label in prose, notes and tables, where no syntax binds them.

Documentation and notes keep credentials the way people write them: ``password: <value>``,
``ID:master,PW:<value>``, ``Activation key : XXXXX-XXXXX``, ``API Secret:<value>``, ``the token
is <value>``, ``| password | <value> |``, or a Markdown table with a ``Password`` column. Only
labels whose words say secret (:mod:`smscan.detectors.secret_names`) make a slot here: neutral
labels are left to the assignment finder, so prose adds no new place for look-alikes to hide.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from smscan.detectors.letter_pairs import reads_as_word
from smscan.detectors.secret_names import is_secret_name, name_words

# One to three words, a separator (`:`, `=`, a table bar), the value.
_LABEL = re.compile(
    r"(?:^|(?<=[\s,;|(\[*>]))(?P<label>[A-Za-z][\w\-]*(?:[ \t][A-Za-z][\w\-]*){0,2})"
    r"[ \t]*[:=|][ \t]*"
    r"[`'\"]?(?P<value>[^\s`'\",;|=:][^\s`'\",;|]*)"
)
# One word and the value after a space: `login frank password <value>`. Not after `(` (a call or
# formula in prose: `p(token start+k+1 | ...)`), and not a plural (`tokens start..end`), which
# names things in general.
_SPACED = re.compile(
    r"(?:^|(?<=[\s,;]))(?!(?:tokens|passwords|secrets|keys)\b)(?P<label>[A-Za-z][\w\-]*)[ \t]+[`'\"]?(?P<value>(?![a-z_]+=)[^\s`'\",;|=:][^\s`'\",;|:]*)"
)
# A sentence: up to eight words, `is`/`was`, the value (never `are`: a plural subject describes
# things in general, `the tokens fed are exact`) (`The api key for the staging box is <value>`).
_SENTENCE = re.compile(
    r"(?:^|(?<=[\s,;(>]))(?P<label>[A-Za-z][\w\-]*(?:[ \t][A-Za-z][\w\-]*){0,7}?)"
    r"[ \t]+(?:(?:is|was)(?:[ \t]+set[ \t]+to)?|reads|:)[ \t]+[`'\"]?(?P<value>[^\s`'\",;|=:][^\s`'\",;|]*)"
)
# The value first: `Use <value> as the password`.
_USE_AS = re.compile(
    r"(?i)\b(?:use|using|with)[ \t]+[`'\"]?(?P<value>[^\s`'\",;|]+?)[`'\"]?[ \t]+as[ \t]+"
    r"(?P<label>(?:(?:the|your|a|an)[ \t]+)?[A-Za-z][\w\-]*(?:[ \t][A-Za-z][\w\-]*)?)"
)
# Words of a sentence that follow a label without being its value (`the password is ...`).
_FUNCTION_WORDS = frozenset(["is", "was", "are", "for", "to", "of", "the", "a", "an", "and", "or", "in", "on", "at", "by", "with", "from", "as"])
_CLOSERS = {"}": "{", "]": "["}
# A value that calls or indexes something is code, not a written-down secret.
_CODE_VALUE = re.compile(r"^[&*!]?[\w.$:<>]*[(\[{]")
# A C macro whose body is another symbol (`#define SNMP_DEFAULT_AUTH_PROTO usmHMACMD5AuthProtocol`)
# or an integer literal (`#define PASSWORD_MASK 0xFFFF0000u`): code that names a constant, not a
# label with its value (a secret macro is a string literal).
_MACRO_REFERENCE = re.compile(
    r"^\s*#\s*define\s+\w+\s+(?:[A-Za-z_]\w*|\(?-?(?:0[xX][0-9A-Fa-f]+|\d+)[uUlL]*\)?)\s*(?:/[/*].*)?$"
)
# An unquoted hex integer literal (`PASSWORD_MASK = 0xFFFF0000u;`) is a number in code, not a value.
_HEX_LITERAL = re.compile(r"0[xX][0-9A-Fa-f_]+[uUlL]*")
_DEFINE_BEFORE = re.compile(r"#[ \t]*define[ \t]+$")
_SYMBOL = re.compile(r"[A-Za-z_]\w*`?")
# A reST/Sphinx field that describes a parameter (`:param password:`, `:keyword token:`, `:type key:`,
# `:paramtype secret_attributes:`).
_PARAMETER_FIELD = re.compile(
    r"(?m)(?:^|(?<=\s)):(?:param|parameter|arg|argument|keyword|kwarg|type|paramtype|ivar|cvar|var|vartype)"
    r"(?:[ \t]+[\w.*\[\], ]+?)?[ \t]+[\w*]+:(?=[ \t]|$)(?P<rest>[^\n]*)"
)
_OPTION_BEFORE = re.compile(r"(?:^|\s)--?[A-Za-z][\w\-]*[ \t]+$")
# A word a sentence puts before a verb or a noun (`how to pass JSON-ified responses`, `the token
# string`): the label word after it is the sentence's, not a label.
_SENTENCE_WORD_BEFORE = re.compile(
    r"(?i)\b(?:to|can|could|will|would|must|should|may|might|you|we|they|not|also|then|and|or|the|a|an|this|that|your|our)[ \t]+$"
)
# `pass` is a verb before it is a label (`FIXME pass sign/sign_alg/etc`): written bare before its
# value it is one only after the user it goes with (`user admin pass <value>`).
_USER_BEFORE = re.compile(r"(?i)\b(?:user|username|login|id|account|uid)\b")
# Words in capitals joined by hyphens after a name are a keyword of the syntax, as ASN.1's macros
# in a MIB (`pysnmpUsmSecretAuthKey OBJECT-TYPE`), not a value.
_CAPITAL_KEYWORD = re.compile(r"^[A-Z]{4,}(?:-[A-Z]{4,})+$")
_TABLE_ROW_BEFORE = re.compile(r"(?:^|\|)[ \t]*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")


def described_parameter_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each parameter description in a docstring's field list, to the end of
    its line: after ``:param password:`` or ``:arg pwd:`` comes what the parameter is, in prose
    (``OPTIONAL: If a password is not set...``, ``password chars/bytes to hash``), never its value.

    Example:
        >>> text = "    :param password: OPTIONAL: a random one is generated"
        >>> [text[a:b] for a, b in described_parameter_spans(text)]
        [' OPTIONAL: a random one is generated']
    """
    return [m.span("rest") for m in _PARAMETER_FIELD.finditer(text)]


def label_values(line: str) -> Iterator[tuple[int, int, str]]:
    """``(start, end, label)`` of each value after a secret-saying label in ``line``.

    Example:
        >>> line = "ID:master,PW:Zq8xP1sV9"
        >>> [(line[a:b], label) for a, b, label in label_values(line)]
        [('Zq8xP1sV9', 'PW')]
    """
    if _MACRO_REFERENCE.match(line):
        return
    seen: set[int] = set()
    matches = [*_LABEL.finditer(line), *_SENTENCE.finditer(line), *_USE_AS.finditer(line), *_SPACED.finditer(line)]
    for match in matches:
        label = match.group("label")
        start, end = match.start("value"), match.end("value")
        if start in seen or not is_secret_name(label) or match.group("value").lower() in _FUNCTION_WORDS:
            continue
        # A value that closes a brace is the rest of an expression the label sat in
        # (`{{ domain_password }}\nwrite_kt`), not a value written after it.
        if line[start] == "}":
            continue
        # A bar separates a label from its value only in a table row (`| password | <value> |`);
        # elsewhere it is a pipe (`echo test-vault-password | ansible-vault view ...`).
        in_table = _TABLE_ROW_BEFORE.search(line, 0, match.start("label")) is not None
        if match.re is _LABEL and "|" in line[match.end("label") : start] and not in_table:
            continue
        # With nothing between them, the label's last word names what follows: `password <value>`,
        # `api-key <value>`, never `--vault-password-file vault-password-wrong <file>`; a word
        # that is an option's argument is a value itself (`--vault-password-file vault-password x.yml`),
        # and one after `to`, `the`, `can` is a sentence's verb or noun (`how to pass JSON-ified data`).
        if match.re is _SPACED and (
            not _ends_in_secret_word(label) or _OPTION_BEFORE.search(line, 0, match.start("label"))
            or _SENTENCE_WORD_BEFORE.search(line, 0, match.start("label"))
            or label.lower() == "pass" and not _USER_BEFORE.search(line, 0, match.start("label"))
            or _is_capital_keyword(match.group("value"))
        ):
            continue
        if _DEFINE_BEFORE.search(line, 0, match.start("label")) and _SYMBOL.fullmatch(match.group("value")):
            continue  # `#define NAME symbol` quoted in prose (`` `#define AUTH_PROTO usmHMACMD5` ``)
        seen.add(start)
        # Sentence punctuation after a value is not part of it, nor a bracket it did not open
        # (`{actual, pass: isPass};` closes the object the label sits in).
        while end > start and (
            line[end - 1] in ".):" or line[end - 1] in _CLOSERS and _CLOSERS[line[end - 1]] not in line[start : end - 1]
        ):
            end -= 1
        if end > start and not _CODE_VALUE.match(line[start:end]) and not is_hex_literal(line[start:end]):
            yield start, end, label


def _is_capital_keyword(value: str) -> bool:
    return bool(_CAPITAL_KEYWORD.match(value)) and all(reads_as_word(part.lower()) for part in value.split("-"))


def _ends_in_secret_word(label: str) -> bool:
    words = name_words(label)
    return bool(words) and (words[-1] in ("key", "keys") or is_secret_name(words[-1]))


def is_hex_literal(value: str) -> bool:
    """True for an integer literal in hex, as code writes it (``0xFFFF0000u``, ``0x5DEECE66DL``).

    Example:
        >>> is_hex_literal("0x7F3A9C21u"), is_hex_literal("7F3A9C21")
        (True, False)
    """
    return _HEX_LITERAL.fullmatch(value) is not None


def table_values(lines: list[str]) -> Iterator[tuple[int, int, int, str]]:
    """``(line index, start, end, column name)`` of each cell under a secret-named column of a
    Markdown table (a header row, then a rule row of dashes)."""
    columns: list[str] | None = None
    for index, line in enumerate(lines):
        if "|" not in line:
            columns = None
            continue
        if _TABLE_RULE.match(line) and index > 0 and "|" in lines[index - 1]:
            columns = [cell.strip() for cell, _, _ in _cells(lines[index - 1])]
            continue
        if columns is None:
            continue
        for column, (cell, start, end) in enumerate(_cells(line)):
            if column < len(columns) and is_secret_name(columns[column]) and cell.strip():
                value = cell.strip().strip("`")
                offset = start + cell.index(value)
                if " " not in value:
                    yield index, offset, offset + len(value), columns[column]


def _cells(line: str) -> list[tuple[str, int, int]]:
    """The cells of a table row with their offsets in the line (outer bars are no cells)."""
    cells = []
    position = 0
    parts = line.split("|")
    for number, part in enumerate(parts):
        inner = 0 < number < len(parts) - 1 or (number == 0 and part.strip()) or (number == len(parts) - 1 and part.strip())
        if inner:
            cells.append((part, position, position + len(part)))
        position += len(part) + 1
    return cells
