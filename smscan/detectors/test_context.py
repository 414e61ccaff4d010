"""Test files, and the values their authors made up by hand.

A test suite feeds its code invented inputs on purpose: ``value='=@asdfasf'`` under
``key='SECRET'`` (python-dotenv), ``password='hunter2'``, ``token='test-token-123'``. They are
written to look like secrets, so the model finds them as surprising as one. In a test file the
credential detector asks for stricter evidence: a value typed by hand (:func:`is_made_up`) is not
a credential there, nor a digest the test expects (:func:`is_expected_digest`), nor any value
without a secret name or place: a test's unnamed strings are its inputs and expected outputs
(hashes, cookies, nonces, parser cases). A random key under a secret name, in a secret place (a
private-key block, a URL's password, a header) or in a vendor's format is judged like any other,
because real keys do leak through tests (a fixture copied from a live config).

Typed by hand means most of the value's letters and digits are explained by how people type
when they invent a value: keyboard rows (``asdf``, ``qwer``, ``zxcv``), repeated characters
(``aaaa``, ``1111``), counting (``abc``, ``123``), dictionary words and the markers that say
"not real" (``dummy``, ``fake``, ``example``, ``test``). A random 32-character key has a few
such characters by chance, far from most.
"""

from __future__ import annotations

import base64
import binascii
import re
from itertools import pairwise
from urllib.parse import unquote

from smscan.detectors.letter_pairs import reads_as_word
from smscan.detectors.text_lines import line_start_near
from smscan.detectors.value_shapes import is_hex

_TEST_DIRS = frozenset(
    "test tests testing __tests__ spec specs fixture fixtures __fixtures__ testdata test_data "
    "test-data __mocks__ mocks".split()
)
# Test modules by file-name convention: pytest (`test_x.py`, and `tests-cookbook.py` run as a
# script), Django's and unittest's `tests.py`/`test.py`, Go, Jest/Vitest/Mocha, JUnit, RSpec, the
# TAP scripts of Perl (`t/sq-brackets.t`) and PHP (`bug123.phpt`), and C's self-tests
# (`fu-self-test.c`, `selftest.c`).
_TEST_FILE = re.compile(
    r"^(?:tests?[_\-].+\.py|.+_tests?\.py|tests?\.py|conftest\.py|.+_test\.go|.+\.(?:test|spec)\.[cm]?[jt]sx?"
    r"|.+Tests?\.(?:java|kt|cs|scala)|.+_spec\.rb|.+\.t|.+\.phpt|(?:.+[-_])?self-?tests?\.[a-z]+)$"
)
_KEYBOARD_ROWS = ("1234567890", "qwertyuiop", "asdfghjkl", "zxcvbnm")
_ROW_OF = {char: (row, column) for row, keys in enumerate(_KEYBOARD_ROWS) for column, char in enumerate(keys)}
_COUNTING = "0123456789abcdefghijklmnopqrstuvwxyz"
# Words that say a value is not real: with one of them, half the value explained is enough.
_MARKERS = frozenset(
    "dummy fake example sample test testing mock fixture stub placeholder invalid bogus wrong notreal "
    "changeme".split()
)
# Words people put in invented values (at least three letters: shorter ones match random text).
_WORDS = frozenset(
    """
    abc access account admin administrator alice all api app apple auth bad bar baz bob body
    cake carol charlie cookie correct dave data database default demo dev doe dog else empty
    eve foo foobar frank guest hello hidden horse hunter jane john key letmein local login love
    magic master message monkey name new none null open pass passphrase passw passwd password
    payload pwd qux root safe secret secrets sesame shadow some spam eggs ham staple battery something super
    supersecret text the this token top user username value very welcome what world xyz
    """.split()
) | _MARKERS
_RUN = re.compile(r"[a-z0-9]+")
# Letters people write as digits or signs in invented passwords: `p@ssw0rd`, `s3cr3t`, `adm1n`.
_LEET = str.maketrans({"@": "a", "$": "s", "0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t"})
_BASE64 = re.compile(r"^[A-Za-z0-9+/_\-]{8,}={0,2}$")
# What encoded test data decodes to: `user:pass`, `{"hello": "world"}`; random bytes are not.
_READABLE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 :\"'{},.@_-=/")
# Fewer letters and digits than this carry under ~48 bits: too few for a key, plenty for a
# test's password (outside tests, short passwords are still judged: weak real ones leak).
_MIN_KEY_CHARS = 8
# Runs of letters split at case changes (`thatsAcomplPASS1x` -> thats, A, compl, PASS, x); a
# value spelt in words holds few digits. Drawn values that read as words all the same (100,000
# of each, session 20): 20 of lower case and digits 0.7%, 16 of letters and digits 0.04%, 32 none.
_CASE_RUN = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")
_MAX_WORDED_DIGITS = 3


def is_test_path(path: str) -> bool:
    """True for a file of a test suite: under a test or fixture folder, or named as a test module.

    Example:
        >>> is_test_path("tests/test_main.py"), is_test_path("src/app/auth_test.go")
        (True, True)
        >>> is_test_path("t/sq-brackets.t"), is_test_path("src/dotenv/main.py"), is_test_path("docs/testimonials.md")
        (True, False, False)
    """
    parts = path.replace("\\", "/").split("/")
    return any(part.lower() in _TEST_DIRS for part in parts[:-1]) or bool(_TEST_FILE.match(parts[-1]))


# A test written in a module beside the code it tests (dpkt's `class TestGzip`, a `def test_x()`
# that pytest collects from `dpkt/gzip.py`): Python's blocks, read back line by line from the
# value's up to this many characters, stopping at module-level code.
_TEST_BLOCK = re.compile(r"(?:async[ \t]+)?def[ \t]+test(?:_\w*|[A-Z]\w*)?[ \t]*\(|class[ \t]+Test(?:[A-Z_]\w*)?[ \t]*[(:]")
_TEST_CODE_REACH = 20_000


def in_test_code(path: str, text: str, start: int) -> bool:
    r"""True when the value at ``start`` of a Python module lies in a test function or a test
    class (``def test_...``, ``class Test...``): a test's data, as in a test file.

    Example:
        >>> text = 'def test_inflate():\n    data = unhexlify("F348CDC9C95728CF")\n'
        >>> in_test_code("pkg/gzip.py", text, text.index("F348")), in_test_code("pkg/gzip.js", text, 40)
        (True, False)
        >>> text = 'class Client:\n    def connect(self):\n        key = "F348CDC9C95728CF"\n'
        >>> in_test_code("pkg/client.py", text, text.index("F348"))
        False
    """
    if not path.endswith(".py"):
        return False
    line_start = text.rfind("\n", 0, start) + 1
    indent = _indent_of(text, line_start)
    window = max(start - _TEST_CODE_REACH, 0)
    while indent > 0 and line_start > window:
        line_start = text.rfind("\n", 0, line_start - 1) + 1
        line_indent = _indent_of(text, line_start)
        first = text[line_start + line_indent : line_start + line_indent + 1]
        if first in ("", "\n", "\r", "#") or line_indent >= indent:
            continue  # blank lines, comments and the block's own lines
        indent = line_indent  # a line further out: the block (or statement) holding the value
        if _TEST_BLOCK.match(text, line_start + line_indent):
            return True
    return False


def _indent_of(text: str, line_start: int) -> int:
    end = line_start
    while end < len(text) and text[end] in " \t":
        end += 1
    return end - line_start


# A doctest's example (`>>> connect(password="hunter2")`, or a `... ` line right below continuing
# one) is a test written in a docstring or a document. Lines are read back at most this far
# before the value (a value this far into a line is on no doctest's line).
_DOCTEST_PROMPT = re.compile(r"[ \t]*>>>[ \t]")
_DOCTEST_CONTINUATION = re.compile(r"[ \t]*\.\.\.[ \t]")
_DOCTEST_REACH = 400


def in_doctest(text: str, start: int) -> bool:
    r"""True when the value at ``start`` is on a doctest's example line: test data, as in a test file.

    Example:
        >>> text = 'Example:\n    >>> connect(host="db",\n    ...         password="hunter2")\n'
        >>> in_doctest(text, text.index("hunter2")), in_doctest('connect(password="hunter2")', 18)
        (True, False)
        >>> in_doctest('note:\n... password="hunter2"\n', 20)  # an ellipsis with no prompt above
        False
    """
    window = max(start - _DOCTEST_REACH, 0)
    line_start = line_start_near(text, start, window)
    # a continuation counts below a prompt (YAML's `...` and an ellipsis in prose are no doctest)
    while line_start is not None and line_start > window and _DOCTEST_CONTINUATION.match(text, line_start):
        line_start = line_start_near(text, line_start - 1, window)
    return line_start is not None and _DOCTEST_PROMPT.match(text, line_start) is not None


def is_made_up(value: str) -> bool:
    """True for a value typed by hand: most of its letters and digits are keyboard rows, repeats,
    counting or words (half of them, when a word says the value is not real), it has too few
    of them for a key, or it is such a value written in leetspeak (``p@ssw0rd``), percent-encoded
    (``pa%20ssword``) or in base64 (``dGVzdDp0ZXN0`` is ``test:test``).

    Example:
        >>> is_made_up("=@asdfasf"), is_made_up("hunter2"), is_made_up("test-token-123")
        (True, True, True)
        >>> is_made_up("q8Zt3kPx0wLm9Rv2aY7nBc4dE6fGh1Jk"), is_made_up("thatsAcomplPASS1x")
        (False, True)
    """
    texts = [value, _percent_decoded(value) or value, _decoded_text(value) or value]
    return any(_is_typed(text) for text in dict.fromkeys(texts))


# An assertion that opens before a value (`assert x == "..."`, `self.assertEqual(\n    b"..."`,
# `expect(...)`), looked for this far back; its brackets must still be open at the value.
_ASSERTION = re.compile(r"\bassert\w*\b|\bexpect\s*\(")
_ASSERTION_CHARS = 240
# A comparison right after the value's closing quote, maybe on the next line.
_COMPARED_AFTER = re.compile(r"""["'`]?\s*(?:==|!=)""")


def is_expected_digest(text: str, start: int, end: int) -> bool:
    """True for a hex value that a test compares with what its code computed: a digest, a
    fingerprint or a derived key the test expects, an output of the code under test.

    A key a test feeds its code is an input, bound to a name or passed to a call; the expected
    output stands in an assertion (``assert fp == "9f86d0..."``, ``assertEqual(b"9F86D0...",
    hexlify(key))``) or on one side of ``==``. Only hex: that is how digests are written.

    Example:
        >>> line = 'assert hashlib.sha1(data).hexdigest() == "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"'
        >>> is_expected_digest(line, line.index('"') + 1, len(line) - 1)
        True
        >>> line = 'key = "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12"'
        >>> is_expected_digest(line, line.index('"') + 1, len(line) - 1)
        False
    """
    if not is_hex(text[start:end]):
        return False
    if _COMPARED_AFTER.match(text, end):
        return True
    before = text[max(start - _ASSERTION_CHARS, 0) : start]
    line_start = before.rfind("\n") + 1
    if "==" in before[line_start:] or "!=" in before[line_start:]:
        return True
    found = None
    for found in _ASSERTION.finditer(before):
        pass
    if found is None:
        return False
    between = before[found.end() :]
    # On the assertion's own line, or inside brackets it opened that are not closed yet.
    return "\n" not in between or between.count("(") + between.count("[") > between.count(")") + between.count("]")


def _percent_decoded(value: str) -> str | None:
    """The text a percent-encoded value stands for, or None when it is not percent-encoding: a
    random password's ``%Da7`` is no UTF-8 escape, and decoding it anyway would eat characters
    and make the value look too short to be a key."""
    if "%" not in value:
        return None
    try:
        return unquote(value, errors="strict")
    except UnicodeDecodeError:
        return None


def _is_typed(text: str) -> bool:
    runs = _RUN.findall(text.lower())
    if sum(len(run) for run in runs) < _MIN_KEY_CHARS:
        return True
    # Runs read apart (`my-api-key`) and together (`pa ssword`), as typed and without leetspeak.
    plain = _RUN.findall(text.lower().translate(_LEET))
    return any(_are_explained(pieces) for pieces in (runs, ["".join(runs)], plain, ["".join(plain)])) or _spells_words(text)


def _spells_words(text: str) -> bool:
    """True for a value spelt in words of any vocabulary glued at case changes, with a few digits
    (`thatsAcomplPASS1x`: that's a complex pass): two runs or more of four letters or more that
    read as words (:func:`reads_as_word`) cover most of its letters. A drawn key's letters fall
    apart into runs of one or two at its case changes and digits (``Zq8xP1sV``); words joined by
    separators are a passphrase's shape (``valley-pepper-443``), judged as such. Pronounceable
    passwords read as words too (pwgen's ``sheiqu9loegahSh``): in a test file they are test data."""
    letters = sum(char.isalpha() for char in text)
    if letters < _MIN_KEY_CHARS or not text.isalnum() or sum(char.isdigit() for char in text) > _MAX_WORDED_DIGITS:
        return False
    words = [run for run in _CASE_RUN.findall(text) if len(run) >= 4 and reads_as_word(run.lower())]
    # Capitals run on at random in a drawn key (`SMBMAIEModhZ`): two words in lower case say words.
    spelt = sum(not word.isupper() for word in words) >= 2
    return spelt and sum(len(word) for word in words) >= 0.8 * letters


def _are_explained(runs: list[str]) -> bool:
    total = sum(len(run) for run in runs)
    explained = 0
    marked = False
    for run in runs:
        covered, has_marker = _explained(run)
        explained += covered
        marked = marked or has_marker
    return explained >= (0.5 if marked else 0.8) * total


def _decoded_text(value: str) -> str | None:
    """The text a base64 value encodes, or None when it is not base64 of readable text."""
    value = value.strip(".")  # a JWT's segment, written apart: `'eyJ...J9.'` then `'.eyJ...'`
    if not _BASE64.match(value):
        return None
    bare = value.rstrip("=").replace("-", "+").replace("_", "/")
    try:
        text = base64.b64decode(bare + "=" * (-len(bare) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    readable = sum(char in _READABLE for char in text)
    return text if text and readable >= 0.9 * len(text) else None


def _explained(run: str) -> tuple[int, bool]:
    """How many characters of one letter-and-digit run are explained, and whether a marker is."""
    letters = [char for char in run if char.isalpha()]
    if len(letters) == len(run) >= 4 and _is_row_mash(run):
        return len(run), False  # a mash along one row: `asdfasf`, `qwerqwer`, `jkljkl`
    covered = 0
    marked = False
    i = 0
    while i < len(run):
        word = _longest_word(run, i)
        length = max(len(word), _pattern_length(run, i))
        if length >= 3:
            covered += length
            marked = marked or word in _MARKERS and len(word) == length
            i += length
        else:
            i += 1
    return covered, marked


def _is_row_mash(run: str) -> bool:
    """True when a run of letters stays on one keyboard row, within a stretch of neighbouring
    keys (`asdfasf`); a word whose letters lie far apart on one row (`pepper`, `power`) is typed
    as a word, not mashed."""
    if len({_ROW_OF[char][0] for char in run}) != 1:
        return False
    columns = sorted({_ROW_OF[char][1] for char in run})
    return all(b - a <= 2 for a, b in pairwise(columns))


def _longest_word(run: str, start: int) -> str:
    for end in range(min(len(run), start + 13), start + 2, -1):
        if run[start:end] in _WORDS:
            return run[start:end]
    return ""


def _pattern_length(run: str, start: int) -> int:
    """Length of the typed pattern starting at ``start``: repeats, counting or neighbouring keys."""
    end = start + 1
    while end < len(run) and _is_typed_step(run[end - 1], run[end]):
        end += 1
    return end - start


def _is_typed_step(a: str, b: str) -> bool:
    if a == b:
        return True
    if a in _COUNTING and b in _COUNTING and abs(_COUNTING.index(a) - _COUNTING.index(b)) == 1:
        return True
    row_a, column_a = _ROW_OF.get(a, (-1, -9))
    row_b, column_b = _ROW_OF.get(b, (-2, -9))
    return row_a == row_b and abs(column_a - column_b) == 1
