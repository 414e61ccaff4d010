"""Word-joined passphrases: ``violet-purple-violet83``, ``jasmine_raven_192``, ``eagle#river#177``.

People and password generators (diceware, "three random words") join dictionary words with one
separator and end with a few digits. The model finds such a value plain (about 1.5-2.1 nats a
character, below a random key's 3-4), so under a secret name it needs the evidence of its shape,
as a vendor's published format does. Only the shape is read here; the caller asks for a secret name.
"""

from __future__ import annotations

import re

from smscan.detectors.secret_names import name_class

# Words of letters joined by one separator (the same one throughout), ending in 1-4 digits that
# are glued to the last word or follow the separator.
_PASSPHRASE = re.compile(r"(?P<first>[A-Za-z]{3,})(?P<sep>[-_.#+!@$%&*~])(?:[A-Za-z]{3,}(?P=sep))*[A-Za-z]{3,}(?P=sep)?\d{1,4}")


def is_passphrase(value: str) -> bool:
    """True for two or more words joined by one separator and ending in digits.

    Words of 4 letters or more must be at least two of them (``api_key_1`` is a name with a
    number), and a value that reads as a secret's name (``db_password_2``) is a reference to one.

    Example:
        >>> [is_passphrase(v) for v in ("violet-purple-violet83", "jasmine_raven_192", "eagle#river#177")]
        [True, True, True]
        >>> [is_passphrase(v) for v in ("db_password_2", "api_key_1", "my-app-2", "Xk9-qP2", "v1.2.3")]
        [False, False, False, False, False]
    """
    if not value.isascii() or _PASSPHRASE.fullmatch(value) is None:
        return False
    words = re.findall(r"[A-Za-z]+", value)
    if sum(len(word) >= 4 for word in words) < 2:
        return False
    return name_class(value) == "neutral"
