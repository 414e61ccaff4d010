"""Names a JSON value takes from the objects and arrays around it.

In JSON the name that says secret is often not the value's own key: ``"credentials": {"prod":
"..."}``, ``"token": {"value": "..."}``, ``"apiKeys": ["...", "..."]``, ``"secrets": [{"name":
"stripe", "value": "..."}]``. The line-based slot finder reads only the own key (or none, for an
array element), so such values were judged as unnamed strings. Here a small scanner of a JSON
document (one that starts with ``{`` or ``[``; JSON with comments too) finds the key each
object or array is bound to, and a value whose own name says nothing takes the nearest enclosing
secret-saying name: the name of the nearest named container only (an array of objects counts
as one), since a section name farther up says little about one value deep inside it, and a
JSON schema's ``"required": [...]`` or ``"enum": [...]`` under a ``Credentials`` definition
lists names, not secrets.

Only a neutral own name inherits: a name that says identifier (``"token": {"id": "<uuid>"}``)
keeps its class, and so do names that describe the secret instead of holding it (a JSON
schema's ``"password": {"pattern": ..., "description": ...}``) or hold the account beside it
(``"credentials": {"username": ...}``).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from smscan.detectors.secret_names import name_class, name_words
from smscan.detectors.slot_kinds import STRING, TOKEN, Slot

# Own names that describe a secret or sit beside it, rather than hold it: never inherit.
_DESCRIBING_WORDS = frozenset(
    """
    type kind format pattern description title label comment comments help hint example examples
    default enum schema ref required min max length minlength maxlength mode scope scopes provider
    issuer audience algorithm alg user username login email owner account region header prefix
    expires expiry expiration ttl policy strategy method source store storage env location
    """.split()
)
# Own names of a setting that describes a thing (`"credential": {"model": "SmolLM2-135M-Instruct"}`):
# such a value is judged as a name of a thing may be, though it inherits a secret name.
_THING_WORDS = frozenset(
    """
    model models criterion criteria scoring score scores metric metrics statistic name names version
    unit units rule rules threshold language lang locale font theme style engine backend driver
    dialect tokenizer encoding
    """.split()
)
# Strings, comments and brackets: all the scanner needs to see of a JSON document.
_TOKENS = re.compile(r'"(?:\\.|[^"\\\n])*"|//[^\n]*|/\*.*?\*/|[{}\[\]:]', re.DOTALL)


@dataclass(frozen=True, slots=True)
class _Container:
    start: int
    end: int
    # The key this container is bound to, else the nearest one around it ("" at the top). One
    # name, not the chain: copying the chain into every container is quadratic in the depth.
    name: str
    parent: int  # the index of the container around this one, -1 at the top


def share_enclosing_names(text: str, slots: list[Slot]) -> list[Slot]:
    """``slots`` with each JSON string value's neutral name replaced by an enclosing secret name.

    Example:
        >>> text = '{"credentials": {"prod": "Zq8xP1sV9kL2mN4b"}}'
        >>> [s.key for s in share_enclosing_names(text, [Slot(26, 42, "prod", STRING)])]
        ['credentials.prod']
    """
    if not text.lstrip().startswith(("{", "[")):
        return slots
    containers = _containers(text)
    if not containers:
        return slots
    starts = [c.start for c in containers]
    return [_renamed(text, slot, containers, starts) for slot in slots]


def _renamed(text: str, slot: Slot, containers: list[_Container], starts: list[int]) -> Slot:
    if slot.where not in (STRING, TOKEN) or name_class(slot.key) != "neutral" or _describes(slot.key):
        return slot
    if slot.where == TOKEN and not _is_whole_value(text, slot):
        return slot  # a run inside a longer string, or a key: not a JSON value of its own
    container = _innermost(containers, starts, slot.start)
    if container is None:
        return slot
    name = container.name
    if name_class(name) != "secret":
        return slot
    return Slot(slot.start, slot.end, f"{name}.{slot.key}" if slot.key else name, STRING, inherited=True)


def names_a_thing(slot: Slot) -> bool:
    """True for a value whose secret name is inherited and whose own name says it names a thing.

    A secret name written beside the value (``jwt.secret.key=...``, ``"password": ...``) is the
    value's own; one inherited from an enclosing object does not say what every leaf holds:
    ``"credential": {"model": "SmolLM2-135M-Instruct"}`` names a model.

    Example:
        >>> names_a_thing(Slot(0, 9, "credential.model", STRING, inherited=True))
        True
        >>> names_a_thing(Slot(0, 9, "token.value", STRING, inherited=True)), names_a_thing(Slot(0, 9, "jwt.secret.name", STRING))
        (False, False)
    """
    words = name_words(slot.key)
    return slot.inherited and bool(words) and words[-1] in _THING_WORDS


def _is_whole_value(text: str, slot: Slot) -> bool:
    quoted = text[slot.start - 1 : slot.start] == '"' == text[slot.end : slot.end + 1]
    return quoted and not text[slot.end + 1 : slot.end + 80].lstrip().startswith(":")


def _describes(key: str) -> bool:
    return any(word in _DESCRIBING_WORDS for word in name_words(key))


def _innermost(containers: list[_Container], starts: list[int], position: int) -> _Container | None:
    # The last container opened before the position encloses it, or else has closed already;
    # then the innermost enclosing one is among its ancestors (brackets nest), found by walking
    # up the parent links: as deep as the document, never across its siblings.
    index = bisect_right(starts, position) - 1
    while index >= 0:
        container = containers[index]
        if position < container.end:
            return container
        index = container.parent
    return None


def _containers(text: str) -> list[_Container]:
    """Every object and array of a JSON document with the keys it is bound to, in text order."""
    opened: list[tuple[int, str, int]] = []  # start, name, parent index
    ends: list[int] = []
    stack: list[int] = []  # indices into `opened` of the containers still open
    last_string = ""
    key = ""  # the key just read (`"name":`), bound to the next value if it is a container
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token.startswith('"'):
            last_string = token[1:-1]
            key = ""
        elif token == ":":
            key = last_string
        elif token in "{[":
            parent = stack[-1] if stack else -1
            outer = opened[parent][1] if stack else ""
            stack.append(len(opened))
            opened.append((match.start(), key or outer, parent))
            ends.append(len(text))
            key = ""
        elif token in "}]":
            if not stack:
                return []  # not JSON after all: say nothing rather than guess
            ends[stack.pop()] = match.end()
            key = ""
    if stack:
        return []
    return [_Container(start, end, name, parent) for (start, name, parent), end in zip(opened, ends, strict=True)]
