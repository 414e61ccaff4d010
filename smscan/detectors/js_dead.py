"""JavaScript and TypeScript statements that never run or never matter, from tree-sitter trees.

The JavaScript side of :mod:`smscan.detectors.python_dead`, with the same reasons and blocks:

- ``unreachable``: after ``return``/``throw``/``break``/``continue`` in the same block or
  ``case`` (hoisted function declarations and TypeScript type declarations excepted: they are
  not run where they stand);
- ``constant-condition``: an ``if``/``while``/``for`` whose test is a false constant expression
  (literals and ``Math`` functions only: ``Math.abs(0.5) < 0``), with its body; the ``else`` of a
  true one; ``disabled-branch`` when the test is a bare literal (``if (false)``, ``if (0)``);
- ``empty-loop``: a ``for`` over an empty literal (``[]``, ``{}``, ``""``), or a counting loop whose
  test fails on its first value (``for (let i = 0; i < 0; i++)``);
- the data-flow kinds of :mod:`smscan.detectors.js_flow`: ``impossible-condition``,
  ``empty-slice``, ``dead-store``, ``dead-computation``, ``dropped-result``, ``empty-branch``.

Without the ``js`` extra, or for text that no grammar reads whole, :func:`dead_statements` is None
and the dead-code detector judges the text by lines.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from smscan.detectors import js_expressions, js_flow, js_syntax
from smscan.detectors.js_constants import COMPARE, constant_truth
from smscan.detectors.js_expressions import number_value, operator, unwrap
from smscan.detectors.js_syntax import (
    FUNCTIONS,
    Node,
    first_line,
    last_line,
    text_of,
    walk,
)
from smscan.detectors.python_dead import DeadCodeAnalysis, DeadStatement, merge_into_blocks

# Statements that leave the block they are in.
_TERMINATORS = frozenset({"return_statement", "throw_statement", "break_statement", "continue_statement"})
# Statements that are not run where they stand: hoisted functions, types, nothing.
_NOT_RUN = frozenset({
    "function_declaration", "generator_function_declaration", "type_alias_declaration",
    "interface_declaration", "ambient_declaration", "empty_statement", "comment",
})
_LITERALS = frozenset({"number", "string", "true", "false", "null", "undefined"})
_COMMENTS = ("//", "/*", "*")


# A scan asks several times per document (what to score, then what to judge): remember a few.
@lru_cache(maxsize=32)
def _analyse(source: str) -> DeadCodeAnalysis | None:
    root = js_syntax.parse(source)
    if root is None:
        return None
    found: list[DeadStatement] = []
    for node in walk(root):
        statements = _statement_list(node)
        if statements:
            found.extend(_dead_in_block(statements))
        if node.type in FUNCTIONS:
            found.extend(_whole(statement, reason) for statement, reason in js_flow.dead_in_function(node))
    return DeadCodeAnalysis(tuple(found), frozenset(js_syntax.non_statement_lines(root)))


def parses(source: str) -> bool:
    """Whether ``source`` is JavaScript or TypeScript that a grammar reads without an error."""
    return _analyse(source) is not None


def dead_statements(source: str) -> tuple[DeadStatement, ...] | None:
    """Every dead statement of ``source``, or None when it is not JavaScript or TypeScript."""
    analysis = _analyse(source)
    return None if analysis is None else analysis.statements


def dead_blocks(source: str) -> list[DeadStatement]:
    """Dead statements grouped into blocks, as :func:`smscan.detectors.python_dead.dead_blocks`.

    Example:
        >>> dead_blocks("function f(x) {\\n  return x;\\n  x = 1;\\n}\\n")  # doctest: +SKIP
        [DeadStatement(first=3, last=3, reason='unreachable')]
    """
    return merge_into_blocks(dead_statements(source) or (), source.split("\n"), comments=_COMMENTS)


def dead_lines(source: str) -> dict[int, str]:
    """1-based line -> reason for every line of a dead statement (the first reason found)."""
    found: dict[int, str] = {}
    for statement in dead_statements(source) or ():
        for line in range(statement.first, statement.last + 1):
            found.setdefault(line, statement.reason)
    return found


def non_statement_lines(source: str) -> set[int]:
    """Lines of JavaScript that continue a statement (empty when it does not parse)."""
    analysis = _analyse(source)
    return set(analysis.non_statement_lines) if analysis is not None else set()


def _statement_list(node: Node) -> list[Node]:
    if node.type in ("program", "statement_block"):
        return [child for child in node.named_children if child.type != "comment"]
    if node.type in ("switch_case", "switch_default"):
        return [child for index, child in enumerate(node.children)
                if node.field_name_for_child(index) == "body" and child.type != "comment"]
    return []


def _dead_in_block(statements: list[Node]) -> Iterator[DeadStatement]:
    reachable = True
    for statement in statements:
        if not reachable and statement.type not in _NOT_RUN and not _only_hoists(statement):
            yield _whole(statement, "unreachable")
        elif statement.type in _TERMINATORS:
            reachable = False
        # Unreachable statements are judged too: a dead branch after a return may also be one
        # that could never run anyway, the stronger evidence.
        if statement.type in ("if_statement", "while_statement"):
            yield from _dead_branches(statement)
        elif statement.type == "for_statement":
            yield from _dead_counting_loop(statement)
        elif statement.type == "for_in_statement":
            iterable = statement.child_by_field_name("right")
            if iterable is not None and _is_empty_literal(unwrap(iterable)):
                yield _whole(statement, "empty-loop")
            elif iterable is not None and js_expressions.is_empty_slice(iterable):
                yield _whole(statement, "empty-slice")


def _only_hoists(statement: Node) -> bool:
    """``var x;``: a declaration without a value only hoists a name."""
    return statement.type == "variable_declaration" and all(
        d.child_by_field_name("value") is None for d in statement.named_children if d.type == "variable_declarator")


def _dead_branches(statement: Node) -> Iterator[DeadStatement]:
    condition = statement.child_by_field_name("condition")
    body = statement.child_by_field_name("consequence" if statement.type == "if_statement" else "body")
    if condition is None or body is None:
        return
    test = unwrap(condition)
    truth = constant_truth(test)
    reason = "disabled-branch" if test.type in _LITERALS else "constant-condition"
    if truth is False:
        yield DeadStatement(first_line(statement), last_line(body), reason)
    elif truth is True and statement.type == "if_statement":
        alternative = statement.child_by_field_name("alternative")
        for dead in _else_statements(alternative):
            yield _whole(dead, reason)
    elif truth is None and js_expressions.is_impossible(condition):
        yield DeadStatement(first_line(statement), last_line(body), "impossible-condition")


def _else_statements(alternative: Node | None) -> list[Node]:
    """The statements an ``else`` runs (those of its block, or its one statement)."""
    if alternative is None:
        return []
    inner = [child for child in alternative.named_children if child.type != "comment"]
    if len(inner) == 1 and inner[0].type == "statement_block":
        return _statement_list(inner[0])
    return inner


def _dead_counting_loop(statement: Node) -> Iterator[DeadStatement]:
    condition = statement.child_by_field_name("condition")
    if condition is None or condition.type == "empty_statement":
        return
    test = unwrap(condition.named_children[0] if condition.type == "expression_statement" else condition)
    truth = constant_truth(test)
    if truth is False:
        reason = "disabled-branch" if test.type in _LITERALS else "constant-condition"
        yield _whole(statement, reason)
    elif truth is None and _fails_first(statement.child_by_field_name("initializer"), test):
        yield _whole(statement, "empty-loop")


def _fails_first(initializer: Node | None, test: Node) -> bool:
    """``let i = A`` and a test ``i < B`` (any comparison with a number) false for ``i = A``."""
    if initializer is None or initializer.type not in ("lexical_declaration", "variable_declaration"):
        return False
    declarators = [d for d in initializer.named_children if d.type == "variable_declarator"]
    if len(declarators) != 1 or test.type != "binary_expression":
        return False
    name, value = declarators[0].child_by_field_name("name"), declarators[0].child_by_field_name("value")
    start = number_value(value) if value is not None else None
    left, right = unwrap(test.child_by_field_name("left")), unwrap(test.child_by_field_name("right"))
    if name is None or start is None or operator(test) not in ("<", "<=", ">", ">=", "===", "=="):
        return False
    bound = number_value(right) if left.type == "identifier" and text_of(left) == text_of(name) else None
    if bound is None:
        return False
    return not COMPARE[operator(test)](start, bound)


def _is_empty_literal(node: Node) -> bool:
    if node.type in ("array", "object"):
        return not [child for child in node.named_children if child.type != "comment"]
    return node.type == "string" and len(text_of(node)) == 2


def _whole(statement: Node, reason: str) -> DeadStatement:
    return DeadStatement(first_line(statement), last_line(statement), reason)
