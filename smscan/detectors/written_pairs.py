"""A user and a password written by people as one pair, where the password has no label of its own
beside it: ``ID/Password=name/value``, ``account:name/password:value``.

The password label is not at a word's start (``/password:``) or stands before both values, so
the label finder (:mod:`smscan.detectors.prose_labels`) either misses it or reads the user name
into the password; the span here is the password alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_USER_LABEL = r"(?:id|user(?:[ _\-]?name)?|login|account|acct)"
_PASSWORD_LABEL = r"(?:pass(?:word|wd)?|pwd|pw|psw)"
# `ID/Password=name/value`, `user/pass: name/value`: two labels, then the two values in order.
_LABELS_THEN_VALUES = re.compile(
    rf"(?i)(?<![\w/]){_USER_LABEL}[ \t]*/[ \t]*(?P<label>{_PASSWORD_LABEL})[ \t]*[:=][ \t]*"
    r"(?P<user>[^\s/,;]+)/(?P<password>[^\s,;'\"`]+)"
)
# `account:name/password:value`: a labelled user, a slash, a labelled password.
_PAIR_AFTER_SLASH = re.compile(
    rf"(?i)(?<![\w/]){_USER_LABEL}[ \t]*[:=][ \t]*[^\s/,;]+[ \t]*/[ \t]*(?P<label>{_PASSWORD_LABEL})[ \t]*[:=][ \t]*"
    r"(?P<password>[^\s,;'\"`]+)"
)


def paired_passwords(line: str) -> Iterator[tuple[int, int, str]]:
    """``(start, end, label)`` of each password written in a user/password pair in ``line``.

    Example:
        >>> line = "Monitoring ID/Password=zabbix/Gv4tKp9sLw7N"
        >>> [(line[a:b], label) for a, b, label in paired_passwords(line)]
        [('Gv4tKp9sLw7N', 'Password')]
    """
    for pattern in (_LABELS_THEN_VALUES, _PAIR_AFTER_SLASH):
        for match in pattern.finditer(line):
            start, end = match.start("password"), match.end("password")
            # Sentence punctuation after a value is not part of it.
            while end > start and line[end - 1] in ".)":
                end -= 1
            if end > start:
                yield start, end, match.group("label")
