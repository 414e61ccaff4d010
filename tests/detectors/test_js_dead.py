from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from smscan.detectors import js_dead, js_syntax
from smscan.detectors.dead_code import DeadCodeDetector, DeadCodeRule
from smscan.plan.pieces import document_scores, plan_pieces
from smscan.records import Document
from tests.detectors.scores import char_scores

needs_extra = pytest.mark.skipif(not js_syntax.is_available(), reason="the js extra (tree-sitter) is not installed")


def _fn(*body: str) -> str:
    return "function f(arr, n) {\n" + "".join(f"  {line}\n" for line in body) + "}\n"


@needs_extra
@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (_fn("return n;", "n = 1;"), {3: "unreachable"}),
        (_fn("for (const x of arr) {", "  continue;", "  g(x);", "}", "return n;"), {4: "unreachable"}),
        (_fn("switch (n) {", "  case 1: return 2;", "  case 2: break; g(n);", "}", "return n;"), {4: "unreachable"}),
        (_fn('if (Math.abs(0.5) < 0) throw new Error("fail");', "return n;"), {2: "constant-condition"}),
        (_fn("if (-144 > 350) {", "  n = 1;", "}", "return n;"), {2: "constant-condition", 3: "constant-condition", 4: "constant-condition"}),
        (_fn("while (1 === 2) g(n);", "return n;"), {2: "constant-condition"}),
        (_fn("if (false) g(n);", "return n;"), {2: "disabled-branch"}),
        (_fn("if (true) {", "  return n;", "} else {", "  return 0;", "}"), {5: "disabled-branch"}),
        (_fn("for (const x of []) g(x);", "return n;"), {2: "empty-loop"}),
        (_fn("for (let i = 0; i < 0; i++) g(i);", "return n;"), {2: "empty-loop"}),
        (_fn("for (const x of arr.slice(0, 0)) g(x);", "return n;"), {2: "empty-slice"}),
        (_fn("if (arr && !arr) {", "  return n;", "}", "return n;"), {2: "impossible-condition", 3: "impossible-condition", 4: "impossible-condition"}),
        (_fn("if (n === null && n !== null) return 0;", "return n;"), {2: "impossible-condition"}),
        (_fn("if (arr.length < 0) return 0;", "return n;"), {2: "impossible-condition"}),
        (_fn("if (typeof n === 'string' && typeof n === 'number') return 0;", "return n;"), {2: "impossible-condition"}),
        (_fn("const unused = g(n);", "return n;"), {2: "dead-store"}),
        (_fn("const arrLength = arr.length;", "return n;"), {2: "dead-computation"}),
        (_fn("let a = 1;", "let b = a;", "return n;"), {2: "dead-store", 3: "dead-store"}),
        (_fn("n + 1;", "return n;"), {2: "dropped-result"}),
        (_fn("if (n) {}", "return n;"), {2: "empty-branch"}),
        # A computation in a `try` body may be there for the exception it throws: only the store is dead.
        (_fn("try {", "  const size = arr.length;", "} catch (e) {", "  return 0;", "}", "return n;"), {3: "dead-store"}),
    ],
)
def test_dead_lines(source: str, expected: dict[int, str]) -> None:
    assert js_dead.dead_lines(source) == expected


@needs_extra
@pytest.mark.parametrize(
    "source",
    [
        _fn("if (n < 0) {", "  return -n;", "}", "return n;"),
        # Function declarations are hoisted: one after a return is called before it.
        _fn("return helper(n);", "function helper(x) {", "  return x + 1;", "}"),
        _fn("var later;", "return n;", "var hoisted;"),
        # Closures, shorthand properties and JSX read the names they use.
        _fn("const total = arr.length;", "return () => total;"),
        _fn("const size = n * 2;", "return { size };"),
        "function C(props) {\n  const label = props.name.trim();\n  return <span title={label} />;\n}\n",
        _fn("const _ignored = n + 1;", "return n;"),
        _fn("const x = n + 1;", "return eval('x');"),
        _fn("let total = 0;", "for (const v of arr) {", "  total += v;", "}", "return total;"),
        # Assertion styles whose dropped member reads act (chai, should.js).
        _fn("expect(n).to.be.true;", "n.should.be.ok;"),
        # A method called for what it does (minimatch's `this.toString()` fills a cache).
        "class A {\n  m() {\n    this.toString();\n    return 1;\n  }\n}\n",
        "'use strict';\nmodule.exports = function f(n) {\n  return n;\n};\n",
    ],
)
def test_live_code_has_no_dead_lines(source: str) -> None:
    assert js_dead.parses(source)
    assert js_dead.dead_lines(source) == {}


@needs_extra
def test_typescript_parses_with_its_types() -> None:
    source = (
        "interface Point { x: number; y: number }\n"
        "export function norm<T extends Point>(p: T): number {\n"
        "  const squared: number = p.x * p.x + p.y * p.y;\n"
        "  const cast = <number>(squared as unknown);\n"
        "  return Math.sqrt(squared)!;\n"
        "  type Unused = string;\n"
        "}\n"
    )

    assert js_dead.parses(source)
    # The `<T>x` cast is read by the TypeScript grammar; a type declaration after `return` is not run.
    assert js_dead.dead_lines(source) == {4: "dead-store"}


# Judge only dead statements, with one token per character and no shrink: exact numbers.
EXACT = DeadCodeRule(evidence_bonus=2.0, strong_bonus=3.0, min_context=1, shrink=0.0)


@needs_extra
def test_a_multi_line_statement_after_return_is_found_whole() -> None:
    text = _fn("return n;", "g(n, {", "  a: 1,", "});")
    scores = char_scores(text, low=1.0)

    (block,) = DeadCodeDetector(EXACT).candidates(text, scores)

    assert text[block.char_start : block.char_end] == "g(n, {\n    a: 1,\n  });"
    assert block.details["evidence"] == "unreachable"
    # Only the statement's first line is judged (the object's items continue it): 1 + plain bonus.
    assert block.score == pytest.approx(1.0 + 2.0)


@needs_extra
def test_a_two_line_injection_is_one_candidate_scored_by_both_lines() -> None:
    text = _fn("const total = arr.length;", "if (Math.abs(0.5) < 0)", '  throw new Error("fail");', "return total;")
    body = text.index("throw")
    scores = char_scores(text, [(body, text.index(";", body) + 1)], high=5.0, low=1.0)

    (block,) = DeadCodeDetector(EXACT).candidates(text, scores)

    assert text[block.char_start : block.char_end] == 'if (Math.abs(0.5) < 0)\n    throw new Error("fail");'
    head, tail = len("if (Math.abs(0.5) < 0)"), len('throw new Error("fail");')
    assert block.score == pytest.approx((head * 1.0 + tail * 5.0) / (head + tail) + 3.0)
    assert block.details["evidence"] == "constant-condition"


@needs_extra
def test_natural_code_has_no_candidate() -> None:
    text = (
        "import { clamp } from './math.js';\n\n"
        "/** The mean of a list, clamped. */\n"
        "export function mean(values, low = 0) {\n"
        "  if (!values.length) {\n    return low;\n  }\n"
        "  let total = 0;\n"
        "  for (const value of values) {\n    total += value;\n  }\n"
        "  return clamp(total / values.length, low, Infinity);\n"
        "}\n"
    )
    detector = DeadCodeDetector()

    assert detector.regions(text, "mean.js") == []
    assert detector.candidates(text, char_scores(text, high=9.0, low=9.0)) == []


@needs_extra
def test_a_dead_statement_is_planned_and_judged_far_from_the_start() -> None:
    filler = "".join(f"export function helper{i}(x) {{\n  return x + {i};\n}}\n\n" for i in range(40))
    dead = "const nLen = n.length;"
    text = filler + _fn(dead, "return n;")
    detector = DeadCodeDetector(DeadCodeRule(min_context=1, shrink=0.0))

    (piece,) = plan_pieces(Document("m.ts", text), [detector])

    start = text.index(dead)
    assert 0 < piece.offset <= start and piece.offset + len(piece.text) >= start + len(dead)
    scores = document_scores([piece], [char_scores(piece.text, low=1.0)])
    (block,) = detector.candidates(text, scores)
    assert (block.char_start, block.char_end, block.details["evidence"]) == (start, start + len(dead), "dead-computation")


def test_broken_syntax_falls_back_to_lines() -> None:
    text = "function f(n) {\n  return n +;\n  zq();\n"
    detector = DeadCodeDetector(DeadCodeRule(min_context=1, shrink=0.0))

    assert not js_dead.parses(text)
    assert detector.regions(text, "broken.js") is None
    found = detector.candidates(text, char_scores(text, low=2.0))
    assert [text.count("\n", 0, c.char_start) + 1 for c in found] == [1, 2, 3]
    assert not any("evidence" in c.details for c in found)


@pytest.fixture
def without_extra(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """tree-sitter cannot be imported, as without the ``js`` extra."""
    for name in ("tree_sitter", "tree_sitter_javascript", "tree_sitter_typescript"):
        monkeypatch.setitem(sys.modules, name, None)  # a None entry makes `import` raise ImportError
    js_syntax._languages.cache_clear()
    js_dead._analyse.cache_clear()
    yield
    js_syntax._languages.cache_clear()
    js_dead._analyse.cache_clear()


def test_without_the_extra_javascript_is_judged_by_lines(without_extra: None) -> None:
    text = _fn("return n;", "n = 1;")
    detector = DeadCodeDetector(DeadCodeRule(min_context=1, shrink=0.0))

    assert not js_syntax.is_available() and js_syntax.grammar_versions() == ""
    assert detector.regions(text, "f.js") is None
    found = detector.candidates(text, char_scores(text, low=2.0))
    assert [text.count("\n", 0, c.char_start) + 1 for c in found] == [1, 2, 3, 4]
