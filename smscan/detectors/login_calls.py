"""The password passed by position to a login or connection call, where no name binds it.

``DriverManager.getConnection("jdbc:postgresql://db/app", "app", "<password>")``,
``new PDO('mysql:host=db;dbname=app', 'app', '<password>')``,
``mysqli_connect('localhost', 'app', '<password>', 'app')``, ``ftp_login($conn, 'app',
'<password>')``, ``smtp.login("me@example.com", "<password>")``: a call whose name says it logs in
or connects takes *where* (a URL, DSN, host or handle), then *who*, then the secret; or, when its
first argument is already the user, *who* and then the secret. The argument in the secret's
position is bound to ``password``; every other argument keeps the binding it had.
"""

from __future__ import annotations

import re

from smscan.detectors.secret_names import name_words

# Words of a call's name that say it opens a connection: (where, who, secret).
_CONNECT_WORDS = frozenset({"connect", "connection", "pdo", "mysqli"})
# Words of a call's name that say it logs in: (who, secret), or (handle, who, secret).
_LOGIN_WORDS = frozenset({"login", "logon", "signin", "authenticate", "auth"})
# Pieces of an argument list: a quoted string, a bracket, a comma, a run of anything else, or a
# quote left open (the line cut at a string's middle): every character is in some piece.
_PIECE = re.compile(r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[()\[\]{},]|[^'"()\[\]{},]+|['"]""")
_CALL_BEFORE = re.compile(r"(?P<call>[A-Za-z_$][\w$]*)\s*$")
# A first argument that is the user: a quoted name or e-mail address, or an expression whose
# words say user (`user`, `$username`, `os.getenv("DB_USER")`); anything else is a handle.
_QUOTED_USER = re.compile(r"""^["'](?:[\w\-]+|[\w.+\-]+@[\w.\-]+)["']$""")
_USER_WORDS = frozenset({"user", "username", "usr", "login", "email", "account", "uid"})
# A keyword argument (`user="u"`, `user: "u"`): the call binds by name, not by position.
_KEYWORD = re.compile(r"^[A-Za-z_]\w*\s*(?:=(?!=)|:(?!:))")


def is_positional_password(left: str) -> bool:
    """Whether a string whose left context is ``left`` is the secret argument of a login call.

    Args:
        left: the text of the line before the string's opening quote.

    Returns:
        True when the innermost call open at the end of ``left`` says login or connect and the
        string stands where that call takes its password.

    Example:
        >>> is_positional_password('c = DriverManager.getConnection("jdbc:mysql://db/app", "app", ')
        True
        >>> is_positional_password('c = DriverManager.getConnection("jdbc:mysql://db/app", ')
        False
    """
    opened = _innermost_call(left)
    if opened is None:
        return False
    call, arguments = opened
    if any(_KEYWORD.match(argument) for argument in arguments):
        return False
    words = set(name_words(call))
    if words & _CONNECT_WORDS:
        return len(arguments) == 2
    if words & _LOGIN_WORDS and arguments:
        return len(arguments) == (1 if _is_user(arguments[0]) else 2)
    return False


def _innermost_call(left: str) -> tuple[str, list[str]] | None:
    """The name of the innermost call still open at the end of ``left`` and its complete
    arguments so far; None unless ``left`` ends where a new positional argument starts."""
    # Each open bracket: the call's name ("" for a subscript or literal), where it opened, the
    # complete arguments, and the pieces of the argument being read.
    stack: list[tuple[str, int, list[str], list[str]]] = []
    for match in _PIECE.finditer(left):
        piece, position = match.group(), match.start()
        if piece in "([{":
            before = _CALL_BEFORE.search(left, 0, position) if piece == "(" else None
            stack.append((before.group("call") if before else "", position, [], []))
        elif piece in ")]}":
            if stack:
                opened_at = stack.pop()[1]
                if stack:  # the closed group is part of the argument around it
                    stack[-1][3].append(left[opened_at : position + 1])
        elif stack and piece == ",":
            stack[-1][2].append("".join(stack[-1][3]).strip())
            stack[-1][3].clear()
        elif stack:
            stack[-1][3].append(piece)
    if not stack or not stack[-1][0] or "".join(stack[-1][3]).strip():
        return None
    return stack[-1][0], stack[-1][2]


def _is_user(argument: str) -> bool:
    return bool(_QUOTED_USER.match(argument)) or (
        argument[:1] not in "\"'" and bool(_USER_WORDS.intersection(name_words(argument)))
    )
