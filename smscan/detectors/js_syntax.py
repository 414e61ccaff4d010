"""JavaScript and TypeScript syntax trees from tree-sitter (the optional ``js`` extra).

A text is JavaScript or TypeScript when one of the grammars parses it without an error: the
JavaScript grammar (with JSX) first, then TSX, then TypeScript (whose ``<T>x`` casts TSX cannot
read). The language is read from the text, not the file name, as Python's is (``ast.parse``):
a detector's candidates see only the text, and calibration judges labelled texts whatever their
names. Without the extra, or for text no grammar reads whole, there is no tree and callers fall
back to judging lines.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

# Past this size a file is bundled or generated code, not code someone injects a statement into.
MAX_SOURCE_BYTES = 2_000_000

Node = Any
"""A ``tree_sitter.Node`` (typed loosely: tree-sitter is an optional dependency)."""

# Statements and declarations: a line where one starts is a statement line; the other lines a
# statement covers (`} else {`, an argument list's items, a closing brace) continue it.
_STATEMENT_SUFFIXES = ("_statement", "_declaration")
_CLASS_MEMBERS = frozenset({"method_definition", "field_definition", "public_field_definition"})
FUNCTIONS = frozenset({
    "function_declaration", "function_expression", "function", "arrow_function", "method_definition",
    "generator_function_declaration", "generator_function",
})


@functools.cache
def _languages() -> tuple[Any, ...]:
    """The JavaScript, TSX and TypeScript grammars, or none without the ``js`` extra."""
    try:
        import tree_sitter
        import tree_sitter_javascript
        import tree_sitter_typescript
    except ImportError:
        return ()
    try:
        return tuple(tree_sitter.Language(load()) for load in (
            tree_sitter_javascript.language, tree_sitter_typescript.language_tsx,
            tree_sitter_typescript.language_typescript,
        ))
    except ValueError:
        # A grammar built for another tree-sitter ABI: the pins of the extra avoid it, and a
        # mismatched install judges JavaScript by lines, as without the extra.
        return ()


def is_available() -> bool:
    """Whether the ``js`` extra is installed (tree-sitter and the JS/TS grammars load)."""
    return bool(_languages())


def grammar_versions() -> str:
    """The installed tree-sitter and grammar versions ('' without the extra): what a detector
    finds in JavaScript depends on them, so remembered judgements are keyed by them."""
    if not is_available():
        return ""
    from importlib import metadata

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:  # importable without an installed distribution
            return "unknown"

    names = ("tree-sitter", "tree-sitter-javascript", "tree-sitter-typescript")
    return ", ".join(f"{name} {version(name)}" for name in names)


def parse(source: str) -> Node | None:
    """The root node of the first grammar that reads ``source`` without an error, else None.

    Example:
        >>> parse("const x: number = 1;").type  # the JavaScript grammar refuses the annotation
        'program'
    """
    languages = _languages()
    data = source.encode("utf-8", "surrogatepass")
    if not languages or len(data) > MAX_SOURCE_BYTES or not data.strip():
        return None
    import tree_sitter

    for language in languages:
        # A parser per call: parsers hold state and are not safe to share between threads.
        tree = tree_sitter.Parser(language).parse(data)
        if not tree.root_node.has_error:
            return tree.root_node
    return None


def first_line(node: Node) -> int:
    """1-based line where ``node`` starts."""
    return int(node.start_point.row) + 1


def last_line(node: Node) -> int:
    """1-based line where ``node`` ends."""
    return int(node.end_point.row) + 1


def walk(node: Node) -> Iterator[Node]:
    """``node`` and every named node under it, parents first."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.named_children))


def is_statement(node: Node) -> bool:
    """Whether ``node`` is a statement or declaration (a class member counts as one)."""
    kind = str(node.type)
    return kind.endswith(_STATEMENT_SUFFIXES) or kind in _CLASS_MEMBERS


def text_of(node: Node) -> str:
    """The node's source text."""
    return bytes(node.text).decode("utf-8", "replace")


def non_statement_lines(root: Node) -> set[int]:
    """1-based lines inside a statement where no statement starts: continuation lines, data
    inside an expression (a test's input strings, an object literal's items, closing braces)."""
    starts: set[int] = set()
    covered: set[int] = set()
    for node in walk(root):
        if is_statement(node):
            starts.add(first_line(node))
            covered.update(range(first_line(node), last_line(node) + 1))
    return covered - starts
