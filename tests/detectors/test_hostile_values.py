"""Values built to make the model-free judgement slow: each must be judged in seconds.

Each case runs in a child process with a generous limit (45 s): a regular expression that
backtracks cannot be interrupted from Python, and every case took over 20 s before its fix
(exponential backtracking, or time quadratic in the value's or document's length). A linear
judgement takes well under a second on most cases, but the minified lines of 30,000 and 60,000
values take 15-17 s on a 2-core machine (about 0.5 ms a value), so a 20 s limit failed them under
load; a quadratic judgement of those lines scans hundreds of kilobytes per value. Only the limit
is timed, so the machine's speed matters little.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from smscan.detectors.credential_evidence import judged_slots
from smscan.detectors.credential_rule import CredentialRule
from smscan.detectors.slots import find_slots
from smscan.detectors.value_shapes import (
    is_dotted_name,
    is_name_of_thing,
    is_other_identifier,
)
from tests.detectors.scores import surprising_values

LIMIT_S = 45

JUDGE = """
from smscan.detectors.credential_evidence import judged_slots
from smscan.detectors.credential_rule import CredentialRule
judged_slots(TEXT, CredentialRule())
"""


def finishes(setup: str, code: str = JUDGE) -> bool:
    """True when ``code`` (after ``setup``) runs to its end within the limit in a child process."""
    program = textwrap.dedent(setup) + textwrap.dedent(code)
    try:
        subprocess.run([sys.executable, "-c", program], check=True, timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        return False
    return True


@pytest.mark.parametrize(
    "text",
    [
        # File-name extensions: `A1` read both as upper case and as a capital and digits.
        "'mode = \"x' + '.A1' * 30 + '.!\"'",
        "'password = \"x' + '.A1' * 30 + '.!\"'",
        # An image's tag: letter runs split between words with and without a separator.
        "'image = \"x:1' + 'a' * 32 + '!\"'",
        # A name of a thing: a run of capitals split into acronyms every way.
        "'mode = \"' + 'A' * 50 + '1!\"'",
        # Quadratic in the value's length: a pin's version, versions, product tokens, templates.
        "'pin = \"=1' + '.1' * 100000 + '!\"'",
        "'v = \"1' + '.1' * 100000 + '!\"'",
        "'v = \"' + '{{' * 100000 + '\"'",
        # Quadratic in the line's length: an assignment's name read from every character of a run.
        "'mode = \"x' + '.A1' * 40000 + '.!\"'",
        # Quadratic in the line's length: a minified JSON line (each value's context read from the
        # line's start, each key's colon looked for in the rest of the line), spaces after a string,
        # a run of URL-scheme characters without `://`.
        "'{' + ','.join(f'\"k{i}\":\"v{i}\"' for i in range(30000)) + '}'",
        "'x = \"a\"' + ' ' * 200000 + '!'",
        "'see ' + 'a.' * 300000 + '!'",
        # A minified line of numbers under string keys: each assignment was checked against every string.
        "'{' + ', '.join(f'\"k{i}\": {i}' for i in range(60000)) + '}'",
        # An unclosed string of escaped quotes: each quote opened a string to the line's end.
        r"""'x = ' + 'a\\"' * 100000 + '!'""",
        # JSON nested 60,000 deep: each object copied the chain of keys around it.
        "'{\"password\": ' * 60000 + '\"Zq8xP1sV9kL2\"' + '}' * 60000",
    ],
)
def test_hostile_values_are_judged_in_seconds(text: str) -> None:
    assert finishes(f"TEXT = {text}\n")


@pytest.mark.parametrize(
    "value",
    [
        "'1' + '.1' * 100000 + '!'", "'a/1' + '.1' * 100000 + ' !'", "'=1' + '.1' * 100000 + '!'",
        # A package's name: a part's letters split between its leading letters and the rest.
        "'ab-cd-' + 'a' * 100000 + '!'",
        # A policy's action: a run of capitals split into words every way.
        "'s3:Get' + 'A' * 40 + 'a!'",
    ],
)
def test_long_version_like_values_are_shaped_in_seconds(value: str) -> None:
    code = "from smscan.detectors.value_shapes import is_other_identifier\nis_other_identifier(VALUE)\n"
    assert finishes(f"VALUE = {value}\n", code)


def test_many_secret_labels_are_resolved_in_seconds() -> None:
    # 100,000 labels and as many assignments: comparing each pair takes minutes.
    setup = """
    from smscan.detectors.slot_kinds import ASSIGNMENT, LABEL, Slot
    from smscan.detectors.slots import _drop_inside_secret_labels
    SLOTS = []
    for i in range(100000):
        SLOTS.append(Slot(30 * i + 4, 30 * i + 20, "PW", LABEL))
        SLOTS.append(Slot(30 * i + 21, 30 * i + 29, "a", ASSIGNMENT))
    """
    code = "assert len(_drop_inside_secret_labels(SLOTS)) == 200000\n"
    assert finishes(setup, code)


def test_an_assignment_inside_a_secret_label_is_still_dropped() -> None:
    text = "ID:master,PW:Vw=^ub6M2EOi\nPW:aN=Xk9qT2Zp\nmode = Zq8xP1sV9kL2\n"
    assert [(text[s.start:s.end], s.where) for s in find_slots(text)] == [
        ("Vw=^ub6M2EOi", "label"), ("aN=Xk9qT2Zp", "label"), ("Zq8xP1sV9kL2", "assignment"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "detect-secrets==1.5.0\n",
        "RUN pip install --no-cache-dir detect-secrets==1.5.0 requests==2.31.0\n",
        "dependencies = \"detect-secrets==1.5.0\"\n",
        "[tool.poetry.dependencies]\ndetect-secrets = \"==1.5.0\"\n",
        # An environment marker compares a name with `==`: the name is no token.
        "brotli>=1.0.0;platform_python_implementation==\"CPython\"\n",
    ],
)
def test_pins_are_not_reported(text: str) -> None:
    assert judged_slots(text, CredentialRule()) == []


def test_a_double_equals_sign_is_no_assignment() -> None:
    text = "detect-secrets==1.5.0\nRUN pip install --no-cache-dir detect-secrets==1.5.0\n"
    assert all(not text[s.start:s.end].startswith("=") for s in find_slots(text))


@pytest.mark.parametrize("value", ["notes2.txt", "IMG_0042.JPG", "report2.Rmd", "song2.MP3", "a1.A1", "x1.R2d", "x1.Rm2d"])
def test_file_names_in_one_case_or_capitalised(value: str) -> None:
    assert is_dotted_name(value)


@pytest.mark.parametrize("value", ["SUU7ANse09.3tWx", "bGh2Yxct2bq.4QR", "x.A1b2C"])
def test_mixed_case_endings_are_no_extensions(value: str) -> None:
    assert not is_dotted_name(value)


@pytest.mark.parametrize(
    "value",
    ["python:3.12a1", "app:1.0rc1beta2", "uv:0.4.18-python3.12-slim", "x:1.2.b3", "SmolLM2-135M-Instruct", "LMHead-7B",
     "GPTNeo-Base", "ABCdef-Large"],
)
def test_images_and_names_of_things_keep_their_shapes(value: str) -> None:
    assert is_name_of_thing(value)


@pytest.mark.parametrize("value", ["ABdef-Large", "Ab-Large", "x:1Ab", "x:1-Ab"])
def test_capitals_that_split_no_way_make_no_name(value: str) -> None:
    # A name's capitals are one before a word, or an acronym (two or more) before another capital.
    assert not is_name_of_thing(value)


@pytest.mark.parametrize("value", ["1.2.3-beta", "v2.0.1+build.5", "1.2.3.rc1", "uploader/1.4.2", "=1.5.0", "== 2.0"])
def test_versions_product_tokens_and_pin_rests_are_identifiers(value: str) -> None:
    assert is_other_identifier(value)


def test_a_document_is_judged_once_for_its_plan_and_its_candidates(monkeypatch: pytest.MonkeyPatch) -> None:
    from smscan.detectors import credential

    calls: list[str] = []

    def counted(text: str, rule: CredentialRule, *, path: str = "", settled: object = None) -> list[object]:
        calls.append(path)
        return judged_slots(text, rule, path=path, settled=settled)  # type: ignore[arg-type]

    monkeypatch.setattr(credential, "judged_slots", counted)
    detector = credential.CredentialDetector()
    first, second = 'password = "Zq8xP1sV9kL2"\n', 'token = "Wm3nQ7rT5yU8"\n'
    planned = [detector.regions(text, "a.py") for text in (first, second)]
    found = [detector.candidates(text, surprising_values(text, ["Zq8xP1sV9kL2", "Wm3nQ7rT5yU8"]), path="a.py")
             for text in (first, second)]
    assert calls == ["a.py", "a.py"]
    assert [[(c.char_start, c.char_end) for c in cands] for cands in found] == planned == [[(12, 24)], [(9, 21)]]
    # Another path is judged apart: a test file's values are judged otherwise.
    detector.regions(first, "tests/test_a.py")
    assert calls == ["a.py", "a.py", "tests/test_a.py"]


def test_a_range_of_thousands_of_digits_is_judged_without_error() -> None:
    # Python refuses to read an int of over 4,300 digits: a range's ends are read only when short.
    value = "1" * 5000 + "-" + "2" * 5000
    assert not is_other_identifier(value)
    judged_slots(f'x = "{value}"\n', CredentialRule(), path="data.py")


def test_a_long_run_of_polyline_characters_is_read_in_linear_time() -> None:
    # `~` continues a polyline number: read without a bound, one run grew a single number without end
    assert finishes("TEXT = 'value = \"' + '~' * 400000 + '\"\\n'\n")
