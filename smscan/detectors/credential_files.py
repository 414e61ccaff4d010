"""Credential files in their own formats: values whose place the file's syntax names, with no
name written beside them.

Classic files keep passwords where only their format says so, and keep the user and host on the
same line: the span is the secret alone.

- ``.pgpass``: ``host:port:database:user:password`` (PostgreSQL's password file; ``\\:`` escapes);
- ``.htpasswd``: ``user:hash``, an Apache ``$apr1$``, bcrypt ``$2y$``, crypt ``$5$``/``$6$`` or
  ``{SHA}`` hash; in a document of ``user:value`` lines alone where one value is such a hash, or
  every value a 13-character DES crypt, every line's value (plain text is allowed there too);
- ``.npmrc``: ``_password=`` and ``_auth=`` (base64 by definition, so never judged as encoded text);
- FileZilla: ``<Pass encoding="base64">...</Pass>``, and any XML element whose ``name``/``key``
  attribute says secret (``<Setting name="Proxy password">...</Setting>``);
- Jenkins: an encrypted secret ``{AQAAABAAAA...}`` (the credentials plugin's format, version 1,
  16-byte IV), whatever element holds it; the span is inside the braces;
- Oracle: ``jdbc:oracle:thin:user/password@host`` and ``sqlplus user/password@db``;
- IRC: ``/msg NickServ IDENTIFY [account] password``;
- a key file: a document that is one random token and nothing else (Rails ``master.key``, a
  ``*.key`` or token file): the whole file is the secret.

Each finder reads a whole text and yields :class:`~smscan.detectors.slot_kinds.Slot`\\ s; the
format's own password places are ``file-format`` slots, which the judgement treats as a
secret-bearing place (as a URL's password).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from smscan.detectors.slot_kinds import ARGUMENT, ASSIGNMENT, FILE_FORMAT, URL_USERINFO, Slot

# host:port:database:username:password, each field with `\:` and `\\` escapes; the port is a
# number or `*`, the host a name, an IPv4 address or `*` (`12:30:45:00:done` is no line of it).
_FIELD = r"(?:\\.|[^:\\\s])+"
_PGPASS_LINE = re.compile(
    rf"^[ \t]*(?:\*|[A-Za-z][\w.\-]*|\d{{1,3}}(?:\.\d{{1,3}}){{3}}):(?:\*|\d{{2,5}}):{_FIELD}:{_FIELD}:(?P<password>{_FIELD})[ \t]*$", re.MULTILINE
)
# user:hash, one per line.
_HTPASSWD_LINE = re.compile(
    r"^[\w.@\-]+:(?P<hash>\$(?:apr1|2[abxy]?|5|6|1)\$[./A-Za-z0-9$]{8,}|\{SHA\}[A-Za-z0-9+/]{27}=)[ \t]*$",
    re.MULTILINE,
)
# Any `user:value` line, and the 13 characters of a traditional DES crypt (two of salt, eleven of hash).
_HTPASSWD_ENTRY = re.compile(r"^[\w.@\-]+:(?P<hash>[^\s:]+)[ \t]*$")
_DES_CRYPT = re.compile(r"^[./0-9A-Za-z]{13}$")
# `_password=<base64>` and `_auth=<base64>` of an .npmrc, alone or after a registry's `//host/:`.
_NPMRC_ENCODED = re.compile(r"^[ \t]*(?:\S*:)?(?P<name>_password|_auth)[ \t]*=[ \t]*(?P<value>[A-Za-z0-9+/]+=*)[ \t]*$", re.MULTILINE)
_FILEZILLA_PASS = re.compile(r"<Pass\s+encoding=\"base64\"\s*>(?P<value>[A-Za-z0-9+/]+=*)</Pass>")
# An element named by its attribute: <Setting name="Proxy password">value</Setting>.
_NAMED_ELEMENT = re.compile(
    r"<(?P<tag>[A-Za-z_][\w:.\-]*)\s+(?:name|key|id)=\"(?P<name>[^\"<>]{1,60})\"\s*>(?P<value>[^<>\s]+)</(?P=tag)>"
)
# Jenkins' secret: {base64 of 0x01, IV length 16, data length, IV, data}: always `AQAAABAAAA`.
_JENKINS_SECRET = re.compile(r"\{(?P<value>AQAAABAAAA[A-Za-z0-9+/]{20,}=*)\}")
_ORACLE_LOGIN = re.compile(
    r"(?:\bjdbc:oracle:(?:thin|oci8?|kprb):|\bsqlplus(?:64)?(?:\s+-\w+)*\s+)"
    r"(?P<user>[A-Za-z][\w$#]*)/(?P<password>[^\s@/'\"]+)@"
)
_NICKSERV_IDENTIFY = re.compile(
    r"(?i)\bnickserv\b[ \t:]+identify[ \t]+(?:[^\s;\"']+[ \t]+)?(?P<password>[^\s;\"']+)"
)
# A whole file that is one token: hex, base64 or base64url, 24 to 256 characters.
_KEY_FILE = re.compile(r"\A[ \t]*(?P<value>[A-Za-z0-9+/_\-]{24,256}={0,2})[ \t]*\r?\n?\Z")


def htpasswd_slots(text: str) -> Iterator[Slot]:
    """The password hashes of an htpasswd file's ``user:hash`` lines (see the module docstring).

    Example:
        >>> text = "alice:$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/\\nbob:Kx9vQ2mLp7wR\\n"
        >>> [text[s.start:s.end] for s in htpasswd_slots(text)]
        ['$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/', 'Kx9vQ2mLp7wR']
    """
    known = list(_HTPASSWD_LINE.finditer(text))
    for match in known:
        yield Slot(match.start("hash"), match.end("hash"), "password hash", FILE_FORMAT)
    entries = []
    offset = 0
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            entry = _HTPASSWD_ENTRY.match(line.rstrip("\r"))
            if entry is None:
                return  # a line of something else: not an htpasswd file
            entries.append((offset + entry.start("hash"), offset + entry.end("hash"), entry.group("hash")))
        offset += len(line) + 1
    all_des = bool(entries) and all(_DES_CRYPT.match(value) and not value.islower() for _, _, value in entries)
    if not known and not all_des:
        return
    taken = {match.start("hash") for match in known}
    for start, end, _ in entries:
        if start not in taken:
            yield Slot(start, end, "password hash", FILE_FORMAT)


def credential_file_slots(text: str) -> Iterator[Slot]:
    """The slots of ``text`` that only its credential file format names (see the module docstring).

    Example:
        >>> text = "db.example.com:5432:orders:app:Vb8qTm2zKx5R\\n"
        >>> [(text[s.start:s.end], s.where) for s in credential_file_slots(text)]
        [('Vb8qTm2zKx5R', 'file-format')]
    """
    for match in _PGPASS_LINE.finditer(text):
        yield Slot(match.start("password"), match.end("password"), "password", FILE_FORMAT)
    yield from htpasswd_slots(text)
    for match in _NPMRC_ENCODED.finditer(text):
        yield Slot(match.start("value"), match.end("value"), match.group("name"), FILE_FORMAT)
    for match in _FILEZILLA_PASS.finditer(text):
        yield Slot(match.start("value"), match.end("value"), "Pass", FILE_FORMAT)
    for match in _NAMED_ELEMENT.finditer(text):
        yield Slot(match.start("value"), match.end("value"), match.group("name"), ASSIGNMENT)
    for match in _JENKINS_SECRET.finditer(text):
        yield Slot(match.start("value"), match.end("value"), "secret", FILE_FORMAT)
    for match in _ORACLE_LOGIN.finditer(text):
        yield Slot(match.start("password"), match.end("password"), "password", URL_USERINFO)
    for match in _NICKSERV_IDENTIFY.finditer(text):
        yield Slot(match.start("password"), match.end("password"), "password", ARGUMENT)
    key_file = _KEY_FILE.match(text)
    if key_file and _is_random_token(key_file.group("value")):
        yield Slot(key_file.start("value"), key_file.end("value"), "key file", FILE_FORMAT)


def _is_random_token(value: str) -> bool:
    """A token that mixes digits with letters: not a word, a name or a number alone."""
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
