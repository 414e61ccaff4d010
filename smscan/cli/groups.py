"""Option groups: options declared once in a dataclass, shared by the commands that take them.

Typer reads a command's options from its signature, one parameter each, so without groups the
scan options would be spelled again in every scanning command and a command would take 20
parameters. :func:`command` lets a parameter be annotated with a group (a frozen dataclass whose
fields are ``Annotated`` Typer options): the command line shows the group's fields as options and
the function receives one instance of the group.

Example:
    >>> @dataclass(frozen=True)
    ... class Verbosity:
    ...     quiet: Annotated[bool, typer.Option("--quiet")] = False
    >>> @command
    ... def hello(verbosity: Verbosity) -> int:
    ...     return 0 if verbosity.quiet else 1
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar, get_type_hints

F = TypeVar("F", bound=Callable[..., Any])


def command(func: F) -> F:
    """Expand each group-typed parameter of ``func`` into its fields for Typer (module docstring).

    Raises:
        TypeError: two groups (or a group and the command) declare the same option name.
    """
    signature = inspect.signature(func, eval_str=True)
    parameters: list[inspect.Parameter] = []
    groups: dict[str, tuple[type[Any], tuple[str, ...]]] = {}
    for parameter in signature.parameters.values():
        group = parameter.annotation
        if isinstance(group, type) and dataclasses.is_dataclass(group):
            fields = _fields(group)
            groups[parameter.name] = (group, tuple(field.name for field in fields))
            parameters.extend(fields)
        else:
            parameters.append(parameter.replace(kind=inspect.Parameter.KEYWORD_ONLY))
    names = [parameter.name for parameter in parameters]
    if len(names) != len(set(names)):
        raise TypeError(f"{func.__name__}: an option name is declared twice: {sorted(names)}")

    @functools.wraps(func)
    def run(**values: Any) -> Any:
        for name, (group, members) in groups.items():
            values[name] = group(**{member: values.pop(member) for member in members})
        return func(**values)

    run.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]  # Typer reads the signature a function carries
    run.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": signature.return_annotation}
    return run  # type: ignore[return-value]  # the wrapper takes the expanded options, not the groups


def _fields(group: type[Any]) -> list[inspect.Parameter]:
    hints = get_type_hints(group, include_extras=True)
    return [
        inspect.Parameter(
            field.name, inspect.Parameter.KEYWORD_ONLY,
            default=field.default if field.default is not dataclasses.MISSING else inspect.Parameter.empty,
            annotation=hints[field.name],
        )
        for field in dataclasses.fields(group)
    ]
