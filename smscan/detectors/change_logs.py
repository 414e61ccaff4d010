"""Change logs: the files a project records its changes in (``ChangeLog``, ``debian/changelog``,
``NEWS``, ``CHANGES.rst``, ``HISTORY.md``, ``release-notes.txt``).

A change log cites what changed by its name: a mail's message id (``REFMAIL: CAF_Ksw...@mail.
gmail.com``), a certificate authority (``- "A-Trust-nQual-03"``), a file, a commit, a symbol. A
key that leaks into one is written as keys are written anywhere: under a secret's name or in a
vendor's format, which the judgement keeps; an unnamed value there is a name.
"""

from __future__ import annotations

import re

# The stem, then an optional year or part (`ChangeLog-2019`, `NEWS.1`, `ChangeLog.old`) and a
# prose extension; `news.py` or `history.js` are code, judged as code.
_CHANGE_LOG = re.compile(
    r"(?:change[-_]?log|changes|news|history|release[-_]?notes?|whats[-_]?new)"
    r"(?:[-_.]?\d[\w.\-]*|\.old)?(?:\.(?:md|rst|txt|adoc|markdown))?",
    re.IGNORECASE,
)


def is_change_log(path: str) -> bool:
    """Whether ``path`` names a change log.

    Example:
        >>> [is_change_log(p) for p in ("isync/ChangeLog", "debian/changelog", "docs/CHANGES.rst", "NEWS")]
        [True, True, True, True]
        >>> [is_change_log(p) for p in ("ChangeLog-2019", "HISTORY.md", "release-notes.txt")]
        [True, True, True]
        >>> [is_change_log(p) for p in ("app/news.py", "src/history.js", "changes/.env", "README.md")]
        [False, False, False, False]
    """
    return _CHANGE_LOG.fullmatch(path.replace("\\", "/").rsplit("/", 1)[-1]) is not None
