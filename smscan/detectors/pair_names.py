"""A value named by its record's other field: ``name: DB_PASSWORD`` beside ``value: ...``.

Many formats store a setting as a record of two fields, the name in one and the value in the
other: Kubernetes and ECS environment variables (``- name: DB_PASSWORD`` / ``value: ...``,
``{"name": "DB_PASSWORD", "value": "..."}``), key/value entries of config stores
(``<key>business.password</key><value>...</value>``). The value's own key (``value``) says
nothing; the record's name field says what it is. Such a value is named ``<name>.value``, judged
as any value under that name (``DB_PASSWORD.value`` says secret, ``LOG_LEVEL.value`` does not).

The two fields must be of one record: next to each other (the name just before or after the
value, up to ``_REACH`` lines apart), with nothing between them that opens or closes another
record: only spaces, line breaks, a comma or quotes (no brace, other element, key or `- `).
"""

from __future__ import annotations

import re

from smscan.detectors.secret_names import name_words
from smscan.detectors.slot_kinds import Slot
from smscan.detectors.text_lines import lines_around

# Own keys of the value field and of the name field.
_VALUE_KEYS = frozenset(["value", "val"])
# The name field, in YAML/JSON (`name: X`, `"key": "X"`, CloudFormation's and ECS's `Key: X`,
# `Name: X`) and in XML (`<name>X</name>`).
_NAME_FIELD = re.compile(
    r"""(?P<lead>^[ \t]*(?:-[ \t]+)?|[{,][ \t]*)["']?(?:[Nn]ame|[Kk]ey)["']?[ \t]*[:=][ \t]*["']?(?P<name>[A-Za-z_][\w.\-]*)["']?[ \t]*(?:,|$|(?=}))"""
    r"""|<(?P<tag>name|key)>[ \t]*(?P<xml_name>[A-Za-z_][\w.\-]*)[ \t]*</(?P=tag)>""",
    re.MULTILINE,
)
# What may lie between the two fields of one record: spaces, line breaks, a comma, quotes.
_BETWEEN = re.compile(r"""[\s,"']*""")
# The opening of the value's field just before the value (`value: `, `"value": "`, `<value>`),
# and its closing just after it (a quote, `</value>`).
_VALUE_FIELD_OPENS = re.compile(r"""(?:<value>|<val>|["']?\b[Vv]al(?:ue)?["']?[ \t]*[:=])[ \t"']*$""")
_VALUE_FIELD_CLOSES = re.compile(r"""["']?[ \t]*(?:</val(?:ue)?>)?""")
_REACH = 2


def name_pair_values(text: str, slots: list[Slot]) -> list[Slot]:
    """``slots`` with each ``value`` field named by the name field of its record.

    Example:
        >>> text = "env:\\n  - name: DB_PASSWORD\\n    value: Zq8xP1sV9kL2\\n"
        >>> [s.key for s in name_pair_values(text, [Slot(37, 49, "value", "assignment")])]
        ['DB_PASSWORD.value']
    """
    out = []
    for slot in slots:
        words = name_words(slot.key)
        if len(words) == 1 and words[0] in _VALUE_KEYS:
            name = record_name(text, slot)
            if name:
                slot = Slot(slot.start, slot.end, f"{name}.value", slot.where)
        out.append(slot)
    return out


def record_name(text: str, slot: Slot) -> str:
    """The name field of the record ``slot``'s value field belongs to ("" when there is none)."""
    field_start = _field_start(text, text.rfind("\n", 0, slot.start) + 1, slot.start)
    window_start, window_end = lines_around(text, slot.start, slot.end, _REACH)
    for match in _NAME_FIELD.finditer(text, window_start, window_end):
        name = match.group("name") or match.group("xml_name")
        before = match.end() <= field_start
        gap = text[match.end():field_start] if before else text[_value_field_end(text, slot):match.start()]
        if _BETWEEN.fullmatch(gap):
            return name
    return ""


def _field_start(text: str, line_start: int, value_start: int) -> int:
    """Where the value's field opens on its line: its key, its quote or its element."""
    found = _VALUE_FIELD_OPENS.search(text[line_start:value_start])
    return line_start + found.start() if found else value_start


def _value_field_end(text: str, slot: Slot) -> int:
    closing = _VALUE_FIELD_CLOSES.match(text, slot.end)
    return closing.end() if closing else slot.end
