"""Dead Python code that no constant evaluation shows: data-flow evidence from :mod:`ast`.

- ``impossible-condition``: a test that cannot hold whatever the values are, as long as reading
  them has no side effect: ``x and not x``, ``x is None and x is not None`` (any comparison and its
  complement on the same operands), ``len(x) < 0`` (``len`` and ``abs`` are never negative),
  ``not isinstance(x, object)``;
- ``empty-slice``: a loop over ``x[:0]``;
- ``dead-store``: a store to a local name that nothing reads, or that only other dead stores read
  (``a = 1`` then ``b = a``, neither read again);
- ``dead-computation``: such a store whose value is computed without side effects (``n_len =
  len(n)``, ``total = a + b``), outside ``try`` and ``with`` bodies: the whole statement does
  nothing. A store of a literal or a plain
  name (``blech = None``, ``alias = obj``: references dropped on purpose, names a test needs) or
  of a call that may act (``res = platform.system()``: only the binding is dead) stays a
  ``dead-store``;
- ``dropped-result``: a call of a pure builtin that iterates nothing whose result is dropped
  (``len(x)`` as a statement), outside ``try`` and ``with`` bodies (``assertRaises``), where such
  a call may be made for the exception it raises.

None of these holds where a function calls ``locals()``, ``vars()``, ``eval`` or ``exec``: those
read names no :mod:`ast` walk sees, so no store there is known to be dead.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

# Builtins without side effects (on the values code passes them in practice).
PURE_BUILTINS = frozenset(
    "abs all any ascii bin bool bytes chr dict divmod float format frozenset hash hex id int "
    "isinstance issubclass len list max min oct ord pow repr reversed round set sorted str sum "
    "tuple type zip".split()
)
# Pure builtins whose dropped result means nothing happened (``tuple(iterator)`` exhausts one).
_DROPPABLE = frozenset("abs ascii bin bool chr float hash hex id int isinstance len oct ord repr round str type".split())
_NEVER_NEGATIVE = frozenset({"len", "abs"})
_NAME_READERS = frozenset({"locals", "vars", "eval", "exec"})
_COMPLEMENT: dict[type, type] = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
    ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt,
}


def is_pure(node: ast.expr) -> bool:
    """Whether evaluating ``node`` cannot change anything: names, literals, operators, subscripts
    and attributes of those, and pure builtins called on them."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call) and not (isinstance(inner.func, ast.Name) and inner.func.id in PURE_BUILTINS):
            return False
        # Comprehensions run code of their own (and may call anything through their iterables).
        if isinstance(inner, (*_ACTING, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return False
    return True


_ACTING = (ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom, ast.Lambda)


def is_impossible(test: ast.expr) -> bool:
    """Whether a side-effect-free condition can never hold (see the module docstring).

    Example:
        >>> is_impossible(ast.parse("n and not n", mode="eval").body)
        True
        >>> is_impossible(ast.parse("n and not m", mode="eval").body)
        False
    """
    return is_pure(test) and _never_true(test)


def _never_true(test: ast.expr) -> bool:
    if isinstance(test, ast.BoolOp):
        if isinstance(test.op, ast.Or):
            return all(_never_true(value) for value in test.values)
        return any(_never_true(value) for value in test.values) or _contradicts(test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _is_isinstance_object(test.operand)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        return _negative_bound(test.left, test.ops[0], test.comparators[0])
    return False


def _contradicts(values: list[ast.expr]) -> bool:
    """Whether two conjuncts are ``e`` and ``not e``, or a comparison and its complement."""
    seen = {ast.dump(value) for value in values}
    for value in values:
        if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not) and ast.dump(value.operand) in seen:
            return True
        if isinstance(value, ast.Compare) and len(value.ops) == 1 and type(value.ops[0]) in _COMPLEMENT:
            opposite = ast.Compare(value.left, [_COMPLEMENT[type(value.ops[0])]()], value.comparators)
            if ast.dump(opposite) in seen:
                return True
    return False


def _negative_bound(left: ast.expr, op: ast.cmpop, right: ast.expr) -> bool:
    """``len(x) < 0``, ``len(x) <= -1``, ``len(x) == -1``, or the same written the other way round."""
    flipped = {ast.Gt: ast.Lt, ast.GtE: ast.LtE, ast.Eq: ast.Eq}
    if _is_never_negative(right) and type(op) in flipped:
        left, op, right = right, flipped[type(op)](), left
    if not (_is_never_negative(left) and isinstance(right, (ast.Constant, ast.UnaryOp))):
        return False
    bound = _number(right)
    if bound is None:
        return False
    if isinstance(op, ast.Lt):
        return bound <= 0
    return isinstance(op, (ast.LtE, ast.Eq)) and bound < 0


def _is_never_negative(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _NEVER_NEGATIVE


def _number(node: ast.expr) -> float | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    return None


def _is_isinstance_object(node: ast.expr) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"
            and len(node.args) == 2 and isinstance(node.args[1], ast.Name) and node.args[1].id == "object")


def is_empty_slice(node: ast.expr) -> bool:
    """Whether a loop's iterable is ``x[:0]`` (or ``x[0:0]``) of a side-effect-free ``x``."""
    if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice)):
        return False
    part = node.slice
    zero_or_none = part.lower is None or _number(part.lower) == 0
    return part.step is None and zero_or_none and part.upper is not None and _number(part.upper) == 0 and is_pure(node.value)


def dead_in_function(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[tuple[ast.stmt, str]]:
    """The dead stores and dropped results of one function's own scope, with the reason."""
    if _reads_names_dynamically(function):
        return
    guarded = _guarded_statements(function)
    for statement in _dead_stores(function):
        computed = _is_computation(statement) and id(statement) not in guarded
        yield statement, "dead-computation" if computed else "dead-store"
    for statement in _dropped_results(function):
        if id(statement) not in guarded:
            yield statement, "dropped-result"


def _reads_names_dynamically(function: ast.AST) -> bool:
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _NAME_READERS
               for node in ast.walk(function))


def _dead_stores(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.stmt]:
    """Stores to a plain local name whose every read lies in another dead store's value."""
    reads: dict[str, list[ast.AST]] = {}
    declared: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
            reads.setdefault(node.id, []).append(node)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            reads.setdefault(node.target.id, []).append(node)
    stores = [(node, name) for node, name in _stores(function) if name not in declared and not name.startswith("_")]
    dead: dict[int, ast.stmt] = {}
    dead_reads: set[int] = set()
    changed = True
    while changed:
        changed = False
        for node, name in stores:
            if id(node) in dead or not all(id(read) in dead_reads for read in reads.get(name, [])):
                continue
            dead[id(node)] = node
            dead_reads.update(id(inner) for inner in ast.walk(node) if isinstance(inner, ast.Name))
            changed = True
    return list(dead.values())


def _is_computation(statement: ast.stmt) -> bool:
    """Whether a store's value computes something from a variable without side effects (not a
    literal, a plain name or attribute, or a call that may act)."""
    value = getattr(statement, "value", None)
    if value is None or not is_pure(value):
        return False
    nodes = list(ast.walk(value))
    return any(isinstance(node, ast.Name) for node in nodes) and any(isinstance(node, _OPERATIONS) for node in nodes)


_OPERATIONS = (ast.Call, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Subscript, ast.IfExp, ast.JoinedStr)


def _stores(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[tuple[ast.stmt, str]]:
    for node in _own_nodes(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target = node.target
        else:
            continue
        if isinstance(target, ast.Name):
            yield node, target.id


def _dropped_results(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.stmt]:
    for node in _own_nodes(function):
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name) and node.value.func.id in _DROPPABLE
                and is_pure(node.value)):
            yield node


def _guarded_statements(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[int]:
    """Ids of the statements under a ``try`` body or a ``with`` block (``assertRaises``): a pure
    computation there may be made for the exception it raises."""
    guarded: set[int] = set()
    for node in _own_nodes(function):
        if isinstance(node, (ast.Try, ast.With, ast.AsyncWith)) or type(node).__name__ == "TryStar":
            for statement in getattr(node, "body", []):
                guarded.update(id(inner) for inner in ast.walk(statement) if isinstance(inner, ast.stmt))
    return guarded


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
