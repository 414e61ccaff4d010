"""Constant JavaScript expressions: the truth of a test built only of literals and ``Math``.

JavaScript's own rules for the few operators it knows (``===`` never equates values of two types,
``&&``/``||`` return an operand, ``NaN`` is false); loose comparisons of two types, string
arithmetic and anything else are not evaluated (None: not a constant).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from smscan.detectors.js_expressions import number_value, operator, unwrap
from smscan.detectors.js_syntax import Node, text_of


class _NotConstant(Exception):
    pass


class _Nullish:
    """``null`` and ``undefined`` (two instances)."""

    def __init__(self, name: str) -> None:
        self.name = name


_NULL, _UNDEFINED = _Nullish("null"), _Nullish("undefined")
_MATH: dict[str, Callable[..., float]] = {"abs": abs, "min": min, "max": max, "floor": math.floor, "ceil": math.ceil, "round": round,
         "trunc": math.trunc, "sqrt": math.sqrt, "sign": lambda v: float((v > 0) - (v < 0))}
_ARITHMETIC: dict[str, Callable[[float, float], float]] = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
               "/": lambda a, b: a / b, "%": math.fmod, "**": lambda a, b: a**b}
COMPARE = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
            ">=": lambda a, b: a >= b, "===": lambda a, b: a == b, "==": lambda a, b: a == b}


def constant_truth(expression: Node) -> bool | None:
    """The truth of an expression built only of literals and ``Math`` functions, else None."""
    try:
        return _truthy(_evaluate(expression, depth=0))
    except (_NotConstant, ArithmeticError, TypeError, ValueError, OverflowError):
        return None


def _truthy(value: Any) -> bool:
    if isinstance(value, _Nullish):
        return False
    if isinstance(value, float) and math.isnan(value):
        return False
    return bool(value)


def _evaluate(node: Node, *, depth: int) -> Any:
    if depth > 20:
        raise _NotConstant
    node, depth = unwrap(node), depth + 1
    kind = node.type
    if kind == "number":
        value = number_value(node)
        if value is None:
            raise _NotConstant
        return value
    if kind == "string":
        text = text_of(node)[1:-1]
        if "\\" in text or len(text) > 1000:
            raise _NotConstant
        return text
    if kind in ("true", "false"):
        return kind == "true"
    if kind in ("null", "undefined"):
        return _NULL if kind == "null" else _UNDEFINED
    if kind == "unary_expression":
        return _unary(operator(node), _evaluate(node.child_by_field_name("argument"), depth=depth))
    if kind == "binary_expression":
        return _binary(node, depth=depth)
    if kind == "call_expression":
        callee = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        name = text_of(callee).replace(" ", "") if callee is not None else ""
        if arguments is None or not name.startswith("Math.") or name[5:] not in _MATH:
            raise _NotConstant
        values = [_number(_evaluate(a, depth=depth)) for a in arguments.named_children]
        return float(_MATH[name[5:]](*values))
    raise _NotConstant


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, float):
        raise _NotConstant  # no coercion of strings, booleans or nullish values
    return value


def _unary(op: str, value: Any) -> Any:
    if op == "!":
        return not _truthy(value)
    if op == "-":
        return -_number(value)
    if op == "+":
        return _number(value)
    if op == "void":
        return _UNDEFINED
    raise _NotConstant


def _binary(node: Node, *, depth: int) -> Any:
    op = operator(node)
    left = _evaluate(node.child_by_field_name("left"), depth=depth)
    if op in ("&&", "||"):
        if _truthy(left) == (op == "||"):
            return left
        return _evaluate(node.child_by_field_name("right"), depth=depth)
    right = _evaluate(node.child_by_field_name("right"), depth=depth)
    if op in _ARITHMETIC:
        return float(_ARITHMETIC[op](_number(left), _number(right)))
    negated = op in ("!==", "!=")
    op = {"!==": "===", "!=": "=="}.get(op, op)
    if op not in COMPARE:
        raise _NotConstant
    if op == "==" and isinstance(left, _Nullish) and isinstance(right, _Nullish):
        return not negated
    if type(left) is not type(right):
        if op in ("===",):
            return negated  # different types are never strictly equal
        raise _NotConstant  # loose comparison coerces: not evaluated
    if isinstance(left, _Nullish):
        if op not in ("===", "=="):
            raise _NotConstant
        return (left is right) != negated
    return bool(COMPARE[op](left, right)) != negated
