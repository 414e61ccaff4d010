"""Dead JavaScript and TypeScript that no constant evaluation shows: data flow in a syntax tree.

The JavaScript side of :mod:`smscan.detectors.python_flow`, with the same evidence kinds:

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

import re
from collections.abc import Iterator

from smscan.detectors.js_syntax import FUNCTIONS, Node, text_of, walk

# Calls without side effects (on the values code passes them in practice), by callee text.
PURE_FUNCTIONS = frozenset("String Number Boolean parseInt parseFloat isNaN isFinite".split())
_PURE_NAMESPACES = {
    "Math": None,  # every Math function
    "Number": frozenset("isInteger isNaN isFinite isSafeInteger parseFloat parseInt".split()),
    "Array": frozenset({"isArray"}),
    "Object": frozenset("keys values entries is".split()),
}
# Methods of strings and arrays that read their receiver and arguments and call nothing back.
PURE_METHODS = frozenset(
    "slice substring substr toString toUpperCase toLowerCase trim trimStart trimEnd indexOf lastIndexOf "
    "includes startsWith endsWith charAt charCodeAt codePointAt concat join split padStart padEnd repeat "
    "toFixed at".split()
)
# Expression nodes that evaluate their parts and change nothing (calls are checked apart).
_PURE_NODES = frozenset({
    "identifier", "property_identifier", "private_property_identifier", "shorthand_property_identifier",
    "member_expression", "subscript_expression", "number", "string", "string_fragment", "escape_sequence",
    "template_string", "template_substitution", "true", "false", "null", "undefined", "this",
    "parenthesized_expression", "binary_expression", "unary_expression", "ternary_expression", "array",
    "object", "pair", "computed_property_name", "regex", "regex_pattern", "regex_flags", "arguments",
    "non_null_expression",
})
# TypeScript wrappers whose first named child is the expression (the rest is a type).
_TYPED = frozenset({"as_expression", "satisfies_expression"})
_OPERATIONS = frozenset({"call_expression", "binary_expression", "unary_expression", "ternary_expression",
                         "subscript_expression"})
_COMPLEMENT = {"===": "!==", "!==": "===", "==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
_FLIPPED = {">": "<", ">=": "<=", "===": "===", "==": "=="}


def operator(node: Node) -> str:
    """The operator of a unary, binary or assignment expression ('' for others)."""
    found = node.child_by_field_name("operator")
    return text_of(found) if found is not None else ""


def unwrap(node: Node) -> Node:
    """The expression inside parentheses and TypeScript's ``as``/``!``/``<T>`` wrappers."""
    while node.type in ("parenthesized_expression", "non_null_expression", "type_assertion", *_TYPED):
        inner = node.named_children
        if not inner:
            break
        node = inner[-1] if node.type == "type_assertion" else inner[0]
    return node


def is_pure(node: Node) -> bool:
    """Whether evaluating ``node`` cannot change anything: names, literals, operators, member
    reads, and pure functions and methods called on those."""
    stack = [node]
    while stack:
        current = stack.pop()
        kind = current.type
        if kind in _TYPED or kind == "type_assertion":
            stack.append(unwrap(current))
        elif kind == "call_expression":
            if not _is_pure_call(current):
                return False
            stack.extend(current.named_children)
        elif kind == "unary_expression" and operator(current) == "delete":
            return False
        elif kind in _PURE_NODES:
            stack.extend(current.named_children)
        elif kind != "comment":
            return False
    return True


def _is_pure_call(call: Node) -> bool:
    callee = call.child_by_field_name("function")
    if callee is None or call.child_by_field_name("arguments") is None:
        return False  # a tagged template calls its tag
    if callee.type == "identifier":
        return text_of(callee) in PURE_FUNCTIONS
    if callee.type != "member_expression":
        return False
    owner, method = callee.child_by_field_name("object"), callee.child_by_field_name("property")
    if owner is None or method is None:
        return False
    name = text_of(method)
    if owner.type == "identifier" and text_of(owner) in _PURE_NAMESPACES:
        allowed = _PURE_NAMESPACES[text_of(owner)]
        return allowed is None or name in allowed
    # The receiver is walked as a child of the call (``callee`` is one), so only the name matters.
    return name in PURE_METHODS


def computes(node: Node) -> bool:
    """Whether a pure value computes something from a variable (not a literal, a plain name or a
    member read other than ``.length``)."""
    nodes = list(walk(node))
    has_variable = any(n.type in ("identifier", "this", "shorthand_property_identifier") for n in nodes)
    return has_variable and any(_is_operation(n) for n in nodes)


def _is_operation(node: Node) -> bool:
    if node.type in _OPERATIONS:
        return True
    if node.type == "template_string":
        return any(child.type == "template_substitution" for child in node.named_children)
    if node.type == "member_expression":
        prop = node.child_by_field_name("property")
        return prop is not None and text_of(prop) == "length"
    return False


def is_impossible(test: Node) -> bool:
    """Whether a side-effect-free condition can never hold (see the module docstring)."""
    return is_pure(test) and _never_true(unwrap(test))


def _never_true(test: Node) -> bool:
    if test.type == "binary_expression":
        op = operator(test)
        left, right = test.child_by_field_name("left"), test.child_by_field_name("right")
        if op == "||":
            return _never_true(unwrap(left)) and _never_true(unwrap(right))
        if op == "&&":
            conjuncts = list(_conjuncts(test))
            return any(_never_true(c) for c in conjuncts) or _contradicts(conjuncts)
        return _negative_bound(unwrap(left), op, unwrap(right))
    return False


def _conjuncts(node: Node) -> Iterator[Node]:
    node = unwrap(node)
    if node.type == "binary_expression" and operator(node) == "&&":
        yield from _conjuncts(node.child_by_field_name("left"))
        yield from _conjuncts(node.child_by_field_name("right"))
    else:
        yield node


def _key(node: Node) -> str:
    return re.sub(r"\s+", "", text_of(unwrap(node)))


def _contradicts(conjuncts: list[Node]) -> bool:
    """``e`` and ``!e``; a comparison and its complement; ``x === a`` and ``x === b``, a != b."""
    seen = {_key(c) for c in conjuncts}
    equal_to: dict[str, str] = {}
    for value in conjuncts:
        if value.type == "unary_expression" and operator(value) == "!":
            argument = value.child_by_field_name("argument")
            if argument is not None and _key(argument) in seen:
                return True
        if value.type != "binary_expression" or operator(value) not in _COMPLEMENT:
            continue
        op = operator(value)
        left, right = _key(value.child_by_field_name("left")), _key(value.child_by_field_name("right"))
        if f"{left}{_COMPLEMENT[op]}{right}" in seen:
            return True
        literal = unwrap(value.child_by_field_name("right"))
        is_literal = literal.type in ("number", "string", "true", "false", "null", "undefined")
        if op == "===" and is_literal and equal_to.setdefault(left, right) != right:
            return True
    return False


def _negative_bound(left: Node, op: str, right: Node) -> bool:
    """``x.length < 0``, ``<= -1``, ``=== -1`` (``Math.abs`` alike), or written the other way round."""
    if _is_never_negative(right) and op in _FLIPPED:
        left, op, right = right, _FLIPPED[op], left
    if not _is_never_negative(left):
        return False
    bound = number_value(right)
    if bound is None:
        return False
    if op == "<":
        return bound <= 0
    return op in ("<=", "===", "==") and bound < 0


def _is_never_negative(node: Node) -> bool:
    if node.type == "member_expression":
        prop = node.child_by_field_name("property")
        return prop is not None and text_of(prop) == "length"
    if node.type == "call_expression":
        callee = node.child_by_field_name("function")
        return callee is not None and re.sub(r"\s+", "", text_of(callee)) == "Math.abs"
    return False


def number_value(node: Node) -> float | None:
    """The value of a number literal, negated or not; None for anything else."""
    node = unwrap(node)
    if node.type == "unary_expression" and operator(node) == "-":
        argument = node.child_by_field_name("argument")
        inner = number_value(argument) if argument is not None else None
        return None if inner is None else -inner
    if node.type != "number":
        return None
    text = text_of(node).replace("_", "").lower()
    try:
        if text.startswith(("0x", "0o", "0b")):
            return float(int(text, 0))
        return float(text.rstrip("n"))
    except ValueError:
        return None


def is_empty_slice(iterable: Node) -> bool:
    """Whether a loop's iterable is ``x.slice(n, n)`` of a side-effect-free ``x``."""
    iterable = unwrap(iterable)
    if iterable.type != "call_expression" or not is_pure(iterable):
        return False
    callee, arguments = iterable.child_by_field_name("function"), iterable.child_by_field_name("arguments")
    if callee is None or callee.type != "member_expression" or arguments is None:
        return False
    prop = callee.child_by_field_name("property")
    bounds = [number_value(a) for a in arguments.named_children]
    return (prop is not None and text_of(prop) == "slice" and len(bounds) == 2
            and bounds[0] is not None and bounds[0] == bounds[1])


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
    return is_pure(expression) and computes(expression) and not _calls_a_method(expression)


def _calls_a_method(node: Node) -> bool:
    """Whether a method of a value is called: a dropped ``this.toString()`` runs the class's own
    method for what it does (minimatch fills a cache that way)."""
    for inner in walk(node):
        callee = inner.child_by_field_name("function") if inner.type == "call_expression" else None
        if callee is not None and callee.type == "member_expression":
            owner = callee.child_by_field_name("object")
            if owner is None or owner.type != "identifier" or text_of(owner) not in _PURE_NAMESPACES:
                return True
    return False


def _is_empty_branch(statement: Node) -> bool:
    condition = statement.child_by_field_name("condition")
    consequence = statement.child_by_field_name("consequence")
    return (statement.child_by_field_name("alternative") is None and condition is not None
            and consequence is not None and consequence.type == "statement_block"
            and not consequence.named_children and is_pure(condition))
