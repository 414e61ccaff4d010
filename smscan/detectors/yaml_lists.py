"""Items of a YAML block list named by the key the list is bound to: ``api_tokens:`` then ``- ...``.

A YAML list of secrets writes its name once, on the key line above the items::

    api_tokens:
      - "Zq8xP1sV9kL2"
      - Hb7Vq2Mx9LpR4

Each item is a value of that name, as a JSON array's strings are of theirs
(:mod:`smscan.detectors.enclosing_names`). Only a key that says secret names its items here: an
unquoted item is a slot of its own then (a plain scalar, one token with no ``:``), and a quoted
item with no name of its own takes the key's name. Items of other lists (``hosts:``,
``scopes:``) are left as the other finders read them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from smscan.detectors.secret_names import name_class
from smscan.detectors.slot_kinds import ASSIGNMENT, STRING, TOKEN, Slot

# A key line that opens a block: `api_tokens:` with nothing after it but a comment.
# A key may open with digits (`02_db_passwords:`, numbered sections).
_KEY_LINE = re.compile(r"""^(?P<indent>[ \t]*)(?:-[ \t]+)?["']?(?P<key>\w[\w.\-]*)["']?[ \t]*:[ \t]*(?:#.*)?$""")
# Any line that is a block list's item: a document without one has no list to name.
_ANY_ITEM = re.compile(r"^[ \t]*-[ \t]+\S", re.MULTILINE)
# An item: `- value`, `- "value"`; an unquoted one is one plain token (no `: `, `#`, braces).
_ITEM = re.compile(r"""^(?P<indent>[ \t]*)-[ \t]+(?:(?P<quote>["'])(?P<quoted>[^"'\n]*)(?P=quote)|(?P<plain>[^\s"'#{}\[\]&*!|>%@`,][^\s#,]*))[ \t]*(?:#.*)?$""")


def yaml_list_slots(text: str, slots: list[Slot]) -> list[Slot]:
    """``slots`` with the items of each secret-named block list named by it (see the module docstring).

    Example:
        >>> text = "api_tokens:\\n  - Hb7Vq2Mx9LpR4\\n"
        >>> [(text[s.start:s.end], s.key) for s in yaml_list_slots(text, [])]
        [('Hb7Vq2Mx9LpR4', 'api_tokens')]
    """
    named = dict(_secret_list_items(text))
    if not named:
        return slots
    out = []
    for slot in slots:
        key = named.pop((slot.start, slot.end), None)
        if key is not None and not slot.key and slot.where in (STRING, TOKEN):
            slot = Slot(slot.start, slot.end, key, _where(text, slot.start), inherited=True)
        out.append(slot)
    # Unquoted items no other finder read.
    taken = {(s.start, s.end) for s in out}
    out.extend(Slot(start, end, key, _where(text, start), inherited=True)
               for (start, end), key in named.items() if (start, end) not in taken)
    return out


def _where(text: str, start: int) -> str:
    return STRING if text[start - 1] in "\"'" else ASSIGNMENT


def _secret_list_items(text: str) -> Iterator[tuple[tuple[int, int], str]]:
    """((start, end) of each item's value, the key) for the items of lists bound to a secret name."""
    if not _ANY_ITEM.search(text):
        return
    key = ""
    key_indent = -1
    says_secret: bool | None = None  # what the key says, read when an item first follows it
    offset = 0
    for line in text.split("\n"):
        item = _ITEM.match(line)
        if item and key and len(item.group("indent")) >= key_indent:
            if says_secret is None:
                says_secret = name_class(key) == "secret"
            group = "quoted" if item.group("quote") else "plain"
            if says_secret and item.group(group):
                yield (offset + item.start(group), offset + item.end(group)), key
        elif line.strip() and not line.lstrip().startswith("#"):
            opened = _KEY_LINE.match(line)
            key, key_indent, says_secret = (opened.group("key"), len(opened.group("indent")), None) if opened else ("", -1, False)
        offset += len(line) + 1
