"""Dead JavaScript and TypeScript that no constant evaluation shows: data flow in a syntax tree.

The JavaScript side of :mod:`smscan.detectors.python_flow`, with the same evidence kinds (the
tests of expressions are in :mod:`smscan.detectors.js_expressions`):

- ``impossible-condition``: a side-effect-free test that cannot hold whatever the values are:
  ``x && !x``, a comparison and its complement on the same operands (``x === null && x !==
  null``), one operand strictly equal to two different literals, ``x.length < 0``,
  ``Math.abs(x) < 0``;
- ``empty-slice``: a ``for ... of`` over ``x.slice(0, 0)``;
- ``dead-store``: a ``let``/``const``/``var`` (or a later ``=``) to a local name that nothing
  reads, or that only other dead stores read; ``dead-computation`` when every value stored is
  computed without side effects (``const nLen = n.length``, ``const s = String(n)``) outside a
  ``try`` body, where a computation may be made for the exception it throws;
- ``dropped-result``: such a computation as a statement of its own (``a + b;``,
  ``Math.abs(x);``), unless it calls a method of a value (``this.toString();`` may run the class's
  own method for what it does);
- ``empty-branch``: an ``if`` without ``else`` whose side-effect-free test guards an empty block.

Reads are counted across the whole function, nested functions included (closures read the
names around them), so a store is dead only when no read of its name is left anywhere there.
No store is known dead in a function that calls ``eval`` or holds a ``with`` statement.
"""

from __future__ import annotations

from collections.abc import Iterator

from smscan.detectors.js_expressions import calls_a_method, computes, is_pure, operator
from smscan.detectors.js_syntax import FUNCTIONS, Node, text_of, walk


def dead_in_function(function: Node) -> Iterator[tuple[Node, str]]:
    """The dead stores, dropped results and empty branches of one function's own scope."""
    body = function.child_by_field_name("body")
    if body is None or body.type != "statement_block" or _reads_names_dynamically(function):
        return
    own = list(_own_nodes(body))
    guarded = _guarded(own)
    for statement, values in _dead_stores(function, own):
        computed = bool(values) and all(is_pure(v) and computes(v) for v in values)
        yield statement, "dead-computation" if computed and statement.id not in guarded else "dead-store"
    for node in own:
        if node.type == "expression_statement" and node.id not in guarded and _is_dropped(node):
            yield node, "dropped-result"
        elif node.type == "if_statement" and _is_empty_branch(node):
            yield node, "empty-branch"


def _reads_names_dynamically(function: Node) -> bool:
    for node in walk(function):
        if node.type == "with_statement":
            return True
        if node.type == "call_expression":
            callee = node.child_by_field_name("function")
            if callee is not None and text_of(callee) == "eval":
                return True
    return False


def _own_nodes(body: Node) -> Iterator[Node]:
    """Nodes of a function's own scope: not those of nested functions or classes."""
    stack = list(body.named_children)
    while stack:
        node = stack.pop()
        yield node
        if node.type in FUNCTIONS or node.type in ("class_declaration", "class", "abstract_class_declaration"):
            continue
        stack.extend(node.named_children)


def _guarded(own: list[Node]) -> set[int]:
    """Ids of the nodes under a ``try`` body: a pure computation there may be made to throw."""
    guarded: set[int] = set()
    for node in own:
        if node.type == "try_statement":
            block = node.child_by_field_name("body")
            if block is not None:
                guarded.update(inner.id for inner in walk(block))
    return guarded


def _dead_stores(function: Node, own: list[Node]) -> list[tuple[Node, list[Node]]]:
    """Own stores whose every name is read only inside other dead stores' values, with the values."""
    stores: list[tuple[Node, list[str], list[Node]]] = []
    declared: set[str] = set()
    written: set[int] = set()
    for node in own:
        if node.type in ("lexical_declaration", "variable_declaration"):
            names, values = _declared(node)
            declared.update(names)
            written.update(name.id for name in (d.child_by_field_name("name") for d in node.named_children
                                                if d.type == "variable_declarator") if name is not None)
            # A declaration in a `for` head or an `export` is no statement of its own.
            if names and values is not None and node.parent is not None and node.parent.type in ("statement_block", "switch_case", "switch_default"):
                stores.append((node, names, values))
    for node in own:
        target = _assigned_name(node)
        if target is not None:
            written.add(target.id)
            if text_of(target) in declared:
                stores.append((node, [text_of(target)], [node.named_children[0].child_by_field_name("right")]))
    reads: dict[str, list[int]] = {}
    for node in walk(function):
        if node.type in ("identifier", "shorthand_property_identifier") and node.id not in written:
            reads.setdefault(text_of(node), []).append(node.id)
    dead: dict[int, tuple[Node, list[Node]]] = {}
    dead_reads: set[int] = set()
    changed = True
    while changed:
        changed = False
        for statement, names, values in stores:
            if statement.id in dead or any(n.startswith("_") for n in names):
                continue
            if all(read in dead_reads for name in names for read in reads.get(name, [])):
                dead[statement.id] = (statement, values)
                dead_reads.update(inner.id for inner in walk(statement))
                changed = True
    return list(dead.values())


def _declared(declaration: Node) -> tuple[list[str], list[Node] | None]:
    """Names and values of a declaration whose declarators are all ``name = value`` (values None
    when one is a pattern or has no value)."""
    names, values = [], []
    for declarator in declaration.named_children:
        if declarator.type != "variable_declarator":
            continue
        name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
        if name is None or name.type != "identifier":
            return [], None
        names.append(text_of(name))
        if value is None:
            return names, None
        values.append(value)
    return names, values


def _assigned_name(statement: Node) -> Node | None:
    """The name a statement ``name = value;`` stores to, else None."""
    if statement.type != "expression_statement" or not statement.named_children:
        return None
    expression = statement.named_children[0]
    if expression.type != "assignment_expression":
        return None
    left = expression.child_by_field_name("left")
    return left if left is not None and left.type == "identifier" else None


def _is_dropped(statement: Node) -> bool:
    if not statement.named_children:
        return False
    expression = statement.named_children[0]
    if expression.type == "unary_expression" and operator(expression) == "void":
        return False  # `void promise`: a value dropped on purpose
    return is_pure(expression) and computes(expression) and not calls_a_method(expression)


def _is_empty_branch(statement: Node) -> bool:
    condition = statement.child_by_field_name("condition")
    consequence = statement.child_by_field_name("consequence")
    return (statement.child_by_field_name("alternative") is None and condition is not None
            and consequence is not None and consequence.type == "statement_block"
            and not consequence.named_children and is_pure(condition))
