"""Command-line and build-file forms the general finders miss.

``mysql -u root -pS3cr3t`` (a password glued to ``-p``, only on database client lines, where
``-p`` means password and not ``-pthread`` or ``-print``), and Dockerfile ``ENV NAME value`` /
``ARG NAME=value`` written without ``=``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_DATABASE_CLIENT = re.compile(r"\b(?:mysql\w*|mariadb\w*|mysqldump|mysqladmin|mycli|sshpass)\b")
_GLUED_PASSWORD = re.compile(r"(?<![\w\-])-p(?P<value>[^\s'\"\-][^\s'\"]{3,})")
_DOCKER_ENV = re.compile(r"^\s*(?:ENV|ARG)\s+(?P<key>[A-Za-z_]\w*)\s+(?P<value>[^\s=][^\s]*)\s*$")


def glued_passwords(line: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of a password glued to ``-p`` on a database client's command line."""
    if not _DATABASE_CLIENT.search(line):
        return
    for match in _GLUED_PASSWORD.finditer(line):
        yield match.start("value"), match.end("value")


def docker_env_value(line: str) -> tuple[int, int, str] | None:
    """``(start, end, name)`` of the value of a Dockerfile ``ENV NAME value`` line, or None."""
    match = _DOCKER_ENV.match(line)
    return (match.start("value"), match.end("value"), match.group("key")) if match else None
