"""What a slot is: the span of one value, the name it is bound to, and the kind of place it sits in.

Kinds of place, strongest first (the order resolves overlaps in :mod:`smscan.detectors.slots`):

``pem``            a private-key block, ``-----BEGIN ... PRIVATE KEY-----`` to its END line, or the
                   private lines of a PuTTY ``.ppk`` key
``public-block``   a certificate or public-key block, or a block of encoded data (three or more
                   lines of base64 of one width, as YAML ``!!binary`` or an embedded image):
                   kept only so that no line of it is taken for a token
``url-userinfo``   the password in ``scheme://user:password@host`` (or Oracle's ``user/password@db``)
``file-format``    a value whose place a credential file's own format names: a ``.pgpass`` password,
                   an ``.htpasswd`` hash, FileZilla's ``<Pass>``, a Jenkins ``{AQAAABAAAA...}``
                   secret, an ``.npmrc`` ``_password``, a whole key file
                   (:mod:`smscan.detectors.credential_files`)
``header``         the token after an ``Authorization`` scheme word (``Bearer``, ``Basic``, ...)
``vendor``         a token in a format a vendor publishes (``xoxb-...``, ``glrt-...``, a JWT, an AWS
                   key id), wherever it sits (:mod:`smscan.detectors.vendor_prefixes`); it takes
                   the name of a slot with the same span
``query``          the value of a secret-named URL query parameter (``?token=``, ``X-Amz-Credential=``)
``argument``       the value of a command-line option (``--token X``, ``-u user:password``)
``string``         a quoted string literal, or a part of one (``"k1=v1;k2=v2"``, ``"NAME=value"``)
``assignment``     an unquoted config/env value (``key = value``, ``key: value``, ``KEY=value``,
                   ``<key>value</key>``, Dockerfile ``ENV NAME value``)
``label``          a value after a secret-saying label in prose or a table (``PW:...``, ``API Secret:
                   ...``, ``the password is ...``, a ``Password`` column), or a password glued to
                   ``-p`` on a database client's command line
``token``          a long run of token characters anywhere else (comments, prose)
"""

from __future__ import annotations

from dataclasses import dataclass

PEM = "pem"
PUBLIC_BLOCK = "public-block"
URL_USERINFO = "url-userinfo"
FILE_FORMAT = "file-format"
HEADER = "header"
VENDOR = "vendor"
QUERY = "query"
ARGUMENT = "argument"
STRING = "string"
LABEL = "label"
ASSIGNMENT = "assignment"
TOKEN = "token"
# Rank of each kind: a lower rank wins an overlap.
PRIORITY = {kind: rank for rank, kind in enumerate(
    (PEM, PUBLIC_BLOCK, URL_USERINFO, FILE_FORMAT, HEADER, VENDOR, QUERY, ARGUMENT, STRING, ASSIGNMENT, LABEL, TOKEN)
)}


@dataclass(frozen=True, slots=True)
class Slot:
    """One value: ``text[start:end]``, the name it is bound to (``""`` if none), its place.

    ``inherited`` is set when the name is not written beside the value but taken from an
    enclosing object (:mod:`smscan.detectors.enclosing_names`): ``credentials.prod``.
    """

    start: int
    end: int
    key: str
    where: str
    inherited: bool = False
