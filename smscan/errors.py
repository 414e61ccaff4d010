"""Errors a user can fix, and the few a caller must tell apart.

    SmscanError            anything the user can fix: the CLI prints one line, exits 2
     +-- ConfigError       a bad config file, key or value
     +-- SourceError       a path, repository or revision that cannot be read
     +-- ModelError        a model that cannot be found, fetched, converted or loaded
     +-- ThresholdsError   a thresholds file that is missing, malformed or for another model

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
