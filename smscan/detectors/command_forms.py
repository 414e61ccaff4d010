"""Values on command lines and in build files.

Option values (``--token X``, ``--password=X``, ``-u user:password``, ``sshpass -p X``,
``-H "X-Api-Key: X"``, ``-var client_secret=X``, ``-passout pass:X``), ``mysql -u root -pS3cr3t`` (a password glued to ``-p``, only on database client lines, where
``-p`` means password and not ``-pthread`` or ``-print``), and Dockerfile ``ENV NAME value`` /
``ARG NAME=value`` written without ``=``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from smscan.detectors.secret_names import is_password_name, is_secret_name
from smscan.detectors.secret_places import leading_header_value

# Options with a value: --name value, --name=value, -x value. An option starts a word (after a
# space, a quote, a bracket or a comma), so `~-L=?3T` inside a random password is none.
_OPTION = re.compile(
    r"(?:^|(?<=[\s\"'`(\[,]))(?P<name>--?[A-Za-z][\w\-]*)(?:=|[ \t]+)(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s'\"`|;&<>\-][^\s'\"`|;&<>]*)"
)
# A pair's value starts with no `=`: `--token=YWJjZGVm==` is a token padded with `=`, no pair;
# `name==1.0` pins a version.
_OPTION_PAIR = re.compile(r"^(?P<k>[A-Za-z_][\w.\-]*)=(?P<v>[^=].*)$")
_HEADER_LINE = re.compile(r"^(?P<name>[A-Za-z][\w\-]*):[ \t]*(?P<value>\S+)$")
# A value that says what it is before a colon: openssl's `-passout pass:<password>`.
_LABELLED_VALUE = re.compile(r"^(?P<k>[A-Za-z]+):(?P<v>[^\s:/].*)$")
_DATABASE_CLIENT = re.compile(r"\b(?:mysql\w*|mariadb\w*|mysqldump|mysqladmin|mycli|sshpass)\b")
_SSHPASS = re.compile(r"\bsshpass\s+(?:-\w+\s+)*$")
_GLUED_PASSWORD = re.compile(r"(?<![\w\-])-p(?P<value>[^\s'\"`\-][^\s'\"`]{3,})")
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


def option_values(line: str) -> Iterator[tuple[int, int, str]]:
    """``(start, end, name)`` of each command-line option's value in ``line``.

    The value is cut to what is secret in it: ``-u user:password`` gives the password (named
    ``password``), ``-H "X-Api-Key: v"`` the header's value (named by the header),
    ``-passout pass:v`` the value after a secret-saying label (named by the label), and
    ``-e API_TOKEN=v`` the pair's value (named by the pair).

    Example:
        >>> line = "curl -u admin:Zq8xP1sV9 --token=k7Qm2Rw9 https://x"
        >>> [(line[a:b], name) for a, b, name in option_values(line)]
        [('Zq8xP1sV9', 'password'), ('k7Qm2Rw9', 'token')]
    """
    for match in _OPTION.finditer(line):
        start, end = match.start("value"), match.end("value")
        if line[start] in "\"'":
            start, end = start + 1, end - 1
        name = match.group("name").lstrip("-")
        value = line[start:end]
        if start > match.start("value") and any(c.isspace() for c in value) and not is_secret_name(name):
            # A quoted value with spaces under a plain option is a sentence or a format
            # (`time -f "%e s wall, %M KB maxrss"`, `-m "fix the build"`), not a token.
            if _HEADER_LINE.match(value) is None and _OPTION_PAIR.match(value) is None:
                continue
        header = _HEADER_LINE.match(value)
        labelled = _LABELLED_VALUE.match(value)
        pair = _OPTION_PAIR.match(value)
        if name in ("u", "user", "auth", "proxy-user", "basic-auth") and ":" in value:
            # curl -u user:password, httpie --auth user:password: the password is the secret.
            yield start + value.index(":") + 1, end, "password"
        elif name in ("H", "header") and header:
            # -H "X-Api-Key: value": the header's value, named by the header.
            if leading_header_value(header.group("value")) is None:
                yield start + header.start("value"), start + header.end("value"), header.group("name")
        elif labelled and is_secret_name(labelled.group("k")):
            # -passin pass:..., -passout pass:...: the value after the label, named by it.
            yield start + labelled.start("v"), end, labelled.group("k")
        elif pair and not is_password_name(name):
            # -var client_secret=..., -e API_TOKEN=..., --build-arg NPM_TOKEN=...: the pair's name.
            # A password option takes no pairs (`--password F5=x+y`, `--password=Sn=x` are one
            # password holding `=`); another secret option may take a spec of pairs (docker's
            # `--secret type=env,id=NPM_TOKEN`, `--secret id=npmrc,src=.npmrc`).
            yield start + pair.start("v"), end, pair.group("k")
        elif name == "p" and _SSHPASS.search(line, 0, match.start()):
            # sshpass -p <password> ssh host: sshpass's `-p` is the password itself.
            yield start, end, "password"
        elif not value.startswith("-"):
            yield start, end, name
