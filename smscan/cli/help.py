"""Help that reads like git's and pre-commit's: plain text, arguments by their metavar.

Typer shows a required argument as ``{base}`` in the usage line and every argument with a type
placeholder (``<str>``); :class:`Command` shows ``BASE[...HEAD]`` and ``FILES...`` instead.
:func:`plain_app` makes the root app and each command group (``smscan model``, ``smscan cache``)
with the same settings.
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperArgument, TyperCommand


def plain_app(**options: Any) -> typer.Typer:
    """A Typer app with plain help (no rich markup), help when called bare, no shell completion,
    and no pretty tracebacks: they would show locals, which may hold a scanned value."""
    return typer.Typer(
        rich_markup_mode=None, no_args_is_help=True, add_completion=False,
        pretty_exceptions_enable=False, pretty_exceptions_show_locals=False, **options,
    )


def _argument_name(param: Any) -> str:
    name = str(param.metavar or param.name.upper())
    if param.nargs != 1 and not name.endswith("..."):
        name += "..."
    return name


class Command(TyperCommand):
    """A command whose usage line and argument list show each argument's metavar alone."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if isinstance(param, TyperArgument):
                name = _argument_name(param)
                pieces.append(name if param.required else f"[{name}]")
            else:
                pieces.extend(param.get_usage_pieces(ctx))
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if isinstance(param, TyperArgument):
                arguments.append((_argument_name(param), param.help or ""))
            else:
                options.append(record)
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)
