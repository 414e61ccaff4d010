"""A JSON Web Key's public members are no credentials (RFC 7517, 7518).

A JWK names its type in ``kty`` (``RSA``, ``EC``, ``OKP``, ``oct``). Its public members — the RSA
modulus ``n`` and exponent ``e``, the curve point ``x``/``y``, the key id, algorithm, use and
certificate chain — are published in every JWKS endpoint; only ``d``, ``p``, ``q``, ``dp``,
``dq``, ``qi`` (private parts) and ``k`` (a symmetric key) are secret. A long base64url modulus
is as surprising as a key, so the slot finder drops the public members' values of every object
that declares a ``kty``; the private members stay slots.
"""

from __future__ import annotations

import re

# The private members (RSA's private exponent and primes, a symmetric key's `k`): raw key bytes in
# base64url under one- or two-letter names, however long never a payload.
PRIVATE_MEMBERS = frozenset({"d", "p", "q", "dp", "dq", "qi", "k"})
_KEY_TYPE = re.compile(r"""(["'])kty\1\s*:\s*(["'])(?:RSA|EC|OKP|oct)\2""")
_PUBLIC_MEMBER = re.compile(
    r"""(["'])(?:n|e|x|y|crv|kid|alg|use|x5t|x5t\#S256|x5u)\1\s*:\s*(["'])(?P<value>[^"'\s]+)\2"""
)
_CERTIFICATE_CHAIN = re.compile(r"""(["'])x5c\1\s*:\s*\[(?P<body>[^\]]*)\]""")
_CHAIN_ENTRY = re.compile(r"""(["'])(?P<value>[A-Za-z0-9+/=]+)\1""")
# How far from its `kty` an object's braces are looked for: a JWK is a few kB at most, and a
# bound keeps a file of many `kty`s linear.
_REACH = 16_384


def jwk_public_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each public member's value in the JSON Web Keys of ``text``, sorted.

    Example:
        >>> text = '{"kty": "RSA", "n": "0vx7agoebGcQSuuPiLJXZpt", "e": "AQAB", "d": "X4cTteJY_gn4F"}'
        >>> [text[a:b] for a, b in jwk_public_spans(text)]
        ['0vx7agoebGcQSuuPiLJXZpt', 'AQAB']
    """
    spans: list[tuple[int, int]] = []
    covered_until = -1
    for key_type in _KEY_TYPE.finditer(text):
        if key_type.start() < covered_until:
            continue
        found = _enclosing_object(text, key_type.start())
        if found is None:
            continue
        start, end = found
        covered_until = end
        spans.extend(m.span("value") for m in _PUBLIC_MEMBER.finditer(text, start, end))
        for chain in _CERTIFICATE_CHAIN.finditer(text, start, end):
            spans.extend(m.span("value") for m in _CHAIN_ENTRY.finditer(text, chain.start("body"), chain.end("body")))
    return sorted(spans)


def _enclosing_object(text: str, inside: int) -> tuple[int, int] | None:
    """``(start, end)`` of the innermost ``{...}`` around ``inside``, or None when the braces do
    not close within reach (base64url and key ids hold no braces, so counting them is enough)."""
    depth = 0
    start = -1
    for position in range(inside - 1, max(inside - _REACH, 0) - 1, -1):
        char = text[position]
        if char == "}":
            depth += 1
        elif char == "{":
            if depth == 0:
                start = position
                break
            depth -= 1
    if start < 0:
        return None
    depth = 0
    for position in range(inside, min(inside + _REACH, len(text))):
        char = text[position]
        if char == "{":
            depth += 1
        elif char == "}":
            if depth == 0:
                return start, position + 1
            depth -= 1
    return None
