"""Secret-named parameters of URLs and query strings: ``?token=``, ``&api_key=``, ``X-Amz-Credential=``.

A URL is an identifier as a whole (never a credential), but its query can carry one. Only
parameters whose name says secret make a slot; an AWS credential scope
(``AKIA.../20240101/us-east-1/s3/aws4_request``) ends at its first ``/`` (or ``%2F``): the key id
is the secret, the date and region are not.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from smscan.detectors.secret_names import is_secret_name

_PARAMETER = re.compile(r"[?&](?P<name>[A-Za-z][\w.\-\[\]]*)=(?P<value>[^&\s'\"#<>`;)]+)")
_SCOPE_SEPARATOR = re.compile(r"/|%2F", re.IGNORECASE)
# A parameter named `key` alone is an API key by convention (`?key=` of Google's and many REST
# APIs), though a bare `key` names no secret elsewhere (dict and sort keys).
_KEY_PARAMETERS = {"key": "api_key"}
# An image's address (`.../graph/badge.svg?token=...`): a service's badge token is the read-only
# token it hands out to be published in a README, not a secret.
_IMAGE_PATH = re.compile(r"(?:\.(?:svg|png|gif)|/badge)$", re.IGNORECASE)


def query_values(line: str) -> Iterator[tuple[int, int, str]]:
    """``(start, end, name)`` of each secret-named query parameter's value in ``line``.

    Example:
        >>> line = "GET /x?X-Amz-Credential=AKIAQZLR%2F20240101%2Fus-east-1&X-Amz-Date=20240101"
        >>> [(line[a:b], name) for a, b, name in query_values(line)]
        [('AKIAQZLR', 'X-Amz-Credential')]
    """
    for match in _PARAMETER.finditer(line):
        name = _KEY_PARAMETERS.get(match.group("name").lower(), match.group("name"))
        if not is_secret_name(name) or _of_an_image(line, match.start()):
            continue
        start, end = match.start("value"), match.end("value")
        scope = _SCOPE_SEPARATOR.search(line, start, end)
        if scope:
            end = scope.start()
        if end > start:
            yield start, end, name


def _of_an_image(line: str, parameter_start: int) -> bool:
    """True when the query a parameter starts at belongs to an image's address."""
    query = line.rfind("?", 0, parameter_start + 1)
    return query > 0 and _IMAGE_PATH.search(line, max(query - 64, 0), query) is not None
