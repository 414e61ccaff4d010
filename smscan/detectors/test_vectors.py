"""Fields of a cryptographic test vector: a key there is published input, not a credential.

Crypto libraries test against the vectors of standards and papers (NIST's CAVP files, RFC
appendices, libsodium's and Wycheproof's tables), written as records of named fields::

    KEY: 4290bcb154173531f314af57f3be3b5006da371ece272afa1b5dbdd1100a1007
    NONCE: cd7cf67be39c794a
    IN: 86d09974840bded2a5ca
    CT: e3e446f7ede9a19b62a4

or as JSON objects (``{"passwd": "...", "salt": "...", "outlen": 32, "opslimit": 3, "dgst": ...}``).
The key or password field of such a record is a secret name over a value the whole world has:
in a test file (:func:`~smscan.detectors.test_context.is_test_path`), a value with at least two
other fields of a vector's vocabulary within a few lines of it is test input.
"""

from __future__ import annotations

import re

from smscan.detectors.text_lines import lines_around

# Field names of test vectors other than the key: inputs, outputs and parameters.
_VECTOR_FIELDS = frozenset(
    """
    nonce iv in out pt ct plaintext ciphertext ad aad tag msg message md digest dgst count seed salt
    ikm okm prk info result expected mac outlen keylen opslimit memlimit passes iterations rounds
    lanes threads personal personalization iters maxmem pwhash dgst_len hash_len
    """.split()
)
# `NAME: value`, `NAME = value`, `"name": value,` alone on a line.
_FIELD = re.compile(r"""^[ \t]*["']?(?P<name>[A-Za-z][\w]{0,24})["']?[ \t]*[:=](?:[ \t]|$)""", re.MULTILINE)
_REACH_LINES = 5


def in_test_vector(text: str, position: int) -> bool:
    """Whether the field at ``position`` has two or more vector fields within a few lines.

    Example:
        >>> text = "KEY: 4290bcb154173531f314af57f3be3b50\\nNONCE: cd7cf67be39c794a\\nCT: e3e446f7ede9a19b\\n"
        >>> in_test_vector(text, 5)
        True
        >>> in_test_vector("password: Zq8xP1sV9kL2\\nhost: db.internal\\n", 10)
        False
    """
    start, end = lines_around(text, position, position, _REACH_LINES)
    own_line = text.rfind("\n", 0, position) + 1
    names = {match.group("name").lower() for match in _FIELD.finditer(text, start, end) if match.start() != own_line}
    return len(names & _VECTOR_FIELDS) >= 2
