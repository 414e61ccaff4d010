"""Python statements that never run or never matter, found from the code alone (:mod:`ast`).

Each dead statement is reported whole (its first to last line) with the reason:

- ``unreachable``: after ``return``/``raise``/``break``/``continue`` in the same block;
- ``constant-condition``: an ``if``/``while`` whose test is a false constant expression (literals
  and pure builtins only: ``abs(0.5) < 0``), with its body; the ``else`` of a true one;
- ``disabled-branch``: the same when the test is a bare literal (``if 0:``, ``if False:``), the
  idiom people use to switch code off on purpose;
- ``empty-loop``: a ``for`` over an empty constant (``range(0)``, ``[]``);
- the data-flow kinds of :mod:`smscan.detectors.python_flow`: ``impossible-condition``,
  ``empty-slice``, ``dead-store``, ``dropped-result``.

:func:`dead_blocks` groups the dead statements into blocks, the unit a finding reports: a block is
one dead statement with everything under it, or a run of dead statements on adjacent lines (the
tail after a ``return``, a two-line injection), so a dead ``if`` is judged with its body.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from smscan.detectors import python_flow
from smscan.detectors.code_lines import StatementLines
from smscan.detectors.text_memo import TextMemo

# Evidence that a statement cannot run or does nothing at all, and that real code rarely holds by
# accident (on clean code, dead stores and unreachable tails are the usual evidence; see
# docs/BENCHMARKS.md): it may weigh more than the rest (DeadCodeRule.strong_bonus).
# A dropped ``repr(x)`` or ``hash(x)`` is not strong: tests call them for what the object's own
# ``__repr__`` or ``__hash__`` does.
STRONG_REASONS = frozenset({"constant-condition", "impossible-condition", "empty-loop", "empty-slice", "dead-computation"})


@dataclass(frozen=True, slots=True)
class DeadStatement:
    """Lines ``first..last`` (1-based, inclusive) of one dead statement, and why it is dead."""

    first: int
    last: int
    reason: str


@dataclass(frozen=True, slots=True)
class DeadCodeAnalysis:
    """One parse and walk of a source file (Python here, JavaScript in :mod:`.js_dead`): its dead
    statements and the lines that are no statement of their own."""

    statements: tuple[DeadStatement, ...]
    non_statement_lines: frozenset[int]


def dead_lines(source: str) -> dict[int, str]:
    """Lines of Python source that provably never run or never matter, with the reason.

    Returns:
        1-based line number -> reason (the first found for the line); empty when the source is
        not Python (does not parse).

    Example:
        >>> dead_lines("def f(x):\\n    return x\\n    x = 1\\n")
        {3: 'unreachable'}
    """
    found: dict[int, str] = {}
    for statement in dead_statements(source) or ():
        for line in range(statement.first, statement.last + 1):
            found.setdefault(line, statement.reason)
    return found


def dead_blocks(source: str) -> list[DeadStatement]:
    """Dead statements grouped into blocks, in line order: overlapping ones merge, and so do
    those with only blank or comment lines between them. A merged block takes the reason of its
    first statement, or of its first with strong evidence (``STRONG_REASONS``) when it has one.

    Example:
        >>> dead_blocks("def f(x):\\n    if 1 > 2:\\n        x = 3\\n    return x\\n")
        [DeadStatement(first=2, last=3, reason='constant-condition')]
    """
    return merge_into_blocks(dead_statements(source) or (), source.split("\n"), comments=("#",))


def merge_into_blocks(statements: Iterable[DeadStatement], lines: list[str], *, comments: tuple[str, ...]) -> list[DeadStatement]:
    """Dead statements of any language grouped into blocks as :func:`dead_blocks` says; lines
    that start with one of ``comments`` (stripped) count as blank between two statements."""
    blocks: list[DeadStatement] = []
    for statement in sorted(statements, key=lambda s: (s.first, -s.last)):
        if blocks and _only_blank_between(lines, blocks[-1].last, statement.first, comments):
            last = blocks[-1]
            strong = last.reason in STRONG_REASONS or statement.reason not in STRONG_REASONS
            reason = last.reason if strong else statement.reason
            blocks[-1] = DeadStatement(last.first, max(last.last, statement.last), reason)
        else:
            blocks.append(statement)
    return blocks


def _only_blank_between(lines: list[str], last: int, first: int, comments: tuple[str, ...]) -> bool:
    """Whether 1-based lines ``last+1 .. first-1`` are blank or comments (true when they overlap)."""
    between = lines[last : max(first - 1, last)]
    return all(not line.strip() or line.lstrip().startswith(comments) for line in between)


def parses(source: str) -> bool:
    """Whether ``source`` is Python (answered from the remembered analysis)."""
    return dead_statements(source) is not None


def dead_statements(source: str) -> tuple[DeadStatement, ...] | None:
    """Every dead statement of ``source`` in walk order, or None when it does not parse."""
    analysis = _analyse(source)
    return None if analysis is None else analysis.statements


def non_statement_lines(source: str) -> set[int]:
    """:func:`smscan.detectors.code_lines.non_statement_lines` of ``source``, from the same parse
    and walk as its dead statements (empty when it does not parse)."""
    analysis = _analyse(source)
    return set(analysis.non_statement_lines) if analysis is not None else set()


# A scan asks several times per document (what to score, then what to judge): remember a few.
@lru_cache(maxsize=32)
def _analyse(source: str) -> DeadCodeAnalysis | None:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if "\r" in source:  # Python also ends a line at a lone "\r": remembered line numbers would not be ours
        return _walked(tree)
    lines = source.split("\n")
    parts = [(first, _part(statement, first, lines)) for statement, first in _top_level(tree)]
    # ast.walk's order, breadth first: the module's own block, then each depth of every top-level
    # statement's subtree in turn (a subtree's nodes of one depth are contiguous in the walk).
    found = list(_dead_in_block(tree.body)) if tree.body else []
    for depth in range(max((len(part.levels) for _, part in parts), default=0)):
        for first, part in parts:
            if depth < len(part.levels):
                found.extend(DeadStatement(dead.first + first, dead.last + first, dead.reason) for dead in part.levels[depth])
    statement_lines = StatementLines()
    for first, part in parts:
        statement_lines.add_lines(part.strings, part.starts, part.covered, offset=first)
    return DeadCodeAnalysis(tuple(found), frozenset(statement_lines.non_statement_lines()))


def _walked(tree: ast.Module) -> DeadCodeAnalysis:
    """The analysis straight from one walk of the whole tree (no memo)."""
    found: list[DeadStatement] = []
    statement_lines = StatementLines()
    for node in ast.walk(tree):
        statement_lines.add(node)
        for body in _bodies(node):
            found.extend(_dead_in_block(body))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.extend(_dead_in_function(node, None))
    return DeadCodeAnalysis(tuple(found), frozenset(statement_lines.non_statement_lines()))


def _top_level(tree: ast.Module) -> Iterator[tuple[ast.stmt, int]]:
    for statement in tree.body:
        yield statement, _first_line(statement)


@dataclass(frozen=True, slots=True)
class _Part:
    """What one top-level statement's subtree adds, in lines relative to its first: the dead
    statements of each depth in walk order, and its ``StatementLines`` sets."""

    levels: tuple[tuple[DeadStatement, ...], ...]
    strings: frozenset[int]
    starts: frozenset[int]
    covered: frozenset[int]


# A hook scans the same files again with a few lines changed, and all the analysis reads of a
# top-level statement is its own subtree: each one's part is remembered by its text (its lines,
# decorators included, and where on them it starts and ends). Bounded by the characters kept (8M).
_PART_MEMO: TextMemo[tuple[str, int, int], _Part] = TextMemo(max_chars=8_000_000, max_key_chars=200_000)


def _part(statement: ast.stmt, first: int, lines: list[str]) -> _Part:
    last = _last_line(statement)
    text = "\n".join(lines[first - 1 : last])
    key = (text, statement.col_offset, int(getattr(statement, "end_col_offset", None) or 0))
    part = _PART_MEMO.get(key)
    if part is not None:
        return part
    levels: list[tuple[DeadStatement, ...]] = []
    statement_lines = StatementLines()
    depth: list[ast.AST] = [statement]
    while depth:
        found: list[DeadStatement] = []
        below: list[ast.AST] = []
        for node in depth:
            statement_lines.add(node)
            for body in _bodies(node):
                found.extend(_dead_in_block(body))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.extend(_dead_in_function(node, lines))
            below.extend(ast.iter_child_nodes(node))
        levels.append(tuple(DeadStatement(dead.first - first, dead.last - first, dead.reason) for dead in found))
        depth = below
    strings, starts, covered = statement_lines.sets()
    part = _Part(
        tuple(levels), frozenset(line - first for line in strings), frozenset(line - first for line in starts),
        frozenset(line - first for line in covered),
    )
    _PART_MEMO.put(key, part, chars=len(text))
    return part


# The data-flow judgement of a function reads only its own lines (decorators to its last body
# line), and a hook scans the same files again with a few lines changed: each function's dead
# statements are remembered by its text, in lines relative to its first. Bounded by the
# characters kept (4M) and the size of a function kept.
_FUNCTION_MEMO: TextMemo[str, tuple[DeadStatement, ...]] = TextMemo(max_chars=4_000_000, max_key_chars=100_000)


def _dead_in_function(function: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str] | None) -> list[DeadStatement]:
    """:func:`python_flow.dead_in_function` as whole statements, remembered per function text."""
    if lines is None:
        return [_whole(statement, reason) for statement, reason in python_flow.dead_in_function(function)]
    first = _first_line(function)
    text = "\n".join(lines[first - 1 : _last_line(function)])
    relative = _FUNCTION_MEMO.get(text)
    if relative is None:
        relative = tuple(
            DeadStatement(statement.lineno - first, _last_line(statement) - first, reason)
            for statement, reason in python_flow.dead_in_function(function)
        )
        _FUNCTION_MEMO.put(text, relative, chars=len(text))
    return [DeadStatement(dead.first + first, dead.last + first, dead.reason) for dead in relative]


def _bodies(node: ast.AST) -> Iterator[list[ast.stmt]]:
    for name in ("body", "orelse", "finalbody"):
        value = getattr(node, name, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            yield value
    for handler in getattr(node, "handlers", []) or []:
        yield handler.body


def _dead_in_block(body: list[ast.stmt]) -> Iterator[DeadStatement]:
    reachable = True
    for statement in body:
        if not reachable:
            yield _whole(statement, "unreachable")
        elif isinstance(statement, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
            reachable = False
        # Unreachable statements are judged too: a dead branch after a return may also be one
        # that could never run anyway, the stronger evidence.
        if isinstance(statement, (ast.If, ast.While)):
            yield from _dead_branches(statement)
        elif isinstance(statement, (ast.For, ast.AsyncFor)):
            if is_empty_constant(statement.iter):
                yield DeadStatement(statement.lineno, _end_of_body(statement), "empty-loop")
            elif python_flow.is_empty_slice(statement.iter):
                yield DeadStatement(statement.lineno, _end_of_body(statement), "empty-slice")


def _dead_branches(statement: ast.If | ast.While) -> Iterator[DeadStatement]:
    truth = constant_truth(statement.test)
    reason = "disabled-branch" if isinstance(statement.test, ast.Constant) else "constant-condition"
    if truth is False:
        yield DeadStatement(statement.lineno, _end_of_body(statement), reason)
    elif truth is True and isinstance(statement, ast.If) and statement.orelse:
        for dead in statement.orelse:
            yield _whole(dead, reason)
    elif truth is None and python_flow.is_impossible(statement.test):
        yield DeadStatement(statement.lineno, _end_of_body(statement), "impossible-condition")


def _end_of_body(statement: ast.If | ast.While | ast.For | ast.AsyncFor) -> int:
    return _last_line(statement.body[-1])


def _first_line(statement: ast.stmt) -> int:
    """The statement's first line, its decorators included."""
    decorators: list[ast.expr] = getattr(statement, "decorator_list", None) or []
    return min([statement.lineno, *(decorator.lineno for decorator in decorators)])


def _last_line(statement: ast.stmt) -> int:
    return int(getattr(statement, "end_lineno", None) or statement.lineno)


def _whole(statement: ast.stmt, reason: str) -> DeadStatement:
    return DeadStatement(statement.lineno, _last_line(statement), reason)


# Builtins without side effects that a constant condition may call.
_PURE_CALLS: dict[str, Callable[..., Any]] = {
    "abs": abs, "len": len, "min": min, "max": max, "int": int, "float": float, "str": str,
    "bool": bool, "round": round, "sum": sum, "ord": ord, "chr": chr,
}
_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor,
}
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b, ast.Is: operator.is_, ast.IsNot: operator.is_not,
}


class _NotConstant(Exception):
    pass


def constant_truth(expression: ast.expr) -> bool | None:
    """The truth of an expression built only of literals and pure builtins, else None.

    Example:
        >>> constant_truth(ast.parse("abs(0.5) < 0", mode="eval").body)
        False
        >>> constant_truth(ast.parse("x < 0", mode="eval").body) is None
        True
    """
    try:
        return bool(_evaluate(expression, depth=0))
    except (_NotConstant, ArithmeticError, TypeError, ValueError, OverflowError):
        return None


def _evaluate(node: ast.expr, *, depth: int) -> Any:
    if depth > 20:
        raise _NotConstant
    depth += 1
    if isinstance(node, ast.Constant):
        return _constant(node)
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_evaluate(element, depth=depth) for element in node.elts)
    if isinstance(node, ast.UnaryOp):
        value = _evaluate(node.operand, depth=depth)
        if isinstance(node.op, ast.Not):
            return not value
        if isinstance(node.op, ast.USub):
            return -value
        if isinstance(node.op, ast.UAdd):
            return +value
        raise _NotConstant
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left, depth=depth), _evaluate(node.right, depth=depth)
        if isinstance(left, (str, bytes, tuple)) or isinstance(right, (str, bytes, tuple)):
            raise _NotConstant  # no string or sequence arithmetic: it can grow without bound
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.BoolOp):
        values = [_evaluate(value, depth=depth) for value in node.values]
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare):
        return _compare(node, depth=depth)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        function = _PURE_CALLS.get(node.func.id)
        if function is None:
            raise _NotConstant
        return function(*[_evaluate(argument, depth=depth) for argument in node.args])
    raise _NotConstant


def _constant(node: ast.Constant) -> Any:
    if isinstance(node.value, (int, float, str, bytes, bool, type(None))):
        if isinstance(node.value, (str, bytes)) and len(node.value) > 1000:
            raise _NotConstant
        return node.value
    raise _NotConstant


def _compare(node: ast.Compare, *, depth: int) -> bool:
    left = _evaluate(node.left, depth=depth)
    for op, comparator in zip(node.ops, node.comparators):
        if type(op) not in _COMPARE:
            raise _NotConstant
        right = _evaluate(comparator, depth=depth)
        if not _COMPARE[type(op)](left, right):
            return False
        left = right
    return True


def is_empty_constant(node: ast.expr) -> bool:
    """Whether ``node`` is an empty literal or a ``range`` of constants with no element."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and not node.elts:
        return True
    if isinstance(node, ast.Dict) and not node.keys:
        return True
    if isinstance(node, ast.Constant) and node.value in ("", b""):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
        try:
            arguments = [_evaluate(argument, depth=0) for argument in node.args]
            return all(isinstance(a, int) for a in arguments) and len(range(*arguments)) == 0
        except (_NotConstant, TypeError, ValueError):
            return False
    return False
