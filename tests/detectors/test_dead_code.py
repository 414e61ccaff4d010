from __future__ import annotations

import ast

import pytest

from smscan.detectors.dead_code import DeadCodeDetector, DeadCodeRule, constant_truth, dead_lines
from tests.detectors.scores import char_scores


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f(x):\n    return x\n    y = 2\n", {3: "unreachable"}),
        ("def f(x):\n    if abs(0.5) < 0: raise Exception('fail')\n    return x\n", {2: "constant-condition"}),
        ("def f(x):\n    if -144 > 350:\n        x = 1\n    return x\n", {2: "constant-condition", 3: "constant-condition"}),
        ("def f(x):\n    while 0 == 1: pass\n    return x\n", {2: "constant-condition"}),
        ("def f(x):\n    for _ in range(0): print(x)\n    return x\n", {2: "empty-loop"}),
        ("def f(x):\n    unused_name = 5\n    return x\n", {2: "dead-store"}),
        # A nested function's unread local is dead in that function; one the closure reads is not.
        ("def f(x):\n    y = x\n    def g():\n        z = 1\n        return y\n    return g\n", {4: "dead-store"}),
        ("def f(x):\n    if True:\n        return x\n    else:\n        return 0\n", {5: "constant-condition"}),
    ],
)
def test_dead_lines(source: str, expected: dict[int, str]) -> None:
    assert dead_lines(source) == expected


@pytest.mark.parametrize(
    "source",
    [
        "def f(x):\n    if x < 0:\n        return -x\n    return x\n",
        "def f(x):\n    y = x + 1\n    return y\n",
        "def f(xs):\n    total = 0\n    for v in xs:\n        total += v\n    return total\n",
        "def f():\n    global G\n    G = 1\n",
        "def f(x):\n    _ignored = x\n    return x\n",
        # Class attributes of a class defined in a function are read through the class.
        "def f():\n    class Ctx:\n        color = None\n    return Ctx\n",
        "not python at all (",
    ],
)
def test_live_code_has_no_dead_lines(source: str) -> None:
    assert dead_lines(source) == {}


@pytest.mark.parametrize(
    ("expression", "truth"),
    [("1 > 2", False), ("abs(-3) == 3", True), ("len('ab') < 1", False), ("not 0", True),
     ("x < 0", None), ("f(1) < 0", None), ("'a' * 10 ** 9", None), ("1 / 0 > 1", None)],
)
def test_constant_truth(expression: str, truth: bool | None) -> None:
    assert constant_truth(ast.parse(expression, mode="eval").body) is truth


# Every line judged, Python or not: the line mechanics without the evidence-only rule.
PLAIN = DeadCodeRule(evidence_bonus=0.0, min_context=1, shrink=0.0, python_lines="all")


def test_plain_line_sm_scores_the_mean_line_nll() -> None:
    text = "a = 1\nzq = 9\n"
    # 'a = 1' at NLL 1 (first token unscored), 'zq = 9' at NLL 5.
    scores = char_scores(text, [(6, 12)], high=5.0, low=1.0)

    found = DeadCodeDetector(PLAIN).candidates(text, scores)

    assert [(c.char_start, c.char_end, c.score) for c in found] == [(0, 5, 1.0), (6, 12, 5.0)]


def test_tokens_without_context_are_not_judged() -> None:
    text = "ab\ncdefgh\n"  # one token per character: line 2 starts at token 3
    scores = char_scores(text, low=3.0)

    found = DeadCodeDetector(DeadCodeRule(evidence_bonus=0.0, min_context=4, shrink=0.0)).candidates(text, scores)

    # Line 1 (tokens 0-1) and line 2's first token (3) have too little context: line 2 has a
    # NaN past index 0 and no window; nothing is left.
    assert found == []


def test_short_lines_shrink_toward_the_files_median() -> None:
    text = "aaaaaaaa\nzq\n"
    scores = char_scores(text, [(9, 11)], high=9.0, low=1.0)

    found = DeadCodeDetector(DeadCodeRule(evidence_bonus=0.0, min_context=1, shrink=2.0, python_lines="all")).candidates(text, scores)

    # 'zq': 2 tokens at 9, the file's median token NLL is 1: (2 * 9 + 2 * 1) / 4 = 5.
    assert [round(c.score, 6) for c in found] == [1.0, 5.0]


def test_evidence_raises_a_line_by_the_bonus() -> None:
    text = "def f(x):\n    return x\n    x = 1\n"
    scores = char_scores(text, low=2.0)

    found = DeadCodeDetector(DeadCodeRule(evidence_bonus=3.0, min_context=1, shrink=0.0, python_lines="all")).candidates(text, scores)

    by_line = {text.count("\n", 0, c.char_start) + 1: c for c in found}
    assert by_line[3].score == pytest.approx(5.0)
    assert by_line[3].details["evidence"] == "unreachable"
    assert by_line[2].score == pytest.approx(2.0)


def test_comments_and_docstrings_are_prose_not_code() -> None:
    text = 'def f(x):\n    """Zq doc."""\n    # Zq comment\n    return x  # Zq\n#include <stdio.h>\n'
    scores = char_scores(text, low=2.0)

    found = DeadCodeDetector(PLAIN).candidates(text, scores, python=True)

    lines = [text.count("\n", 0, c.char_start) + 1 for c in found]
    assert lines == [1, 4, 5]


def test_continuation_lines_of_a_statement_are_data_not_dead_statements() -> None:
    text = 'WORDS = [\n    "changeme",\n    "zq xv",\n]\nif WORDS:\n    pass\nelse:\n    x = call(\n        1,\n    )\n'
    scores = char_scores(text, low=2.0)

    found = DeadCodeDetector(PLAIN).candidates(text, scores, python=True)

    # Statements start on lines 1, 5, 6 and 8; the list items, the closing brackets, `else:` and
    # the call's argument are parts of a statement, never a statement of their own.
    assert [text.count("\n", 0, c.char_start) + 1 for c in found] == [1, 5, 6, 8]
