"""Which lines of a code file are statements the dead-code detector may judge.

A line that is only a comment is prose; in Python, so are docstrings and the continuation lines
of a statement (the items of a multi-line list, a call's arguments, a string's next part,
``else:``): dead code is a statement, and a statement's first line is where it starts.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

# A line that is only a comment is prose, not code that could be dead. C-family preprocessor
# directives start with '#' too and are code.
_COMMENT_START = ("#", "//", "/*", "*", "<!--", "--", ";;", "%")
_DIRECTIVE = re.compile(r"#\s*(?:include|define|undef|if|ifdef|ifndef|elif|else|endif|pragma|error|import)\b")


def content_extents(text: str) -> list[tuple[int, int]]:
    """Each line's ``(start, end)`` offsets without its leading and trailing whitespace."""
    extents = []
    offset = 0
    for line in text.split("\n"):
        stripped_start = len(line) - len(line.lstrip())
        stripped_end = len(line.rstrip())
        extents.append((offset + stripped_start, offset + max(stripped_end, stripped_start)))
        offset += len(line) + 1
    return extents


def prose_lines(text: str, extents: list[tuple[int, int]], *, python: bool) -> set[int]:
    """1-based lines that are no statement of their own: comments, and (in Python) string-only
    statements such as docstrings and the continuation lines of a statement."""
    prose = set()
    for number, (start, end) in enumerate(extents, start=1):
        content = text[start:end]
        if content.startswith(_COMMENT_START) and not _DIRECTIVE.match(content):
            prose.add(number)
    if python:
        prose.update(non_statement_lines(text))
    return prose


def non_statement_lines(source: str) -> set[int]:
    """Python lines that cannot be a dead statement: docstrings (string-only statements, wherever
    they ended up) and the continuation lines of a statement. Data inside an expression
    surprises without being code; empty when ``source`` does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    lines = StatementLines()
    for node in ast.walk(tree):
        lines.add(node)
    return lines.non_statement_lines()


class StatementLines:
    """:func:`non_statement_lines` gathered node by node, so a caller that walks the tree for
    its own reasons (``python_dead``) needs no second parse or walk."""

    def __init__(self) -> None:
        self._strings: set[int] = set()
        self._starts: set[int] = set()
        self._covered: set[int] = set()

    def add(self, node: ast.AST) -> None:
        """Take one node of the tree (any order)."""
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            self._strings.update(range(node.lineno, int(node.end_lineno or node.lineno) + 1))
        if isinstance(node, (ast.stmt, ast.excepthandler)):
            self._starts.add(node.lineno)
            self._covered.update(range(node.lineno, int(node.end_lineno or node.lineno) + 1))

    def add_lines(self, strings: Iterable[int], starts: Iterable[int], covered: Iterable[int], *, offset: int) -> None:
        """Take the :meth:`sets` another gathering kept, its lines shifted by ``offset`` (a part
        of the file remembered in lines relative to its first)."""
        self._strings.update(line + offset for line in strings)
        self._starts.update(line + offset for line in starts)
        self._covered.update(line + offset for line in covered)

    def sets(self) -> tuple[set[int], set[int], set[int]]:
        """The lines of string-only statements, of statement starts, and covered by statements."""
        return self._strings, self._starts, self._covered

    def non_statement_lines(self) -> set[int]:
        """The lines of every node taken so far that are no statement of their own."""
        # Block headers without a node of their own (`else:`, `finally:`) are continuation lines too.
        return self._strings | (self._covered - self._starts)
