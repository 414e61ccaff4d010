"""Errors a user can fix, and the few a caller must tell apart.

    SmscanError            anything the user can fix: the CLI prints one line, exits 2
     +-- ConfigError       a bad config file, key or value
     +-- SourceError       a path, repository or revision that cannot be read
     +-- ModelError        a model that cannot be found, fetched, converted or loaded
     +-- ThresholdsError   a thresholds file that is missing, malformed or for another model
     +-- InvalidValue      a value passed to the library out of its range; ``name`` is the
                           parameter, so a front end names its own spelling (the CLI: a flag)

Anything else that escapes is a bug: the CLI shows the traceback and exits 3.
Messages never contain scanned content.
"""

from __future__ import annotations


class SmscanError(Exception):
    """A problem the user can fix; the message says what, where and how."""


class ConfigError(SmscanError):
    """Invalid configuration (file, key or value)."""


class SourceError(SmscanError):
    """A scan target (path, repository, revision) that cannot be read."""


class ModelError(SmscanError):
    """A reference model that cannot be found, fetched, converted or loaded."""


class ThresholdsError(SmscanError):
    """A thresholds file that is missing, malformed or made for another model."""


class InvalidValue(SmscanError):
    """A value passed to the library is out of range.

    The message is in library terms (``workers must be at least 1, got 0``); ``name`` is the
    parameter, so the CLI can say which of its flags gave the value.
    """

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"{name} {problem}")
        self.name = name
        self.problem = problem
