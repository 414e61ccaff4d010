"""Dead-code lines: code lines the reference model finds surprising (paper D.5, the DePA study).

Each line with visible content is one window scored by the mean NLL of its tokens
(:func:`smscan.engine.windows.line_windows`); one calibrated threshold decides. Two corrections
make the mean comparable across lines: tokens with fewer than ``min_context`` tokens of left
context are not judged (the first line of every file is surprising for want of context, not for
being dead), and a line of few tokens is shrunk toward the file's median token NLL as if it had
``shrink`` more tokens of that value (a two-token line's mean is mostly noise). For Python,
evidence from the code itself may raise a line's score by ``evidence_bonus`` nats: a statement
:mod:`ast` shows can never run or never matter (after ``return``/``raise``/``break``/``continue``,
under a condition built only of constants that is false, in a loop over an empty constant, or a
store to a local name that nothing reads). The evidence ranks candidates; it never replaces
surprise, and with ``evidence_bonus = 0`` the detector is plain line SM. Other languages are
scored by lines alone.

In Python that parses, only lines with evidence are candidates (``python_lines = "evidence"``):
on the calibration sets every dead line reported comes from them, and the lines surprise alone
raises there are false alarms (``docs/BENCHMARKS.md``). So a scan scores only those lines with
their left context (``regions``), the file median of the prior then being that of the scored
context; other languages and unparseable Python need the whole file.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from smscan.detectors.candidate import Candidate
from smscan.engine.windows import line_windows
from smscan.kinds import DEAD_CODE
from smscan.records import TokenScores

KIND = DEAD_CODE
# File suffixes of programming languages (dead code lives in code, not in docs or data).
CODE_SUFFIXES = frozenset(
    """
    py pyi pyw js mjs cjs jsx ts tsx go java kt kts scala c h cc cpp cxx hpp hh cs rb rs php swift
    m mm lua pl pm r jl dart ex exs erl hs ml fs clj groovy sh bash zsh ps1 sql vue svelte
    """.split()
)


@dataclass(frozen=True, slots=True)
class DeadCodeRule:
    """Parameters of the dead-code score (saved with the threshold)."""

    # The smallest bonus (0.5-nat grid) with the best 5-fold CV line F1 on the MBPP calibration set:
    # larger ones tie there and only raise the bar for lines surprise alone must carry.
    evidence_bonus: float = 2.5
    min_context: int = 8
    shrink: float = 4.0
    python_only: bool = False
    python_lines: str = "evidence"
    """In Python that parses: ``evidence`` judges only lines ``ast`` shows dead; ``all`` every line."""

    def __post_init__(self) -> None:
        if self.python_lines not in ("evidence", "all"):
            raise ValueError(f"python_lines must be 'evidence' or 'all', got {self.python_lines!r}")

    def as_dict(self) -> dict[str, Any]:
        return {"rule": "line-mean-nll", **asdict(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DeadCodeRule:
        return cls(**{name: data[name] for name in cls.__dataclass_fields__ if name in data})


class DeadCodeDetector:
    """Surprising code lines, with optional Python ``ast`` evidence; see the module docstring."""

    kind = KIND
    unit = "line"
    propagate = False
    sensitive = False
    # A line's surprise and the prior it is shrunk toward need the code around it: with 128
    # characters before it, MBPP false alarms rose from 1 to 5 (docs/BENCHMARKS.md); evidence
    # lines are rare, so a long context costs little.
    context_chars = 1024

    def __init__(self, rule: DeadCodeRule | None = None) -> None:
        self._rule = rule or DeadCodeRule()

    @classmethod
    def from_rule(cls, rule: Mapping[str, Any]) -> DeadCodeDetector:
        """The detector with a saved rule's parameters; unknown keys are ignored."""
        return cls(DeadCodeRule.from_dict(dict(rule)))

    def rule(self) -> dict[str, Any]:
        return self._rule.as_dict()

    def reasons(self, score: float, details: Mapping[str, Any]) -> list[str]:
        """Why a candidate scored what it did, for ``smscan explain``."""
        from smscan.detectors.explaining import dead_code_reasons

        return dead_code_reasons(score, details)

    def dropped(self, text: str, scores: TokenScores, windows: Any, *, tau: float, near: float) -> list[Any]:
        """Nothing is dropped before scoring: every judged line is scored."""
        return []

    def applies_to(self, path: str) -> bool:
        """Source code only: prose and data files have no dead code, only surprising lines."""
        suffix = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
        return suffix in CODE_SUFFIXES

    def regions(self, text: str, path: str) -> list[tuple[int, int]] | None:
        """Python that parses: its evidence lines (none: nothing to score); else the whole text.

        Each evidence line comes with the lines that start within ``context_chars`` after it
        (the planner adds as much before it): the median a short line is shrunk toward must be
        that of the code around the line, not of a prefix ending at it, which reads higher (a
        file's first tokens have little context). With left context alone, MBPP false alarms
        rose from 1 to 3 (``docs/BENCHMARKS.md``).
        """
        if self._rule.python_lines != "evidence" or not _parses(text):
            return None
        extents = _content_extents(text)
        spans = []
        for line in sorted(dead_lines(text)):
            if line > len(extents):
                continue
            start, end = extents[line - 1]
            stop = end
            for after_start, after_end in extents[line:]:
                if after_start - end > self.context_chars:
                    break
                if after_end > after_start:
                    stop = after_end
            spans.append((start, stop))
        return spans

    def candidates(self, text: str, scores: TokenScores, *, python: bool | None = None) -> list[Candidate]:
        """One candidate per scored line, spanning the line's content.

        Args:
            text: the document.
            scores: its token scores (of the whole text, or of pieces of it: see ``regions``).
            python: whether the text is Python (None: it is when it parses as Python).
        """
        rule = self._rule
        nll = np.array(scores.nll, dtype=np.float64)
        # Tokens without enough left context are not judged (NaN: their lines get no window):
        # the first of the text, and of each scored piece after a gap.
        for start in _piece_starts(scores):
            nll[start + 1 : start + rule.min_context] = np.nan
        windows, lines = line_windows(text, scores.char_starts, scores.char_ends, nll)
        finite = np.isfinite(nll)
        prior = float(np.median(nll[finite])) if finite.any() else 0.0
        counts = _finite_counts(finite, windows.starts, windows.ends)
        parses = python is not False and _parses(text)
        dead = dead_lines(text) if parses else {}
        if self._rule.python_only and not dead and not _parses(text):
            return []
        evidence_only = parses and rule.python_lines == "evidence"
        extents = _content_extents(text)
        prose = _prose_lines(text, extents, python=python is not False)
        found = []
        for mean, count, line in zip(windows.scores.tolist(), counts.tolist(), lines.tolist()):
            if not math.isfinite(mean) or line in prose or (evidence_only and line not in dead):
                continue
            score = (mean * count + rule.shrink * prior) / (count + rule.shrink)
            start, end = extents[line - 1]
            details: dict[str, Any] = {"line_nll": round(mean, 4)}
            reason = dead.get(line)
            if reason is not None:
                details["evidence"] = reason
                score += rule.evidence_bonus
            found.append(Candidate(start, end, score, details))
        return found


def _piece_starts(scores: TokenScores) -> np.ndarray:
    """Indices of the tokens that begin a scored text: the first, and each one after a gap.

    Tokens of one scored text partition it, so consecutive tokens touch; the sparse scores of a
    scan's pieces (:func:`smscan.plan.document_scores`) have a gap where one piece ends and the
    next begins.
    """
    if len(scores) == 0:
        return np.zeros(0, dtype=np.int64)
    gaps = np.flatnonzero(np.asarray(scores.char_starts)[1:] != np.asarray(scores.char_ends)[:-1]) + 1
    return np.concatenate([[0], gaps]).astype(np.int64)


def _finite_counts(finite: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """How many scored tokens each window ``[start, end)`` holds."""
    if starts.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    # reduceat over interleaved bounds sums each range on its own; the pad lets a range end last.
    bounds = np.stack([starts, ends], axis=1).ravel()
    counts: np.ndarray = np.add.reduceat(np.append(finite.astype(np.int64), 0), bounds)[::2]
    return counts


# A line that is only a comment is prose, not code that could be dead. C-family preprocessor
# directives start with '#' too and are code.
_COMMENT_START = ("#", "//", "/*", "*", "<!--", "--", ";;", "%")
_DIRECTIVE = re.compile(r"#\s*(?:include|define|undef|if|ifdef|ifndef|elif|else|endif|pragma|error|import)\b")


def _prose_lines(text: str, extents: list[tuple[int, int]], *, python: bool) -> set[int]:
    """1-based lines that are no statement of their own: comments, and (in Python) string-only
    statements such as docstrings and the continuation lines of a statement."""
    prose = set()
    for number, (start, end) in enumerate(extents, start=1):
        content = text[start:end]
        if content.startswith(_COMMENT_START) and not _DIRECTIVE.match(content):
            prose.add(number)
    if python:
        prose.update(_non_statement_lines(text))
    return prose


def _non_statement_lines(source: str) -> set[int]:
    """Python lines that cannot be a dead statement: docstrings (string-only statements, wherever
    they ended up) and the continuation lines of a statement (the items of a multi-line list, a
    call's arguments, a string's next part). Dead code is a statement, and a statement's first
    line is where it starts; data inside an expression surprises without being code."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    lines: set[int] = set()
    starts: set[int] = set()
    covered: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            lines.update(range(node.lineno, int(node.end_lineno or node.lineno) + 1))
        if isinstance(node, (ast.stmt, ast.excepthandler)):
            starts.add(node.lineno)
            covered.update(range(node.lineno, int(node.end_lineno or node.lineno) + 1))
    # Block headers without a node of their own (`else:`, `finally:`) are continuation lines too.
    return lines | (covered - starts)


def _content_extents(text: str) -> list[tuple[int, int]]:
    extents = []
    offset = 0
    for line in text.split("\n"):
        stripped_start = len(line) - len(line.lstrip())
        stripped_end = len(line.rstrip())
        extents.append((offset + stripped_start, offset + max(stripped_end, stripped_start)))
        offset += len(line) + 1
    return extents


def _parses(text: str) -> bool:
    # Answered by the remembered parse of dead_lines: a scan asks for both, twice per document.
    return _dead_lines_of(text) is not None


def dead_lines(source: str) -> dict[int, str]:
    """Lines of Python source that provably never run or never matter, with the reason.

    Reasons: ``unreachable`` (after return/raise/break/continue in the same block),
    ``constant-condition`` (an ``if``/``while`` whose test is a false constant expression, with
    its body; the ``else`` of a true one), ``empty-loop`` (a ``for`` over an empty constant),
    ``dead-store`` (a local name assigned and never read in its function).

    Returns:
        1-based line number -> reason; empty when the source is not Python.

    Example:
        >>> dead_lines("def f(x):\\n    return x\\n    x = 1\\n")
        {3: 'unreachable'}
    """
    return dict(_dead_lines_of(source) or ())


# A scan asks twice per document (what to score, then what to judge): remember the last few.
@lru_cache(maxsize=32)
def _dead_lines_of(source: str) -> tuple[tuple[int, str], ...] | None:
    """``dead_lines`` as a tuple, or None when ``source`` is not Python (does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found: dict[int, str] = {}
    for node in ast.walk(tree):
        for body in _bodies(node):
            _mark_block(body, found)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for statement, name in _dead_stores(node):
                _mark(statement, "dead-store", found)
    return tuple(found.items())


def _bodies(node: ast.AST) -> Iterator[list[ast.stmt]]:
    for name in ("body", "orelse", "finalbody"):
        value = getattr(node, name, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            yield value
    for handler in getattr(node, "handlers", []) or []:
        yield handler.body


def _mark_block(body: list[ast.stmt], found: dict[int, str]) -> None:
    for index, statement in enumerate(body):
        if isinstance(statement, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
            for later in body[index + 1 :]:
                _mark(later, "unreachable", found)
            break
        if isinstance(statement, (ast.If, ast.While)):
            truth = constant_truth(statement.test)
            if truth is False:
                _mark_lines(statement.lineno, _end_of_body(statement), "constant-condition", found)
            elif truth is True and isinstance(statement, ast.If) and statement.orelse:
                for dead in statement.orelse:
                    _mark(dead, "constant-condition", found)
        elif isinstance(statement, (ast.For, ast.AsyncFor)):
            if _is_empty_constant(statement.iter):
                _mark_lines(statement.lineno, _end_of_body(statement), "empty-loop", found)


def _end_of_body(statement: ast.If | ast.While | ast.For | ast.AsyncFor) -> int:
    last = statement.body[-1]
    return int(getattr(last, "end_lineno", None) or last.lineno)


def _mark(statement: ast.stmt, reason: str, found: dict[int, str]) -> None:
    _mark_lines(statement.lineno, int(getattr(statement, "end_lineno", None) or statement.lineno), reason, found)


def _mark_lines(first: int, last: int, reason: str, found: dict[int, str]) -> None:
    for line in range(first, last + 1):
        found.setdefault(line, reason)


def _dead_stores(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[tuple[ast.stmt, str]]:
    loaded: set[str] = set()
    declared: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
            loaded.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            loaded.add(node.target.id)
    for node in _own_nodes(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target = node.target
        else:
            continue
        if not isinstance(target, ast.Name):
            continue
        name = target.id
        if name.startswith("_") or name in loaded or name in declared:
            continue
        yield node, name


def _own_nodes(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.AST]:
    """The nodes of a function's own scope: not those of nested functions, classes or lambdas.

    A store in a nested class body is a class attribute, read through the class, and a nested
    function's locals are judged in that function; reads are still collected from every scope,
    since closures read the names of the function around them.
    """
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))


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
        if isinstance(node.value, (int, float, str, bytes, bool, type(None))):
            if isinstance(node.value, (str, bytes)) and len(node.value) > 1000:
                raise _NotConstant
            return node.value
        raise _NotConstant
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
        left = _evaluate(node.left, depth=depth)
        for op, comparator in zip(node.ops, node.comparators):
            if type(op) not in _COMPARE:
                raise _NotConstant
            right = _evaluate(comparator, depth=depth)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        function = _PURE_CALLS.get(node.func.id)
        if function is None:
            raise _NotConstant
        return function(*[_evaluate(argument, depth=depth) for argument in node.args])
    raise _NotConstant


def _is_empty_constant(node: ast.expr) -> bool:
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

