"""Entries of a code table: a mapping literal written one entry a line, whose values are names or codes.

Two kinds of table hold values a model finds surprising and no reader takes for secrets:

- an enumeration's names keyed by their numbers (a registry copied into code: IANA's interface
  types ``98: "iso88025CRFPInt"``, status codes, opcodes), where most of the other names are plain
  words (``1: "other"``, ``94: "adsl"``);
- codes that share one prefix and differ in a number (Active Directory's attribute ids,
  ``'unicodePwd': b'ATTk589914'``, then ``'ntPwdHistory': b'ATTk589918'``): the key says what the
  code stands for, even when it names a password.

A key can be a code too: ``"PW"`` is Palau's country code where the object's other keys are
country codes (``"PT"``, ``"PY"``, ``"QA"``, a phone-number library's metadata), or where the rows
of a tab-separated table begin with them (tz's ``zone.tab``), not a password's name.

A secret keeps its place: a table keyed by numbers whose values are random (a key ring,
``{1: "Zq8x..."}``) is no table of names, a random value among names is still judged (it
switches case and digits at most characters, as no name does), and a value that is not one
prefix and a number is judged as before.
"""

from __future__ import annotations

import re

from smscan.detectors.text_lines import short_line_around

# One entry a line: a key (a number or a quoted name), `:`, a quoted value (Python's `b`/`u`/`r`
# prefixes allowed), an optional comma, and nothing else but blanks.
_ENTRY = re.compile(
    r"""[ \t]*(?P<key>0[xX][0-9A-Fa-f]+|\d+|"[^"\n]{1,80}"|'[^'\n]{1,80}')[ \t]*:[ \t]*"""
    r"""[bBuUrR]?(?P<q>["'])(?P<value>[^"'\n]{1,80})(?P=q)[ \t]*,?[ \t]*\r?"""
)
_NUMBER_KEY = re.compile(r"0[xX][0-9A-Fa-f]+|\d+")
# A plain name in a table: one word in lower case with digits maybe (`regular1822`), or letters
# alone in any case (`voiceEM`): a random key has both cases and digits.
_PLAIN_NAME = re.compile(r"[a-z][a-z0-9_.-]*|[A-Za-z][A-Za-z_.-]*")
# A code: a short prefix of letters and a number of five digits or more.
_PREFIXED_CODE = re.compile(r"(?P<prefix>[A-Za-z]{2,6})\d{5,}")

# How many entry lines on each side are read, and how many a table needs.
_REACH = 12
_MIN_NUMBERED_ENTRIES = 6
_MIN_PLAIN_SHARE = 0.6
_MIN_CODES_SHARING_PREFIX = 3
_SHARED_PREFIX_CHARS = 3
# The most characters an entry's line may have before or after its value.
_LONGEST_LINE = 240


def in_code_table(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is the value of an entry of a code table (see the module's doc)."""
    line = short_line_around(text, start, end, _LONGEST_LINE)  # an entry's line is short
    if line is None:
        return False
    line_start, line_end = line
    own = _ENTRY.fullmatch(text, line_start, line_end)
    if own is None or own.start("value") != start or own.end("value") != end:
        return False
    value = own.group("value")
    numbered_name = _NUMBER_KEY.fullmatch(own.group("key").strip("\"'")) is not None and _reads_in_parts(value)
    code = _PREFIXED_CODE.fullmatch(value) is not None
    if not (numbered_name or code):
        return False
    siblings = _sibling_entries(text, line_start, line_end)
    if code:
        shared = value[:_SHARED_PREFIX_CHARS]
        if sum(1 for _, v in siblings if _PREFIXED_CODE.fullmatch(v) and v.startswith(shared)) >= _MIN_CODES_SHARING_PREFIX:
            return True
    if not numbered_name:
        return False
    numbered = [v for k, v in siblings if _NUMBER_KEY.fullmatch(k)]
    if len(numbered) < _MIN_NUMBERED_ENTRIES:
        return False
    return sum(1 for v in numbered if _PLAIN_NAME.fullmatch(v)) >= _MIN_PLAIN_SHARE * len(numbered)


def _reads_in_parts(value: str) -> bool:
    """Whether ``value`` is written in a few runs of one kind (``iso|88025|CRFP|I|nt``), as a name
    is, not switching between cases and digits at most characters as a random key does."""
    runs = 1 + sum(1 for a, b in zip(value, value[1:]) if _kind(a) != _kind(b))
    return runs <= len(value) / 2


def _kind(c: str) -> int:
    return 0 if c.islower() else 1 if c.isupper() else 2 if c.isdigit() else 3


def _sibling_entries(text: str, line_start: int, line_end: int) -> list[tuple[str, str]]:
    """(key, value) of the entry lines next to the line at ``line_start``, up to ``_REACH`` on each
    side, stopping at the first line that is no entry; blank and comment lines are stepped over."""
    out: list[tuple[str, str]] = []
    pos = line_start
    for _ in range(_REACH):  # upwards
        if pos == 0:
            break
        prev_start = text.rfind("\n", 0, pos - 1) + 1
        entry = _entry_or_skip(text, prev_start, pos - 1)
        if entry is None:
            break
        if entry:
            out.append(entry)
        pos = prev_start
    pos = line_end
    for _ in range(_REACH):  # downwards
        if pos >= len(text):
            break
        next_end = text.find("\n", pos + 1)
        next_end = len(text) if next_end < 0 else next_end
        entry = _entry_or_skip(text, pos + 1, next_end)
        if entry is None:
            break
        if entry:
            out.append(entry)
        pos = next_end
    return out


def _entry_or_skip(text: str, start: int, end: int) -> tuple[str, str] | tuple[()] | None:
    """The line's (key, value), ``()`` for a blank or comment line, None for any other line."""
    found = _ENTRY.fullmatch(text, start, end)
    if found is not None:
        return found.group("key").strip("\"'"), found.group("value")
    stripped = text[start:end].strip()
    if not stripped or stripped.startswith(("#", "//")):
        return ()
    return None


# A key of two capital letters, quoted, as JSON and code write an ISO country or language code,
# or the first column of a table's row (`PW\t+0720+13429\tPacific/Palau` in tz's zone.tab).
_TWO_LETTER_KEY = re.compile(r"""["'](?P<code>[A-Z]{2})["'][ \t]*:|^(?P<column>[A-Z]{2})\t""", re.MULTILINE)
_CODE_KEY_REACH = 2000
_MIN_OTHER_CODE_KEYS = 3


def is_code_key(text: str, start: int, key: str) -> bool:
    r"""Whether ``key``, the name of the value at ``start``, is a two-letter code among others
    (three or more other two-letter keys within 2,000 characters on either side).

    Example:
        >>> table = '{"PT":["351"],"PW":["680","01[12]"],"PY":["595"],"QA":["974"]}'
        >>> is_code_key(table, table.index("01[12]"), "PW"), is_code_key('{"ID":"ops","PW":"Zq8xP1"}', 20, "PW")
        (True, False)
        >>> rows = "PT\t+3843-00908\tEurope/Lisbon\nPW\t+0720+13429\tPacific/Palau\nPY\t-2516-05740\nQA\t+2517+05132\n"
        >>> is_code_key(rows, rows.index("+0720"), "PW")
        True
    """
    if len(key) != 2 or not key.isupper():
        return False
    window = text[max(start - _CODE_KEY_REACH, 0) : start + _CODE_KEY_REACH]
    codes = {m.group("code") or m.group("column") for m in _TWO_LETTER_KEY.finditer(window)}
    codes.discard(key)
    return len(codes) >= _MIN_OTHER_CODE_KEYS
