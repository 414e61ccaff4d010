"""Curve definitions: the published domain parameters of an elliptic curve, written out in code.

A cryptography library defines each curve it offers by its parameters (SEC 1's prime ``p``,
coefficients ``a`` and ``b``, base point ``Gx``/``Gy``, order ``n`` and cofactor ``h``; an
endomorphism's ``beta``, ``lambda`` and basis), all public: every implementation of the curve
writes the same numbers (elliptic's ``defineCurve('secp256k1', {...})``, noble's
``p: BigInt('0x...')``). A hex number among them is no key. The private scalar keeps its own
name (``d``, ``priv``) and is judged as any value. The few constants smscan knows by value
(secp256k1's and P-256's) are documented examples (:mod:`.placeholders`).
"""

from __future__ import annotations

import re

from smscan.detectors.text_lines import line_start_near, lines_around

# A parameter's name at the start of a line (a comment's `*` allowed), maybe quoted, then `:` or `=`.
_PARAMETER_FIELD = r"""[ \t*/#]*["']?(?P<name>p|a|b|n|h|Gx|Gy|gx|gy|beta|lambda|prime|order|cofactor)["']?[ \t]*[:=]"""
_PARAMETER = re.compile("(?m)^" + _PARAMETER_FIELD)
# A parameter whose value a call wraps on the next line (`n: BigInt(`).
_WRAPPED_PARAMETER = re.compile(_PARAMETER_FIELD + r"[ \t]*[\w.]+\([ \t]*\r?\n")
# A number in hex, as libraries write them: maybe signed, `0x`-prefixed, a BigInt literal's `n`.
_HEX_NUMBER = re.compile(r"-?(?:0x)?[0-9a-fA-F]+n?")
_REACH_LINES = 16
# Characters read around the value at most (one long line is read no further).
_REACH_CHARS = 1_500
# A value shorter than this is too short to be judged as a key anyway.
_MIN_DIGITS = 16
# A definition names the prime and the order, and two more parameters at least.
_MIN_PARAMETERS = 4
# Names a private scalar takes in test vectors beside a curve's definition.
_PRIVATE_NAMES = frozenset({"d", "k", "priv", "private", "secret", "sk"})


def in_curve_definition(text: str, start: int, end: int, key: str | None) -> bool:
    """True when ``text[start:end]`` is a hex number among a curve's parameters: the lines around
    it name the prime ``p``, the order ``n`` and at least two more parameters.

    Example:
        >>> text = "defineCurve('k', {\\n  p: 'fffffc2f',\\n  a: '0',\\n  b: '7',\\n  n: 'd0364141',\\n  beta: '7ae96a2b657c0710',\\n"
        >>> start = text.index("7ae9"); in_curve_definition(text, start, start + 16, "beta")
        True
        >>> in_curve_definition(text, start, start + 16, "d"), in_curve_definition("beta: '7ae96a2b657c0710'", 7, 23, "beta")
        (False, False)
    """
    if end - start < _MIN_DIGITS or key is not None and key.lower() in _PRIVATE_NAMES or not _HEX_NUMBER.fullmatch(text, start, end):
        return False
    # The value's own field: a parameter's name on its line, or on the line above a value wrapped
    # in a call (`n: BigInt(` then `'0x...'`); any other name (`private_key = 0x...`) is judged.
    line_start = line_start_near(text, start, max(start - _REACH_CHARS, 0))
    if line_start is None:
        return False
    above = line_start_near(text, max(line_start - 1, 0), max(line_start - 1 - _REACH_CHARS, 0)) if line_start else None
    if not (
        _PARAMETER.match(text, line_start, end)
        or above is not None and text[line_start:start].strip() in ("", "'", '"')
        and _WRAPPED_PARAMETER.match(text, above, line_start)
    ):
        return False
    window_start, window_end = lines_around(text, start, end, _REACH_LINES, _REACH_CHARS)
    names = {match["name"].lower() for match in _PARAMETER.finditer(text, window_start, window_end)}
    return {"p", "n"} <= names and len(names) >= _MIN_PARAMETERS
