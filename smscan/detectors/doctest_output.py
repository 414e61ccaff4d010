"""A doctest's output is named by the expression that printed it.

Docs and docstrings show a session: ``>>> r.head()`` and, on the next line, what it returned
(``'57fbe010...'``, a commit id). The value has no name of its own on its line, so it would be
judged as a bare string; the prompt above names it: the expression's last name (``head``), or the
function it calls, when that name says id or secret. A key printed this way (``>>> client.api_key``
then ``'sk-...'``) is named ``api_key`` and judged as one. What a call with a neutral name printed
(``>>> tokenize([1, 2])``, ``>>> settings.key()``) was computed, not written: no candidate.
"""

from __future__ import annotations

import dataclasses
import re

from smscan.detectors.secret_names import name_class
from smscan.detectors.slot_kinds import Slot

_PROMPT = re.compile(r"[ \t]*>>>[ \t]+(?P<expression>.*?)[ \t]*\r?")
# The expression ends in a name, an attribute or a call of one: `r.head()`, `c.message`, `token`.
_LAST_NAME = re.compile(r"(?P<name>[A-Za-z_]\w*)(?:\([^()]*\))?")
_CONTINUATION = re.compile(r"[ \t]*(?:>>>|\.\.\.)(?:[ \t]|$)")


def name_doctest_outputs(text: str, slots: list[Slot]) -> list[Slot]:
    """``slots`` with each unnamed value on a doctest's output line named by the prompt above it,
    and the outputs of calls with neutral names left out.

    Example:
        >>> text = ">>> r.head()\\n'57fbe010446356833a6ad1600059d80b1e731e15'\\n"
        >>> [s.key for s in name_doctest_outputs(text, [Slot(14, 54, "", "string")])]
        ['head']
    """
    if ">>>" not in text:
        return slots  # no prompt, no output: the common case, decided once a document
    out = []
    for slot in slots:
        if not slot.key:
            name = prompt_name(text, slot.start)
            # A name that says something names the output: `head` (an id) or `api_key` (a secret).
            # A call with a neutral name computed what it printed (`tokenize([1, 2])` and its
            # digest): no one wrote that value down, so it is no candidate.
            if name and name_class(name) != "neutral":
                slot = dataclasses.replace(slot, key=name)
            elif name and prompt_expression(text, slot.start).endswith(")"):
                continue
        out.append(slot)
    return out


def prompt_name(text: str, position: int) -> str:
    """The name of the expression whose output the line at ``position`` is ("" when it is none)."""
    expression = prompt_expression(text, position)
    last = None
    for last in _LAST_NAME.finditer(expression):
        pass
    return last.group("name") if last is not None and last.end() == len(expression) else ""


def prompt_expression(text: str, position: int) -> str:
    """The expression on the prompt just above the line at ``position`` ("" when that line is no output)."""
    line_start = text.rfind("\n", 0, position) + 1
    if line_start == 0 or _CONTINUATION.match(text, line_start):
        return ""
    previous_start = text.rfind("\n", 0, line_start - 1) + 1
    prompt = _PROMPT.fullmatch(text, previous_start, line_start - 1)
    return prompt.group("expression") if prompt is not None else ""
