from __future__ import annotations

import ast

import pytest

from smscan.detectors.dead_code import (
    DeadCodeDetector,
    DeadCodeRule,
    constant_truth,
    dead_lines,
)
from smscan.detectors.python_dead import dead_blocks
from smscan.plan.pieces import document_scores, plan_pieces
from smscan.records import Document
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
        # A bare literal test is the idiom that switches code off on purpose.
        ("def f(x):\n    if True:\n        return x\n    else:\n        return 0\n", {5: "disabled-branch"}),
        ("def f(x):\n    if 0:\n        x = 1\n    return x\n", {2: "disabled-branch", 3: "disabled-branch"}),
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


# --- data-flow evidence (smscan/detectors/python_flow.py) ---------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # Conditions that cannot hold whatever the values are.
        ("def f(n):\n    if n and not n:\n        return 0\n    return n\n", {2: "impossible-condition", 3: "impossible-condition"}),
        ("def f(n):\n    if n is None and n is not None: return n\n    return n\n", {2: "impossible-condition"}),
        ("def f(a, b):\n    while a == b and a != b:\n        a = b\n    return a\n", {2: "impossible-condition", 3: "impossible-condition"}),
        ("def f(xs):\n    if len(xs) < 0: raise ValueError('x')\n    return xs\n", {2: "impossible-condition"}),
        ("def f(xs):\n    if -1 >= len(xs): return 1\n    return xs\n", {2: "impossible-condition"}),
        ("def f(x):\n    while not isinstance(x, object): x = None\n    return x\n", {2: "impossible-condition"}),
        # A loop over an empty slice.
        ("def f(xs):\n    for v in xs[:0]:\n        print(v)\n    return xs\n", {2: "empty-slice", 3: "empty-slice"}),
        # A store only another dead store reads is dead too.
        ("def f(x):\n    a = 1\n    b = a\n    return x\n", {2: "dead-store", 3: "dead-store"}),
        # A pure builtin's result dropped; a computed value nothing reads.
        ("def f(xs):\n    len(xs)\n    return xs\n", {2: "dropped-result"}),
        ("def f(xs):\n    xs_len = len(xs)\n    return xs\n", {2: "dead-computation"}),
        ("def f(a, b):\n    total = a + b[0]\n    return a\n", {2: "dead-computation"}),
        # A literal, a plain name, a call that may act, or a computation made for its exception.
        ("def f(x):\n    blech = None\n    return x\n", {2: "dead-store"}),
        ("def f(x):\n    res = x.run()\n    return x\n", {2: "dead-store"}),
        ("def f(t, s):\n    with t.assertRaises(ValueError):\n        r = s % 2\n", {3: "dead-store"}),
    ],
)
def test_data_flow_evidence(source: str, expected: dict[int, str]) -> None:
    assert dead_lines(source) == expected


@pytest.mark.parametrize(
    "source",
    [
        "def f(n, m):\n    if n and not m:\n        return 0\n    return n\n",
        # A call may have side effects or return different values each time.
        "def f(g):\n    if g() and not g():\n        return 0\n    return 1\n",
        "def f(xs):\n    if len(xs) < 1:\n        return 0\n    return 1\n",
        "def f(xs):\n    for v in xs[:1]:\n        print(v)\n",
        "def f(xs):\n    for v in xs[1:0:-1]:\n        print(v)\n",
        # A store read by live code; names read through locals() are not known to be dead.
        "def f(x):\n    a = 1\n    b = a\n    return b\n",
        "def f(x):\n    a = x\n    return locals()\n",
        "def f(x):\n    a = x\n    return eval('a')\n",
        # A conversion made for the exception it raises; a call that is no pure builtin.
        "def f(s):\n    try:\n        int(s)\n    except ValueError:\n        return False\n    return True\n",
        "def f(xs):\n    print(xs)\n    xs.sort()\n",
        # Exhausting an iterator is an effect; a conversion checked by assertRaises is the test.
        "def f(it):\n    tuple(it)\n",
        "def f(t, s):\n    with t.assertRaises(ValueError):\n        int(s)\n",
    ],
)
def test_live_code_has_no_data_flow_evidence(source: str) -> None:
    assert dead_lines(source) == {}


# --- blocks: a dead statement is judged and reported whole ------------------------------------


def test_dead_blocks_group_a_statement_with_its_body_and_adjacent_dead_statements() -> None:
    source = (
        "def f(x):\n"
        "    if 1 > 2:\n"        # 2-3: a dead if and its body
        "        x = 3\n"
        "    return x\n"
        "    y = 1\n"            # 5-7: the tail after a return, a comment between
        "    # note\n"
        "    z = 2\n"
    )

    blocks = [(b.first, b.last, b.reason) for b in dead_blocks(source)]

    assert blocks == [(2, 3, "constant-condition"), (5, 7, "unreachable")]


TWO_LINES = "def f(x):\n    y = x + 1\n    if 1 > 2:\n        print('zq')\n    return y\n"


def test_a_two_line_block_is_one_candidate_scored_by_both_lines() -> None:
    # 'if 1 > 2:' at NLL 1, "print('zq')" at NLL 5: judged apart, the if line alone would be low.
    body = TWO_LINES.index("print")
    scores = char_scores(TWO_LINES, [(body, body + len("print('zq')"))], high=5.0, low=1.0)
    rule = DeadCodeRule(evidence_bonus=0.0, strong_bonus=None, min_context=1, shrink=0.0)

    found = DeadCodeDetector(rule).candidates(TWO_LINES, scores)

    (block,) = found
    assert TWO_LINES[block.char_start : block.char_end] == "if 1 > 2:\n        print('zq')"
    # Token-weighted mean over both lines: (9 * 1 + 11 * 5) / 20.
    assert block.score == pytest.approx((9 * 1.0 + 11 * 5.0) / 20)
    assert block.details["evidence"] == "constant-condition"


def test_line_units_judge_each_line_alone() -> None:
    body = TWO_LINES.index("print")
    scores = char_scores(TWO_LINES, [(body, body + len("print('zq')"))], high=5.0, low=1.0)
    rule = DeadCodeRule(evidence_bonus=0.0, strong_bonus=None, min_context=1, shrink=0.0, units="line")

    found = DeadCodeDetector(rule).candidates(TWO_LINES, scores)

    assert [(TWO_LINES.count("\n", 0, c.char_start) + 1, c.score) for c in found] == [(3, 1.0), (4, 5.0)]


def test_continuation_lines_add_nothing_to_a_blocks_score() -> None:
    # A dead store of test data: only the statement's first line is judged, not its strings.
    text = 'def f(x):\n    cases = [\n        "zq~9!",\n    ]\n    return x\n'
    data = text.index('"zq')
    scores = char_scores(text, [(data, data + 7)], high=9.0, low=1.0)

    (block,) = DeadCodeDetector(DeadCodeRule(evidence_bonus=0.0, min_context=1, shrink=0.0)).candidates(text, scores)

    assert text[block.char_start : block.char_end].startswith("cases = [")
    assert block.char_end == text.index("]") + 1
    assert block.score == pytest.approx(1.0)


def test_regions_cover_each_dead_block() -> None:
    spans = DeadCodeDetector().regions(TWO_LINES, "f.py")

    assert spans is not None and len(spans) == 1
    start, end = spans[0]
    assert start == TWO_LINES.index("if 1 > 2")
    assert end >= TWO_LINES.index("print('zq')") + len("print('zq')")


def test_unknown_units_are_refused() -> None:
    with pytest.raises(ValueError, match="units"):
        DeadCodeRule(units="token")


def test_a_block_with_strong_evidence_takes_the_strong_bonus() -> None:
    # An unreachable `if` that could never run anyway: the block is judged by the stronger evidence.
    text = "def f(n):\n    return n\n    if n and not n:\n        return 0\n"
    scores = char_scores(text, low=1.0)
    rule = DeadCodeRule(evidence_bonus=2.0, strong_bonus=5.0, min_context=1, shrink=0.0)

    (block,) = DeadCodeDetector(rule).candidates(text, scores)

    assert block.details["evidence"] == "impossible-condition"
    assert block.score == pytest.approx(1.0 + 5.0)


def test_weak_evidence_keeps_the_plain_bonus() -> None:
    text = "def f(x):\n    blech = None\n    return x\n"
    scores = char_scores(text, low=1.0)
    rule = DeadCodeRule(evidence_bonus=2.0, strong_bonus=5.0, min_context=1, shrink=0.0)

    (block,) = DeadCodeDetector(rule).candidates(text, scores)

    assert block.details["evidence"] == "dead-store"
    assert block.score == pytest.approx(1.0 + 2.0)


@pytest.mark.parametrize(
    ("dead", "reason"),
    [
        ("if n and not n:\n        return 0", "impossible-condition"),
        ("for c in n[:0]:\n        print(c)", "empty-slice"),
        ("n_len = len(n)", "dead-computation"),
        ("len(n)", "dropped-result"),
    ],
)
def test_each_data_flow_kind_is_planned_and_judged(dead: str, reason: str) -> None:
    # Far from the file's start, so only the planned piece around the dead statement is scored.
    filler = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n\n" for i in range(40))
    text = filler + f"def f(n):\n    {dead}\n    return n\n"
    document = Document("m.py", text)
    detector = DeadCodeDetector(DeadCodeRule(min_context=1, shrink=0.0))

    pieces = plan_pieces(document, [detector])

    start = text.index(dead)
    assert len(pieces) == 1 and 0 < pieces[0].offset <= start
    assert pieces[0].offset + len(pieces[0].text) >= start + len(dead)
    scores = document_scores(pieces, [char_scores(piece.text, low=1.0) for piece in pieces])
    (block,) = DeadCodeDetector(DeadCodeRule(min_context=1, shrink=0.0)).candidates(text, scores)
    assert (block.char_start, block.char_end) == (start, start + len(dead))
    assert block.details["evidence"] == reason
