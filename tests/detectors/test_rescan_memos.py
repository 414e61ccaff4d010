"""The memos that make a hook's rescan of a file with a few changed lines cheap must give exactly
what a cold analysis gives: the per-line slot memo (``slots.line_slots``) and the per-function
dead-code memo (``python_dead``), also when the remembered text moved within its file."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from smscan.detectors import python_dead, python_flow, slots
from smscan.detectors.code_lines import non_statement_lines as parsed_non_statement_lines
from smscan.detectors.python_flow import dead_in_function
from smscan.detectors.slots import find_slots
from smscan.detectors.text_memo import TextMemo

ROOT = Path(__file__).resolve().parents[2]
# Real files of this repository: code with strings, config-like lines, credential fixtures.
SAMPLES = [
    ROOT / "smscan" / "detectors" / "slots.py",
    ROOT / "smscan" / "detectors" / "python_flow.py",
    ROOT / "tests" / "detectors" / "test_slots.py",
    ROOT / "tests" / "detectors" / "test_credential.py",
    ROOT / "tests" / "detectors" / "test_dead_code.py",
]
SECRET_LINES = [
    'db_url = "postgres://admin:hunter2x9@db.example.com/prod"',
    "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "curl -u deploy:S3cr3tPassw0rd https://api.example.com/v1?token=ab12cd34ef56ab78",
    "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlLXg",
    "password: Vw=^ub6M2EOi  user: etl",
    "<add key=\"ApiKey\" value=\"9f8e7d6c5b4a39281706f5e4d3c2b1a0\" />",
    "x" * (slots.LINE_MEMO_CHARS + 5) + ' key="a9Zq81LmPw03XyTr"',  # past the memo: searched each time
]


def _cold_slots(text: str) -> list[slots.Slot]:
    slots._line_slots_at_zero.cache_clear()
    slots._slots_of.cache_clear()
    return find_slots(text)


@pytest.mark.parametrize("offset", [0, 1, 4099])
def test_remembered_line_slots_are_the_finders_slots_at_any_offset(offset: int) -> None:
    lines = [line for path in SAMPLES for line in path.read_text(encoding="utf-8").split("\n")] + SECRET_LINES
    slots._line_slots_at_zero.cache_clear()
    found_any = 0
    for line in lines:
        expected = list(slots._line_slots(line, offset))
        found_any += bool(expected)
        assert list(slots.line_slots(line, offset)) == expected, line
        assert list(slots.line_slots(line, offset)) == expected, line  # the remembered answer
    assert found_any > 50  # the samples do hold slots


def test_a_document_with_a_few_changed_lines_has_the_slots_of_a_cold_search() -> None:
    base = (ROOT / "tests" / "detectors" / "test_credential.py").read_text(encoding="utf-8")
    find_slots(base)  # remembers every line of the file
    lines = base.split("\n")
    changed = "\n".join([*lines[:40], *SECRET_LINES[:3], *lines[40:], SECRET_LINES[3]])
    warm = find_slots(changed)
    assert warm == _cold_slots(changed)
    assert any(changed[s.start : s.end] == "hunter2x9" for s in warm)


FUNCTIONS = '''
import functools


@functools.lru_cache(maxsize=None)
def cached(x):
    unused = len(x)
    return x


class Holder:
    def method(self, a, b):
        total = a + b
        if a and not a:
            return 1
        return a

    async def run(self):
        n = 1
        len(self)
        return None
'''


def _cold_statements(source: str) -> tuple[python_dead.DeadStatement, ...] | None:
    python_dead._FUNCTION_MEMO.clear()
    python_dead._analyse.cache_clear()
    return python_dead.dead_statements(source)


def _walked_statements(source: str) -> list[python_dead.DeadStatement]:
    """Dead statements of every function, straight from the data-flow judgement (no memo)."""
    return [
        python_dead.DeadStatement(statement.lineno, int(statement.end_lineno or statement.lineno), reason)
        for node in ast.walk(ast.parse(source)) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        for statement, reason in dead_in_function(node)
    ]  # fmt: skip


def test_remembered_functions_moved_down_the_file_report_their_new_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    cold = _cold_statements(FUNCTIONS)
    assert cold is not None and {s.reason for s in cold} >= {"dead-computation", "dead-store", "dropped-result"}
    moved = "# a header\n# of three lines\n\n" + FUNCTIONS + "\n\ndef added():\n    y = 2\n    return 3\n"
    python_dead._analyse.cache_clear()  # the document is new; its functions are remembered
    assert len(python_dead._FUNCTION_MEMO) == 3
    judged: list[str] = []

    def counted(function: ast.FunctionDef | ast.AsyncFunctionDef):  # type: ignore[no-untyped-def]
        judged.append(function.name)
        return dead_in_function(function)

    monkeypatch.setattr(python_flow, "dead_in_function", counted)
    warm = python_dead.dead_statements(moved)
    assert judged == ["added"]  # the three others came from the memo
    monkeypatch.undo()
    assert warm == _cold_statements(moved)
    flow = _walked_statements(moved)
    assert flow and set(flow) <= set(warm or ())
    assert [s.first for s in flow if s.reason == "dead-computation"] == [s.first + 3 for s in cold if s.reason == "dead-computation"]


def test_the_same_function_twice_in_a_file_is_reported_at_both_places() -> None:
    function = "def twin(a):\n    spare = a * 2\n    return a\n"
    source = function + "\n\n" + function
    statements = _cold_statements(source)
    assert statements is not None
    assert [s.first for s in statements if s.reason == "dead-computation"] == [2, 7]
    python_dead._analyse.cache_clear()
    assert python_dead.dead_statements(source) == statements


def test_a_lone_carriage_return_skips_the_memo_and_keeps_python_lines() -> None:
    source = "def f(a):\r    spare = a * 2\r    return a\r"
    statements = _cold_statements(source)
    assert statements == tuple(_walked_statements(source))
    assert [s.first for s in statements] == [2]
    assert not python_dead._FUNCTION_MEMO


def test_non_statement_lines_come_from_the_same_walk() -> None:
    source = (ROOT / "smscan" / "detectors" / "python_dead.py").read_text(encoding="utf-8")
    assert python_dead.non_statement_lines(source) == parsed_non_statement_lines(source)
    assert python_dead.non_statement_lines("def broken(:\n") == set()


def _edited(source: str, share: float) -> str:
    """``source`` with two statements on one line and a continuation inserted before the top-level
    statement ``share`` of the way down, and a function appended: remembered statements move,
    new ones appear."""
    starts = [
        min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]) for node in ast.parse(source).body
    ]
    at = starts[int(share * (len(starts) - 1))] - 1
    lines = source.split("\n")
    return "\n".join([*lines[:at], "first = 1; second = [", "    2]", *lines[at:], "def extra(a):", "    spare = a * 2", "    return a", ""])


@pytest.mark.parametrize("path", sorted((ROOT / "smscan" / "detectors").glob("*.py"))[::4], ids=lambda p: p.name)
def test_the_remembered_analysis_is_the_walk_of_the_whole_tree(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    python_dead._PART_MEMO.clear()
    python_dead._FUNCTION_MEMO.clear()
    for text in (source, _edited(source, 0.5), _edited(source, 0.0)):
        python_dead._analyse.cache_clear()
        assert python_dead._analyse(text) == python_dead._walked(ast.parse(text)), path
    assert python_dead._PART_MEMO  # the edits were answered from remembered parts


def test_statements_sharing_a_line_are_remembered_apart() -> None:
    source = "def f(a):\n    return a\n    spare = 1\nx = [\n    1]; y = 2\nif 0: z = 3\n"
    python_dead._PART_MEMO.clear()
    python_dead._analyse.cache_clear()
    first = python_dead._analyse(source)
    assert first == python_dead._walked(ast.parse(source))
    python_dead._analyse.cache_clear()
    moved = "import os\n" + source
    assert python_dead._analyse(moved) == python_dead._walked(ast.parse(moved))
    assert first is not None
    assert [(s.first, s.reason) for s in first.statements] == [(6, "disabled-branch"), (3, "unreachable"), (3, "dead-store")]
    # Line 5 continues `x = [` but starts `y`: a statement start of one part clears another's line.
    assert first.non_statement_lines == frozenset()


def test_a_text_memo_keeps_at_most_its_characters_oldest_out_first() -> None:
    memo: TextMemo[str, int] = TextMemo(max_chars=100, max_key_chars=60)
    for index in range(10):
        memo.put(f"{index:02d}" + "x" * 28, index, chars=30)
    assert memo.chars <= 100 and len(memo) == 3
    assert [memo.get(f"{index:02d}" + "x" * 28) for index in (6, 7, 8, 9)] == [None, 7, 8, 9]
    memo.put("y" * 61, 1, chars=61)  # larger than a key may be: not kept
    assert memo.get("y" * 61) is None and len(memo) == 3
    memo.put("07" + "x" * 28, 70, chars=30)  # kept again: counted once
    assert memo.chars == 90 and memo.get("07" + "x" * 28) == 70
