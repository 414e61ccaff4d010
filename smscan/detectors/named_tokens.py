"""Bare tokens named by the words just before them: ``access token sgp_...``, ``TOKEN 8a5d...``.

Notes, logs and chat paste a key after the words that say what it is, with no ``=`` or ``:``
(``owlbot TOKEN 8a5de3a8...``, ``tefter PRIVATE KEY zyx...``, ``Secret Key 8kKd...``). The token
finder (:mod:`smscan.detectors.token_runs`) reads such a key as a bare run, which pays the
penalty of a value with no name. When the one to three words right before it on its line say
secret, the run is a labelled value instead: named by those words, judged as any named value.

A webhook's URL carries its secret in the path (``https://hooks.<chat>/services/T../B../<secret>``,
``.../webhook/<id>@<tenant>/IncomingWebhook/<secret>/...``): a path token of a URL whose host says
``hook`` or whose path has a ``hooks``/``webhook`` segment is named ``webhook secret``, where any
other URL's path token (a commit, a gist, a document id, an API's ``/eventHooks/<id>``) stays bare.
"""

from __future__ import annotations

import re

from smscan.detectors.secret_names import SECRET_WORDS, name_class
from smscan.detectors.slot_kinds import LABEL, TOKEN, Slot

# One to three words, then spaces or one `:`, right before the token. (`name = value` is the
# assignment finder's: where it found no value, the right side is an expression.)
_WORDS_BEFORE = re.compile(r"(?:^|(?<=[\s\"'`(\[{,;]))(?P<name>[A-Za-z][\w\-]*(?:[ \t]+[A-Za-z][\w\-]*){0,2})(?:[ \t]*:[ \t]*|[ \t]+)$")
# A token followed at once by a call or an index is an expression (`get_token(...)`); a note in
# brackets after a space is prose (`Zq8x... (rotate monthly)`).
_EXPRESSION_AFTER = re.compile(r"[(\[]")
# Last words that name a secret in prose: a secret word itself, or `key` after words that say which.
_SECRET_LAST_WORDS = SECRET_WORDS | {"key", "apikey"}
# How far before a token its naming words are read.
_REACH = 48
# A URL running up to a token, and how far back on its line one is looked for.
_URL_UP_TO = re.compile(r"\b[A-Za-z][A-Za-z0-9+.\-]{0,39}://[^\s'\"`<>]*$")
_URL_REACH = 256
# Path segments that say the URL is a webhook's own (`/hooks/<token>`, `/api/webhooks/<id>/<token>`,
# `/webhookb2/.../IncomingWebhook/<secret>`); a management API's resource named in camelCase
# (`/api/v1/eventHooks/<id>`) holds ids.
_HOOK_SEGMENTS = frozenset(["hook", "hooks", "webhook", "webhooks", "webhookb2", "incomingwebhook"])


def name_bare_tokens(text: str, slots: list[Slot]) -> list[Slot]:
    """``slots`` with each unnamed token that follows words saying secret made a labelled value.

    Example:
        >>> text = "owlbot TOKEN 8a5de3a89b7e4f29bf728b45adcdea6ea3410c78"
        >>> [(s.key, s.where) for s in name_bare_tokens(text, [Slot(13, len(text), "", TOKEN)])]
        [('owlbot TOKEN', 'label')]
    """
    out = []
    for slot in slots:
        if slot.where == TOKEN and not slot.key:
            name = "" if _EXPRESSION_AFTER.match(text, slot.end) else words_before(text, slot.start)
            name = name or webhook_name(text, slot.start)
            if name:
                slot = Slot(slot.start, slot.end, name, LABEL)
        out.append(slot)
    return out


def words_before(text: str, start: int) -> str:
    """The words right before ``start`` on its line when they say secret (``access token``), else ``""``."""
    line_start = text.rfind("\n", max(start - _REACH, 0), start) + 1
    window = max(line_start, start - _REACH)
    match = _WORDS_BEFORE.search(text[window:start])
    if not match:
        return ""
    name = match.group("name")
    # The last word is a word of prose (`token`, `KEY`), not a constant or variable being defined
    # (`#define SNMP_AUTH_PROTO usmHMACMD5AuthProtocol` binds a name to a protocol's name).
    last = name.split()[-1]
    if not last.isalpha() or last.lower() not in _SECRET_LAST_WORDS:
        return ""
    return name if name_class(name) == "secret" else ""


def webhook_name(text: str, start: int) -> str:
    """``"webhook secret"`` when ``start`` lies in the path of a URL that says ``hook``, else ``""``.

    Example:
        >>> url = "https://hooks.chat.example.net/services/T0AB/B0CD/Zq8xP1sV9kL2mN4bT7wRaa"
        >>> webhook_name(url, url.rindex("/") + 1), webhook_name("https://git.example.org/commit/9f8a", 31)
        ('webhook secret', '')
    """
    line_start = text.rfind("\n", max(start - _URL_REACH, 0), start) + 1
    window = max(line_start, start - _URL_REACH)
    match = _URL_UP_TO.search(text, window, start)
    if match is None:
        return ""
    host, _, path = match.group().split("://", 1)[1].partition("/")
    says_hook = "hook" in host.lower() or any(segment.lower() in _HOOK_SEGMENTS for segment in path.split("/"))
    return "webhook secret" if says_hook else ""
