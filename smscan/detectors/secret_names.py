"""What a name says about the value bound to it: secret, identifier, or nothing.

One vocabulary for every syntax: a variable (``stripeSecretKey``), a config key (``db.password``),
a command-line flag (``--super-secret_token``), a prose label (``API Secret``, ``Activation key``),
an SQL keyword (``IDENTIFIED BY`` is bound to ``password`` by :mod:`smscan.detectors.bindings`).
"""

from __future__ import annotations

import re

# Words of a name that say its value is a secret. "key" needs company (api_key, secret_key,
# private_key, licence key), because alone it names dict keys, sort keys and primary keys.
SECRET_WORDS = frozenset(
    """
    password passwd passwords pwd passphrase pass pw psw pswd passcode passkey passwort secret
    secrets token tokens apikey credential credentials creds cred auth authorization bearer privkey
    userpwd userpass
    """.split()
)
KEY_COMPANY = frozenset(
    """
    api access secret private auth client signing encryption master license licence app service
    account ssh tls ssl gpg pgp deploy webhook session consumer shared hmac jwt activation product
    serial registration storage subscription instrumentation personal
    """.split()
)
# Words of a name that say its value identifies something (random-looking but public).
IDENTIFIER_WORDS = frozenset(
    """
    id ids uuid guid sha sha1 sha256 sha512 md5 hash hashes digest checksum integrity commit
    rev revision etag version ver release build tag ref head oid nonce fingerprint trace correlation
    request session_id cache color colour name path file dir url uri host endpoint homepage
    """.split()
)
# Words that say a password itself (not a key or token, whose values are often files: `ssl_key:
# server.key`), and words that say the value is where one is kept (`password_file`).
PASSWORD_WORDS = frozenset(
    ["password", "passwd", "passwords", "pwd", "passphrase", "pass", "pw", "psw", "pswd", "passcode", "passwort",
     "userpwd", "userpass"]
)
_WHERE_WORDS = frozenset(["file", "files", "filename", "path", "dir", "folder", "location", "store"])
_NAME_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")


def name_words(name: str) -> list[str]:
    """The lower-case words of a name in any case style (``--super-secret_token`` -> super, secret, token)."""
    return [word.lower() for word in _NAME_WORDS.findall(name)]


def name_class(name: str) -> str:
    """``"secret"``, ``"identifier"`` or ``"neutral"``: what a name says about its value.

    Example:
        >>> name_class("stripeSecretKey"), name_class("gitSha"), name_class("timeout")
        ('secret', 'identifier', 'neutral')
    """
    words = name_words(name)
    joined = "".join(words)
    # Glued words end in their secret one: `CURLOPT_PROXYUSERPWD`, `clientsecret`, `adminpwd`.
    glued = any(word.endswith(("pwd", "secret")) for word in words)
    if any(word in SECRET_WORDS for word in words) or glued or "apikey" in joined or "passw" in joined:
        return "secret"
    if "key" in words and any(word in KEY_COMPANY for word in words):
        return "secret"
    if words and words[-1] == "key" and len(words) == 1:
        return "neutral"
    if any(word in IDENTIFIER_WORDS for word in words):
        return "identifier"
    return "neutral"


def is_secret_name(name: str) -> bool:
    """True when a name says its value is a secret (:func:`name_class` is ``"secret"``)."""
    return name_class(name) == "secret"


def is_password_name(name: str) -> bool:
    """True when a name says its value is a password itself, not where one is kept.

    Example:
        >>> is_password_name("DB_PASSWORD"), is_password_name("PW"), is_password_name("password_file")
        (True, True, False)
    """
    words = name_words(name)
    joined = "".join(words)
    says = any(word in PASSWORD_WORDS for word in words) or "passw" in joined
    return says and not any(word in _WHERE_WORDS for word in words)
