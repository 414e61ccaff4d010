"""Side-effect-free JavaScript expressions, and tests that can never hold.

``is_pure``: names, literals, operators, member reads, and the few functions and methods known to
change nothing (``Math.*``, ``String()``, ``x.slice()``); ``computes``: a pure value that computes
something from a variable; ``is_impossible``: a pure test false whatever the values are
(:mod:`smscan.detectors.js_flow` lists the shapes); ``is_empty_slice``: ``x.slice(n, n)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from smscan.detectors.js_syntax import Node, text_of, walk

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


def calls_a_method(node: Node) -> bool:
    """Whether a method of a value is called: a dropped ``this.toString()`` runs the class's own
    method for what it does (minimatch fills a cache that way)."""
    for inner in walk(node):
        callee = inner.child_by_field_name("function") if inner.type == "call_expression" else None
        if callee is not None and callee.type == "member_expression":
            owner = callee.child_by_field_name("object")
            if owner is None or owner.type != "identifier" or text_of(owner) not in _PURE_NAMESPACES:
                return True
    return False
