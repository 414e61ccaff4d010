"""Which files hold code in a programming language, by their suffix.

Dead code lives in code, not in docs or data; and in code an unquoted word after ``=`` is a
variable, where in a config file or a note it is the value itself.
"""

from __future__ import annotations

import re
from functools import lru_cache

CODE_SUFFIXES = frozenset(
    """
    py pyi pyw js mjs cjs jsx ts tsx go java kt kts scala c h cc cpp cxx hpp hh cs rb rs php swift
    m mm lua pl pm r jl dart ex exs erl hs ml fs clj groovy sh bash zsh ps1 psm1 sql vue svelte
    """.split()
)
# Languages where an unquoted word after `=` is a variable (a shell's `PW=word` is the word).
_REFERENCE_SUFFIXES = CODE_SUFFIXES - {"sh", "bash", "zsh"}


def suffix_of(path: str) -> str:
    """The lower-case suffix of a path's file name, or ``""``.

    Example:
        >>> suffix_of("src/App.PY"), suffix_of("Makefile"), suffix_of(".env")
        ('py', '', 'env')
    """
    name = path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[-1].lower() if "." in name else ""


def stem_of(path: str) -> str:
    """A path's file name without its last suffix; a leading dot is no suffix.

    Example:
        >>> stem_of("docs/.github_token.txt"), stem_of("deploy/.github_token"), stem_of("Makefile")
        ('.github_token', '.github_token', 'Makefile')
    """
    name = path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0] if name.count(".") > (1 if name.startswith(".") else 0) else name


def is_code_path(path: str) -> bool:
    """True for a file in a programming language (``app.py``, ``main.go``, ``run.sh``)."""
    return suffix_of(path) in CODE_SUFFIXES


def names_variables_unquoted(path: str) -> bool:
    """True where an unquoted word after ``=`` is a variable: code, but not shell scripts.

    Example:
        >>> names_variables_unquoted("app/settings.py"), names_variables_unquoted("deploy.sh"), names_variables_unquoted("notes.txt")
        (True, False, False)
    """
    return suffix_of(path) in _REFERENCE_SUFFIXES


# A name assigned at the start of a line, after a declaring word or a shell's `$`, maybe typed:
# `srx2_pass = getpass()`, `export TOKEN=...`, `local x: int = 3`, `name := value`.
_BINDING = re.compile(
    r"^[ \t]*(?:(?:export|let|const|var|my|local)[ \t]+)?\$?(?P<name>[A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?(?::=|=(?!=))",
    re.MULTILINE,
)


def binds_name(text: str, name: str) -> bool:
    """True when ``text`` assigns to ``name`` at the start of a line (``srx2_pass = getpass(...)``):
    an unquoted ``name`` elsewhere in it is that variable, in code or in a document's code sample.

    Example:
        >>> binds_name("srx2_pass = getpass()\\nconn.password = srx2_pass\\n", "srx2_pass")
        True
        >>> binds_name("password = srx2_pass\\n", "srx2_pass")
        False
    """
    return name in _bound_names(text)


# Asked once per unquoted value of a document: its names are read once (a config of thousands of
# assignments would otherwise be searched once per value).
@lru_cache(maxsize=32)
def _bound_names(text: str) -> frozenset[str]:
    return frozenset(match.group("name") for match in _BINDING.finditer(text))
