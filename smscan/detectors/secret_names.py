"""What a name says about the value bound to it: secret, identifier, or nothing.

One vocabulary for every syntax: a variable (``stripeSecretKey``), a config key (``db.password``),
a command-line flag (``--super-secret_token``), a prose label (``API Secret``, ``Activation key``),
an SQL keyword (``IDENTIFIED BY`` is bound to ``password`` by :mod:`smscan.detectors.bindings`).
"""

from __future__ import annotations

import re

# Words that say a password itself (not a key or token, whose values are often files: `ssl_key:
# server.key`).
PASSWORD_WORDS = frozenset(
    "password passwd passwords pwd passphrase pass pw psw pswd passcode passwort userpwd userpass".split()
)
# Words of a name that say its value is a secret. "key" needs company (api_key, secret_key,
# private_key, licence key), because alone it names dict keys, sort keys and primary keys.
SECRET_WORDS = PASSWORD_WORDS | frozenset(
    """
    passkey secret secrets token tokens apikey credential credentials creds cred auth authorization
    bearer privkey
    """.split()
)
# Endings of run-together words that still say password or secret (`adminpwd`,
# `CURLOPT_PROXYUSERPWD`, `clientsecret`); `passw` says password anywhere (`adminpassword`).
_GLUED_PASSWORD = ("pwd",)
_GLUED_SECRET = (*_GLUED_PASSWORD, "secret")
KEY_COMPANY = frozenset(
    """
    api access secret private auth client signing encryption master license licence app service
    account ssh tls ssl gpg pgp deploy webhook session consumer shared hmac jwt activation product
    serial registration storage subscription instrumentation personal signature
    """.split()
)
# Words of a name that say its value identifies something (random-looking but public).
IDENTIFIER_WORDS = frozenset(
    """
    id ids uuid guid sha sha1 sha256 sha512 md5 hash hashes digest checksum integrity commit
    rev revision etag version ver release build tag ref head oid nonce fingerprint trace correlation
    request session_id cache color colour name path file dir url uri urn host endpoint homepage
    identifier identifiers doi signature signatures verification idempotency sid kid uid uids
    user users username usernames usr basename dirname filename filenames pathname revisionid boundary
    heading anchor
    """.split()
)
# Last words of a name that say its value names a kind of thing, not the thing: `auth_type:
# "API-Key"`, `grant_type`, `token_format`, `secret_name: db-creds`, `auth_header: "X-Api-Key"`.
# A protocol or mechanism names how to authenticate (`auth_protocol = "X11-COOKIE-1"`,
# `sasl_mechanism: PLAIN`), never with what. (A name ending in `name`, `type` or `kind` says
# identifier before these are read: :func:`name_class`.)
_KIND_WORDS = frozenset(
    """
    type types mode modes method methods scheme schemes kind kinds format formats algorithm algorithms name
    names header headers protocol protocols mechanism mechanisms mech mechs
    """.split()
)
# Last words of a name that say its value is the id of a key or a secret, which is public: a
# key's id (`private_key_id`, `api_key_id`, `gpg_key_primary_keyid`), a stored credential's
# (`credentialsId`) and a secret's accessor
# (`secret_id_accessor`). A secret named `..._id` without a key (Vault's `secret_id`) stays secret,
# and so does an access key's id (`aws_access_key_id`), half of the pair that signs requests.
_ID_WORDS = frozenset(["id", "ids"])
# What an id names that is kept elsewhere: a key, a stored credential (Jenkins' `credentialsId`),
# a store of secrets (.NET's `UserSecretsId`). An OAuth client's id is public too (`AUTH0_CLIENT_ID`);
# Vault's `secret_id` is the secret of its pair.
_STORED = frozenset(["key", "credential", "credentials", "secrets"])
# A digest of a key or secret ends its name too (`X-Goog-Encryption-Key-Sha256`, `secret_hash`).
_ID_OF_WORDS = frozenset(["keyid", "accessor", "sha1", "sha256", "sha512", "md5", "hash", "digest", "checksum", "fingerprint"])
# Ids glued to the thing they name, one word in a name of capitals or lower case.
_GLUED_ID_ENDINGS = ("zoneid", "accountid", "tenantid", "projectid", "subscriptionid", "orgid", "appid", "clientid", "userid")
# Those a camelCase name splits in two: `fingerPrint`, `checkSum`.
_SPLIT_ID_OF_WORDS = frozenset(["fingerprint", "checksum"])
# Words that say the value is where a password is kept (`password_file`).
_WHERE_WORDS = frozenset(["file", "files", "filename", "path", "dir", "folder", "location", "store"])
# Last words that say the value is an address, where a secret is sent (`auth_url`,
# `token_endpoint`): an identifier, as `profile_url` is (a password written inside a URL is the
# URL's own slot).
_ADDRESS_WORDS = frozenset("url urls uri uris endpoint endpoints host hostname".split())
# Last words of a name that say it names a thing that works with secrets, not one: a class or an
# object that handles them (`HTTPPasswordMgr`, `AbstractBasicAuthHandler`, `token_provider`,
# `oauth_credentials_strategy`), a rule about them (`password_policy`, `password_length`, a
# prompt's `pwd_pattern`, API Gateway's `ApiKeySelectionExpression`), or where one is kept
# (`ssh_public_key_file`); a form's words about one (`passwd_title: "Lösenord"`), or a failure
# about one (`NoAuthHandlerFound: ...` in a traceback, `token_expired`). The last word of a name
# is what it names.
_HOLDER_WORDS = _WHERE_WORDS | frozenset(
    """
    manager mgr handler handlers provider providers factory helper class policy length len size count prompt hint
    strategy strategies pattern patterns regex regexp expression expressions expr
    title label caption placeholder
    error errors exception found failed denied expired invalid missing
    """.split()
)
# First words that make a password name an action's: `change_password`, `reset_password`,
# `forgot_password` name a page, a URL or a rate limit of the action (`"change_password": "5/m/user"`);
# a password being set is `new_password`. A token of the action stays a token (`reset_password_token`).
_ACTION_WORDS = frozenset(["change", "reset", "forgot", "forgotten", "recover", "recovery"])
# A public key is public: `ssh_public_key`, `pub_key`, a publishable key.
_PUBLIC_WORDS = frozenset(["public", "pub", "publishable"])
# Words of a URL's host or path that say its path carries a secret: a webhook (`hooks.slack.com`,
# `/api/webhooks/`), a bot, a trigger, a token or key, an API that takes its key in the path
# (`eth-mainnet.alchemyapi.io/v2/<key>`, `/api/v1/<device token>/telemetry`), or a blockchain RPC
# provider's host, whose URLs end in the project's key (`mainnet.infura.io/v3/<key>`,
# `<name>.quiknode.pro/<token>/`). A path under none of them names a document, a video or a commit
# (`drive.google.com/file/d/<id>/view`): an id.
SECRET_PATH_WORD = re.compile(r"hook|token|key|secret|auth|bot|trigger|cred|pass|sig|private|access|api"
                              r"|infura\.io/(?:ws/)?v3/|quiknode\.pro|getblock\.io", re.IGNORECASE)
# A type ending in `id` written before an id and a colon, as APIs print ids (Dropbox's
# `dbid:AAH4f99T...`, `id:a4ayc_80_...`): the word says what follows.
ID_TYPE_PREFIX = r"[a-z]*id:"
_NAME_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")


def name_words(name: str) -> list[str]:
    """The lower-case words of a name in any case style (``--super-secret_token`` -> super, secret, token)."""
    return [word.lower() for word in _NAME_WORDS.findall(name)]


def name_class(name: str) -> str:
    """``"secret"``, ``"identifier"`` or ``"neutral"``: what a name says about its value.

    Example:
        >>> name_class("stripeSecretKey"), name_class("gitSha"), name_class("timeout"), name_class("auth_type")
        ('secret', 'identifier', 'neutral', 'identifier')
    """
    words = _glue_digests(name_words(name))
    if (len(words) > 1 and words[-1] in _ADDRESS_WORDS or _names_public_key(words) or _names_address_token(words)
            or _names_forgery_token(words)):
        return "identifier"
    # An id glued to what it names (`CLOUDFRONT_HOSTEDZONEID`, `tenantid`, `AzureClientId` reads apart).
    if words and words[-1].endswith(_GLUED_ID_ENDINGS):
        return "identifier"
    # A lookup by an id, a name or a key is handed it (`find_authorization_by_id("020f755c...")`,
    # gspread's `open_by_key`: a spreadsheet's key is its id).
    if len(words) > 2 and words[-2] == "by" and (words[-1] in IDENTIFIER_WORDS or words[-1] == "key"):
        return "identifier"
    # A UUID names an object, whatever it is of (`secret_uuid`, a key manager's reference); a
    # secret written as a UUID is named for what it is (`api_key`).
    if len(words) > 1 and words[-1] in ("uuid", "guid"):
        return "identifier"
    # A version names a release, whatever it is of (`auth_version == "3.x_password"`).
    if len(words) > 1 and words[-1] in ("version", "versions"):
        return "identifier"
    # A name names a thing (`container_name`, `key_vault_name`, `secret_name: db-creds`): the name,
    # not the thing; a type or kind names a kind of thing (`xsi_type = "dcterms:W3CDTF"`, `token_type`).
    if len(words) > 1 and words[-1] in ("name", "type", "types", "kind", "kinds"):
        return "identifier"
    if len(words) > 1 and (words[-1] in _KIND_WORDS or words[-1] in _HOLDER_WORDS):
        return "neutral"
    if len(words) > 1 and words[0] in _ACTION_WORDS and words[-1] in PASSWORD_WORDS:
        return "neutral"
    # The last word, a size glued back to it (`Sha256` reads as `sha`, `256`).
    last = "".join(words[-2:]) if len(words) > 2 and words[-1].isdigit() else words[-1] if words else ""
    if len(words) > 1 and (
        last in _ID_OF_WORDS
        or "".join(words[-2:]) in _SPLIT_ID_OF_WORDS
        or (last in _ID_WORDS and (not _STORED.isdisjoint(words[:-1]) or words[-2] == "client") and "access" not in words)
    ):
        return "identifier"
    if _says(words, SECRET_WORDS, _GLUED_SECRET) or "apikey" in "".join(words):
        return "secret"
    if "key" in words and any(word in KEY_COMPANY for word in words) and _PUBLIC_WORDS.isdisjoint(words):
        return "secret"
    if words and words[-1] == "key" and len(words) == 1:
        return "neutral"
    if any(word in IDENTIFIER_WORDS for word in words):
        return "identifier"
    return "neutral"


# Digest names a name splits before their digits (`IMAGE_MD5_KEY` reads `md`, `5`).
_DIGEST_NAMES = frozenset(["md5", "sha1", "sha224", "sha256", "sha384", "sha512", "crc32"])


def _glue_digests(words: list[str]) -> list[str]:
    """The words with a digest's name put back together before its last word (``md``, ``5`` -> ``md5``);
    a digest's size at the very end is glued where the last word is read."""
    glued: list[str] = []
    for index, word in enumerate(words):
        if glued and word.isdigit() and index < len(words) - 1 and glued[-1] + word in _DIGEST_NAMES:
            glued[-1] += word
        else:
            glued.append(word)
    return glued


def _names_public_key(words: list[str]) -> bool:
    """A public key or token is public (`DOTENV_PUBLIC_KEY`, `ssh_pubkey`, `vapid_public_key_b64`,
    Mapbox's `publicToken`)."""
    return any(word in ("pubkey", "pubkeys") or word in _PUBLIC_WORDS and after in ("key", "keys")
               # `pub` before `token` is Dart's publishing token (`PUB_TOKEN`), a credential
               or word in ("public", "publishable") and after in ("token", "tokens")
               for word, after in zip(words, [*words[1:], ""]))


# A form's token against cross-site request forgery is handed to every visitor of the page
# (`csrf-token`, Rails' `authenticity_token`, Django's `csrfmiddlewaretoken`): no credential.
_FORGERY_WORDS = frozenset(["csrf", "xsrf", "authenticity", "csrfmiddlewaretoken", "antiforgery"])


def _names_forgery_token(words: list[str]) -> bool:
    """A token against request forgery (`csrf_token`, `_csrf`, `authenticity_token`), handed to every visitor."""
    return bool(words) and (words[-1] == "csrfmiddlewaretoken" or words[-1] in ("token", "tokens", "csrf", "xsrf")
                            and not _FORGERY_WORDS.isdisjoint(words))


# Words before `token` that make it an address, not a key: a page token marks a place in a
# listing, handed out by the API to anyone paging it (`nextPageToken`, AWS's `NextToken`,
# `continuation_token`); a device's push token is where notifications are sent (APNs'
# `device_token`, `pushToken`), and sending needs the provider's own key.
_ADDRESS_TOKEN_WORDS = frozenset(["page", "next", "continuation", "pagination", "device", "push"])


def _names_address_token(words: list[str]) -> bool:
    """A token that says where (a page of a listing, a device to notify), not who may."""
    return len(words) > 1 and words[-1] in ("token", "tokens") and words[-2] in _ADDRESS_TOKEN_WORDS


# Names ending in `key` or `api` whose keys are public or are no secret at all: a publishable or
# site key, sort/primary/partition/cache keys, a key's file or path.
_NOT_SECRET_KEY_WORDS = frozenset(
    """
    public pub publishable site sort primary foreign partition cache idempotency lookup dedup routing shard
    row column index map object file path dir name id type
    """.split()
)
# Values shaped like a key drawn by a machine: a UUID, 32+ hex digits, or 20+ key characters
# holding letters and at least three digits (`6c8ba06c...`, `f59dffd2-83ea-...`, `b_ByDf0...`).
_KEY_SHAPED = re.compile(
    r"^(?:[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}|[0-9a-fA-F]{32,}"
    r"|(?=(?:[^0-9]*[0-9]){3})(?=.*[A-Za-z])[A-Za-z0-9_\-]{20,})$"
)


def value_name_class(name: str, value: str) -> str:
    """:func:`name_class` of ``name``, read with the value it holds: a name that ends in ``key``
    or ``api`` with no company that says secret (``ai21_key``, ``key``, ``deepgram-api``) says
    secret when its value is shaped like a machine-drawn key (a UUID, long hex, letters with
    digits), since a key name holding such a value is a vendor's key; it stays neutral for
    any other value (``key: title``) and for names of keys that are public or no secret
    (``site_key``, ``sort_key``, ``cache_key``).

    Example:
        >>> value_name_class("ai21_key", "befa7ec1-1129-4713-8e92-bb53d1a4f632"), value_name_class("key", "title")
        ('secret', 'neutral')
        >>> value_name_class("sort_key", "befa7ec1-1129-4713-8e92-bb53d1a4f632"), value_name_class("gitSha", "e3b0c442")
        ('neutral', 'identifier')
    """
    found = name_class(name)
    if found != "neutral":
        return found
    words = name_words(name)
    if (
        words
        and words[-1] in ("key", "keys", "api")
        and not any(word in _NOT_SECRET_KEY_WORDS for word in words)
        and _KEY_SHAPED.match(value)
    ):
        return "secret"
    return found


# Last parts of a dotted name that say nothing of their own: the name before them does
# (`token.value`, `jwt.secret.key`).
_GENERIC_PARTS = frozenset("key keys value values val data raw text str string content contents bytes hex b64 base64".split())


def attribute_name(name: str) -> str:
    """The part of a dotted name that names the value: its last attribute (``attested_cred_data.aaguid``
    is an authenticator's id kept in credential data, ``password.encoder`` an encoder), unless
    that part says nothing alone (``token.value``, ``jwt.secret.key``: the whole name).

    Example:
        >>> attribute_name("attested_cred_data.aaguid"), attribute_name("db.password"), attribute_name("token.value")
        ('aaguid', 'password', 'token.value')
    """
    head, dot, last = name.rpartition(".")
    words = name_words(last)
    if not dot or not head or not words or " " in name or all(word in _GENERIC_PARTS for word in words):
        return name
    return last


def is_secret_name(name: str) -> bool:
    """True when a name says its value is a secret (:func:`name_class` is ``"secret"``)."""
    return name_class(name) == "secret"


def mentions_secret(name: str) -> bool:
    """True when a word of a name is a secret's, whatever the name ends in (``HTTPPasswordMgr``,
    ``password_policy``, ``api_token``): the name is about secrets, if not always one.

    Example:
        >>> mentions_secret("HTTPPasswordMgr"), is_secret_name("HTTPPasswordMgr"), mentions_secret("timeout")
        (True, False, False)
    """
    return _says(name_words(name), SECRET_WORDS, _GLUED_SECRET)


def is_password_name(name: str) -> bool:
    """True when a name says its value is a password itself, not where one is kept.

    Example:
        >>> is_password_name("DB_PASSWORD"), is_password_name("PW"), is_password_name("password_file")
        (True, True, False)
        >>> is_password_name("adminpwd"), is_password_name("CURLOPT_PROXYUSERPWD"), is_password_name("clientsecret")
        (True, True, False)
    """
    words = name_words(name)
    return (
        _says(words, PASSWORD_WORDS, _GLUED_PASSWORD)
        and not any(word in _WHERE_WORDS for word in words)
        and not (len(words) > 1 and (words[-1] in _HOLDER_WORDS or words[-1] in _ADDRESS_WORDS))
    )


def _says(words: list[str], vocabulary: frozenset[str], glued: tuple[str, ...]) -> bool:
    """True when a word of a name is in ``vocabulary``, or run-together words end in one of
    ``glued`` (``adminpwd``), or ``passw`` appears anywhere (``adminpassword``)."""
    return any(word in vocabulary or word.endswith(glued) for word in words) or "passw" in "".join(words)
