"""The default of a variable's expansion: ``${DB_PASSWORD:-<value>}`` is the password used when none is set.

Compose files, shell scripts and ``.env`` templates give a setting its fallback in the expansion
that reads it (``${NAME:-value}``, ``${NAME-value}``, ``${NAME:=value}``). The expansion itself is
a reference to a secret kept elsewhere; its default is a value written here, named by the
variable. Only defaults of variables whose name says secret are read: a port or a user name
falls back to a value as often, and is no credential.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from smscan.detectors.secret_names import is_secret_name
from smscan.detectors.slot_kinds import ASSIGNMENT, Slot

# `${NAME:-default}`: the default a literal (no nested expansion, quote or blank)
_DEFAULTED = re.compile(r"\$\{(?P<name>[A-Za-z_]\w*):?[-=](?P<default>[^\s${}'\"`]+)\}")


def expansion_defaults(text: str) -> Iterator[tuple[tuple[int, int], Slot]]:
    """Each expansion of a secret-named variable with a default in ``text``: the expansion's span
    (a string or an assignment whose value is the whole expansion is that expansion, not a value)
    and a slot for its default.

    Example:
        >>> text = "url: postgres://app:${DB_PASSWORD:-Zq8xP1sV9kL2}@db ${DB_USER:-app} ${TOKEN:-}"
        >>> [(text[a:b], text[s.start:s.end], s.key) for (a, b), s in expansion_defaults(text)]
        [('${DB_PASSWORD:-Zq8xP1sV9kL2}', 'Zq8xP1sV9kL2', 'DB_PASSWORD')]
    """
    for match in _DEFAULTED.finditer(text):
        if is_secret_name(match.group("name")):
            yield (match.start(), match.end()), Slot(match.start("default"), match.end("default"), match.group("name"), ASSIGNMENT)


def defaulted_span(value: str) -> tuple[int, int] | None:
    """Where the default sits inside ``value`` when ``value`` is one whole expansion of a
    secret-named variable with a default (a URL's password written as ``${DB_PASSWORD:-x}``).

    Example:
        >>> defaulted_span("${DB_PASSWORD:-Zq8xP1sV9kL2}"), defaulted_span("${DB_PASSWORD}")
        ((15, 27), None)
    """
    match = _DEFAULTED.fullmatch(value)
    if match is None or not is_secret_name(match.group("name")):
        return None
    return match.start("default"), match.end("default")
