"""The name a quoted value is bound to, read from the text left of it, in any language's syntax.

``api_key = "..."``, ``let token: &str = "..."``, ``{"password": "..."}``, ``password => '...'``
bind by an operator; ``get("NAME", "...")`` and Go's ``SECRET := getenv("X", "...")`` by a lookup
default (both names count); ``process.env.NAME || "..."`` by a fallback; ``CURLOPT_PASSWORD,
"..."`` by the constant before it in a call; ``setPassword("...")`` by the call's name;
``#define API_KEY "..."`` by the macro; ``user, password = "...", "..."`` by position; SQL's ``IDENTIFIED BY '...'`` and ``PASSWORD '...'`` by
the keyword, ``UPDATE t SET value = '...' WHERE name = 'api_secret'`` by the row's name; ``<add key="k" value="..."/>`` by the key attribute; ``getConnection(url, "user",
"...")`` and ``new PDO(dsn, 'user', '...')`` by position in a login or connection call
(:mod:`smscan.detectors.login_calls`).
"""

from __future__ import annotations

import re

from smscan.detectors.login_calls import is_positional_password
from smscan.detectors.secret_names import is_secret_name, mentions_secret, name_class

# How far left of a string its name is looked for: bounds the work on minified one-line files.
LEFT_CHARS = 120

# `name = `, `name: Type = `, `name := `, `"name": `, `name => `, with no other operator between. A
# type starts with a name, `[`, `*` or `&`, never `<` (`<label>Password: <input autoComplete='...'`
# binds the string to autoComplete).
_OPERATOR = re.compile(
    r"(?P<key>[A-Za-z_$@][\w.\-$@]*)(?:\[\w*\]|[\"']?\]|[\"'])?[ \t]*(?:\?\??)?"
    r"(?:[ \t]*:[ \t]*[\w.\[*&][\w.\[\]<>|&'*]*(?:[ \t]+[\w.\[\]<>|&'*]+)?)?"
    r"[ \t]*(?:===?|!==?|:=|=>|=|:)(?:[^=:]|::)*$"
)
# The default of a lookup, or the second argument of a call such as `basic_auth("user", Some("..."))`
# (an `Option`/`Optional` wrapper around it is looked through).
_LOOKUP_DEFAULT = re.compile(r"""(?P<call>[\w.]+)\(\s*["'](?P<key>[\w.\-]+)["']\s*,\s*(?:[A-Za-z_]\w*\(\s*)?$""")
_FALLBACK = re.compile(r"(?P<key>[\w$]+)\s*(?:\|\||\?\?|\bor\b)\s*$")
# `System.getenv("NAME") ?: "..."`, `os.getenv("NAME") or "..."`, `ENV["NAME"] || "..."`: the fallback
# of a lookup is bound to the looked-up name, and to the name the result is stored under.
_LOOKUP_FALLBACK = re.compile(
    r"""[\w.]+(?:\(\s*|\[)["'](?P<key>[\w.\-]+)["']\s*[)\]]\s*(?:\|\||\?\?|\?:|\bor\b)\s*$"""
)
_XML_KEY_ATTR = re.compile(r"""\b(?:key|name|id)\s*=\s*["'](?P<key>[^"']+)["']""")
_VALUE_ATTR = re.compile(r"\bvalue\s*=\s*$")
# SQL: CREATE USER ... IDENTIFIED BY '...', IDENTIFIED WITH plugin BY '...', [WITH] PASSWORD '...'.
_SQL_PASSWORD = re.compile(r"\b(?:IDENTIFIED(?:\s+WITH\s+\w+)?\s+BY|PASSWORD)\s*$", re.IGNORECASE)
_SQL_INSERT = re.compile(r"(?i)\bINSERT\s+INTO\s+[\w.`\"\[\]]+\s*\((?P<columns>[^()]*)\)\s*VALUES\s*\((?P<before>[^()]*)$")
# Commas between values, outside quoted strings: a quoted string is skipped whole.
_QUOTED_OR_COMMA = re.compile(r"""'(?:[^'\\]|\\.|'')*'(?!')|"(?:[^"\\]|\\.)*"|(,)""")
# SQL key-value tables: `UPDATE settings SET value = '...' WHERE name = 'api_secret'`.
_SQL_SET = re.compile(r"(?i)\bSET\s+(?P<column>[\w.`\"\[\]]+)\s*=\s*$")
_SQL_WHERE_NAME = re.compile(r"""(?i)'(?:[^'\\]|'')*'\s+WHERE\s+[\w.`"\[\]]+\s*=\s*'(?P<key>[^']+)'""")
# A tuple assignment: `user, password = "...", "..."`, Go's `const a, b string = "...", "..."`; each
# value is bound to the name in its place (the values so far are plain, with no call or bracket).
_TUPLE_ASSIGNMENT = re.compile(
    r"^\s*(?:(?:const|var|let|local)\s+)?(?P<names>[A-Za-z_$][\w.$]*(?:\s*,\s*[A-Za-z_$][\w.$]*)+)"
    r"(?:\s+[\w.*\[\]]+)?\s*:?=\s*(?P<before>[^=()\[\]{}]*)$"
)
_DEFINE = re.compile(r"^\s*#\s*define\s+(?P<key>\w+)\s+$")
# An option's name as the argument just before the string in a call: `setopt(h, CURLOPT_PASSWORD,
# "...")`, `setopt(pycurl.USERPWD, "...")`. Options are named by constants; a variable there is
# another input (`sign_sha256(service_key, 'aws4_request')` signs the string with the key).
_ARGUMENT_BEFORE = re.compile(r"[(,]\s*(?P<key>(?:[A-Za-z_][\w]*(?:\.|::|->))*[A-Z][A-Z0-9_]*)\s*,\s*$")
# The name of the call the string is the first argument of: `setPassword("...")`.
_CALL_NAME = re.compile(r"(?P<key>[A-Za-z_][\w]*)\s*\(\s*$")


def binding_before(line: str, quote_start: int) -> str:
    """The name a string starting at ``quote_start`` of ``line`` is bound to, or ``""``.

    Example:
        >>> binding_before('SECRET := getenv("X", "v")', 22), binding_before("IDENTIFIED BY 'v'", 14)
        ('X getenv SECRET', 'password')
    """
    left = line[max(quote_start - LEFT_CHARS, 0) : quote_start]
    if is_positional_password(left):
        # `getConnection(url, "app", "...")`, `new PDO(dsn, 'app', '...')`: bound by position.
        return "password"
    lookup = _LOOKUP_DEFAULT.search(left)
    if lookup:
        # The lookup's own name, and when that says nothing of a secret, the name its result is
        # stored under too (`SECRET := getenv("X", "...")`).
        key = lookup.group("key")
        # A key that speaks of secrets is the name, even when it names a thing that handles them
        # (`MovedAttribute("HTTPPasswordMgr", "urllib2")`).
        if is_secret_name(key) or mentions_secret(key):
            return key
        # `SetBasicAuth("admin", "...")`: the call's own name may say what the value is.
        call = lookup.group("call").rsplit(".", 1)[-1]
        return _with_stored_name([key, call], left[: lookup.start()])
    lookup = _LOOKUP_FALLBACK.search(left)
    if lookup:
        return _with_stored_name([lookup.group("key")], left[: lookup.start()])
    fallback = _FALLBACK.search(left)
    if fallback:
        return fallback.group("key")
    if _VALUE_ATTR.search(left):
        attribute = _XML_KEY_ATTR.search(left)
        if attribute:
            return attribute.group("key")
    if _SQL_PASSWORD.search(left):
        return "password"
    insert = _SQL_INSERT.search(left)
    if insert:
        # INSERT INTO t (owner, client_secret) VALUES ('carol', '...'): the value's column.
        columns = [column.strip(" `\"[]") for column in insert.group("columns").split(",")]
        position = sum(1 for match in _QUOTED_OR_COMMA.finditer(insert.group("before")) if match.group(1))
        if position < len(columns):
            return columns[position]
    assignment = _TUPLE_ASSIGNMENT.match(left)
    if assignment:
        names = [name.strip() for name in assignment.group("names").split(",")]
        position = sum(1 for match in _QUOTED_OR_COMMA.finditer(assignment.group("before")) if match.group(1))
        if position < len(names):
            return names[position]
    set_column = _SQL_SET.search(left)
    if set_column:
        # The row's name, when the statement picks the row by it and it says more than the
        # column: `SET value = '...' WHERE name = 'commit'` holds a commit id, while
        # `SET password = '...' WHERE name = 'alice'` stays a password.
        where = _SQL_WHERE_NAME.match(line, quote_start)
        column = set_column.group("column").strip("`\"[]")
        if where and (is_secret_name(where.group("key")) or name_class(column) == "neutral"):
            return where.group("key")
    define = _DEFINE.match(left)
    if define:
        return define.group("key")
    argument = _ARGUMENT_BEFORE.search(left)
    if argument:
        return argument.group("key")
    call = _CALL_NAME.search(left)
    # A call that names what it takes says more than the name its result is stored under
    # (`files = repo.get_commit("7266e8...").files`).
    if call and name_class(call.group("key")) == "identifier":
        return call.group("key")
    binding = _OPERATOR.search(left)
    if binding:
        return binding.group("key").strip("$@")
    return call.group("key") if call else ""


def _with_stored_name(names: list[str], before: str) -> str:
    """``names`` and the name a lookup's result is stored under (``SECRET := getenv(...)``), if any."""
    outer = _OPERATOR.search(before)
    return " ".join([*names, *([outer.group("key").strip("$@")] if outer else [])])
