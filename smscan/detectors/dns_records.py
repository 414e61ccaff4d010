"""DNS records that publish keys: a zone's ``DNSKEY``, ``CDNSKEY``, ``RRSIG``, ``OPENPGPKEY`` and
``IPSECKEY`` records hold public keys and signatures in base64, published to every resolver by
design (RFC 4034, 7929, 4025). A zone file's secrets are elsewhere (a TSIG key's ``secret``).
"""

from __future__ import annotations

import re

_PUBLIC_KEY_RECORD = re.compile(r"\b(?:DNSKEY|CDNSKEY|RRSIG|OPENPGPKEY|IPSECKEY)\b")
# A record's data may run over lines inside parentheses; it is looked for this far back.
_RECORD_CHARS = 1200


def in_dns_key_record(text: str, start: int) -> bool:
    """Whether ``start`` lies in the data of a DNS record that publishes a key or a signature:
    after the record's type on its line, or inside the parentheses that continue it.

    Example:
        >>> line = "example.com. IN DNSKEY 257 3 8 ( AwEAAagAIKlVZrpC6Ia7gEzahOR+9W29euxhJhVVLOyQbSEW0O8gcCjF )"
        >>> in_dns_key_record(line, line.index("AwEAA"))
        True
        >>> text = "example.com. IN DNSKEY 257 3 8 ( AwEAAagAIKlVZrpC )\\nsecret = q8Zt3kPx0wLm9Rv2aY7n"
        >>> in_dns_key_record(text, text.index("q8Z"))
        False
    """
    window = text[max(start - _RECORD_CHARS, 0) : start]
    found = None
    for found in _PUBLIC_KEY_RECORD.finditer(window):
        pass
    if found is None:
        return False
    data = window[found.end() :]
    if "\n" not in data:
        return True
    opened = data.find("(")
    return opened >= 0 and ")" not in data[opened:] and "\n" not in data[:opened]
