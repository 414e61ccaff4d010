"""The credential decision without the model: which slots can hold a credential, and the evidence
their place adds to the value's surprise.

A slot is dropped when its value cannot be a credential whatever the model thinks (a reference,
placeholder or documented example; the shape of another identifier; too short or too plain for
its place). Otherwise its evidence, in nats, adds up: a name that says secret (or a
secret-bearing place: a private-key block, a URL password, an ``Authorization`` value) gives
``secret_bonus``; a vendor's published format ``vendor_bonus`` more; a bare token with neither
pays ``token_penalty``. :class:`smscan.detectors.credential.CredentialDetector` adds the value's
surprise and compares the sum with the calibrated threshold.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from smscan.detectors.blocks import is_armoured_text
from smscan.detectors.catalogs import is_gettext_catalog, is_locale_catalog
from smscan.detectors.change_logs import is_change_log
from smscan.detectors.credential_rule import CredentialRule
from smscan.detectors.curve_parameters import in_curve_definition
from smscan.detectors.code_files import binds_name, names_variables_unquoted, stem_of, suffix_of
from smscan.detectors.code_tables import in_code_table, is_code_key
from smscan.detectors.named_sequences import sequence_name
from smscan.detectors.dns_records import in_dns_key_record
from smscan.detectors import jwk_members
from smscan.detectors.enclosing_names import names_a_thing
from smscan.detectors.letter_pairs import pair_level
from smscan.detectors.notebooks import is_notebook, notebook_cells
from smscan.detectors.passphrases import is_passphrase
from smscan.detectors.placeholders import is_cut_stand_in, is_stand_in
from smscan.detectors.secret_places import is_basic_credentials
from smscan.detectors.secret_names import attribute_name, is_password_name, name_class, name_words, value_name_class
from smscan.detectors.slot_kinds import (
    ARGUMENT,
    ASSIGNMENT,
    FILE_FORMAT,
    HEADER,
    LABEL,
    PEM,
    PUBLIC_BLOCK,
    QUERY,
    STRING,
    TOKEN,
    URL_USERINFO,
    Slot,
)
from smscan.detectors.slots import find_slots
from smscan.detectors.token_runs import in_image_query, in_plain_query
from smscan.detectors.test_context import in_doctest, in_test_code, is_expected_digest, is_made_up, is_test_path
from smscan.detectors.test_vectors import in_test_vector
from smscan.detectors.tool_records import is_tool_record
from smscan.detectors.value_shapes import (
    character_classes,
    continues_ssh_public_key,
    encodes_hex_key,
    has_digest_name_before,
    has_troff_escape,
    is_blurhash,
    is_chance_name,
    is_character_set,
    is_code_name,
    is_codec_list,
    is_command_name,
    is_dashed_code,
    is_der_public_key,
    is_encoded_blob,
    is_encoded_polyline,
    is_encoded_text,
    is_generic_type,
    is_hex,
    is_json_literal,
    is_list_of_names,
    is_monarch_state,
    is_name_of_thing,
    is_integrity_digest,
    is_other_identifier,
    is_prose,
    is_service_code,
    is_short_item_list,
    is_short_number,
    is_ssh_public_key,
    is_symbol_name,
    is_typed_ulid,
    is_uuid,
    is_words_in_mixed_case,
)
from smscan.detectors.vendor_prefixes import in_vendor_key_path, is_publishable_key, vendor_of

# A git commit id, and the words of a file's name that say it records one.
_COMMIT_ID = re.compile(r"[0-9a-f]{40}")
_REVISION_WORDS = frozenset("change changes commit revision rev sha head ref release version build tag".split())
# Letters of one case and digits, both, maybe in parts joined by `-` or `_`: base 36 as ids
# print it (`ukaeu1ik4sw5`, `ECH69MOIW7613`, `dxcon-fg5678gh`).
_ONE_CASE_ALNUM = re.compile(
    r"(?=[^0-9]*[0-9])(?=[^A-Za-z]*[A-Za-z])(?:[a-z0-9]+(?:[-_][a-z0-9]+)*|[A-Z0-9]+(?:[-_][A-Z0-9]+)*)"
)
# Words just before a value in prose that say it is a digest or an id, one or many
# (`Recent commits to repo:<sha>`).
_IDENTIFIER_CONTEXT = re.compile(
    r"\b(?:commits?|sha\d*|hash(?:es)?|digests?|checksums?|integrity|revisions?|rev|uuids?|guids?|etags?|"
    r"fingerprints?|builds?|versions?|ids?|identifiers?|serial[ _-]?(?:numbers?|nos?))\b[^\n]{0,24}$",
    re.IGNORECASE,
)
# A method that looks an object up, changes or deletes it by its id, the value its first argument
# (`Payment.find("PAY-5736...")`, `client.retrieve("ch_...")` is handed the charge's id,
# `mg.routes.update("562da4...", {...})`, `deleteWebhook("we_...")`). `get` takes no suffix:
# `getToken("...")` and `getSecret("...")` may be handed the secret itself.
_LOOKUP_BEFORE = re.compile(
    r"\.(?:get|(?:find|retrieve|lookup|fetch|update|delete|destroy|remove)(?:[A-Z][A-Za-z]*)?)\(\s*[ub]?[\"']$"
)
# A `<meta>` tag's name and its `content=` up to the value, on the value's line.
_META_CONTENT_BEFORE = re.compile(
    r"""<meta\b[^<>\n]*?\b(?:name|property|itemprop)[ \t]*=[ \t]*["']?(?P<name>[^"'\s>]+)["']?"""
    r"""[^<>\n]*?\bcontent[ \t]*=[ \t]*["']?\Z""",
    re.IGNORECASE,
)
_META_REACH = 300
_MIN_URL_WORD = 8
# Words a default or a documented password is made of (`postgres:mysecretpassword`, `guest:guestpass`).
_URL_STAND_IN_WORD = re.compile(r"pass|secret|admin|guest|changeme|example|test|demo|default|root|user", re.IGNORECASE)
_URL_USER_REACH = 200
# A template's call that reads a secret by name (`{{ secret "db-password" }}`, `{{ env "TOKEN" }}`):
# the quoted value is the name it looks up.
_TEMPLATE_LOOKUP_BEFORE = re.compile(r"""\{\{-?[ \t]*(?:secret|env|getenv|vault|lookup|ssm|credential)[ \t]+["']$""", re.IGNORECASE)
# What follows a command's name when it is called: a parameter (`-AsSecureString`), a string, a variable.
_COMMAND_ARGUMENTS_AFTER = re.compile(r"[ \t]+(?:-[A-Za-z]|[\"'$(])")
# The most blank characters around a value that is a file's whole text (a final newline, CRLF).
_WHOLE_TEXT_BLANKS = 16
_LAYOUT_ESCAPES = re.compile(r"\\[nrt]")
# An object's attribute (`erc1155.tokenId`, `this.password`, `$config.secret`).
_ATTRIBUTE_PATH = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")
# The words that name a MongoDB document id, and its length in hex.
_OBJECT_ID_WORD = re.compile(r"object_?id", re.IGNORECASE)
_OBJECT_ID_LENGTH = 24
# A literal whose length is taken (`IDLEN = len('3547017b-...')`) is a sample of a format: the
# code uses its length, never its text.
_MEASURED_BEFORE = re.compile(r"\b(?:len|strlen)\(\s*[ub]?[\"']$")

# A PGP key is named by its fingerprint (40 hex digits) or its long id (16), public on every
# keyserver (the key itself is an armoured block): release notes list them after "PGP keys:",
# a few lines up.
_PGP_KEY_ID = re.compile(r"(?:0x)?(?:[0-9A-Fa-f]{40}|[0-9A-Fa-f]{16})")
_PGP_NAME_WORDS = frozenset(["pgp", "gpg", "gnupg", "openpgp"])
_PGP_WORD = re.compile(r"\b(?:" + "|".join(sorted(_PGP_NAME_WORDS)) + r")\b", re.IGNORECASE)
_PGP_CONTEXT_CHARS = 400
# A Bitcoin address (base58, `1` or `3` first, 26 to 35 characters) where the text speaks of
# Bitcoin a little before it is public: it is what one pays to. A wallet's private key (WIF)
# starts with `5`, `K` or `L`.
_BITCOIN_ADDRESS = re.compile(r"[13][1-9A-HJ-NP-Za-km-z]{25,34}")
_BITCOIN_WORD = re.compile(r"bitcoin|\bbtc\b", re.IGNORECASE)
_BITCOIN_CONTEXT_CHARS = 400
# A manual page's source: `httpd.8`, `ssl.3ssl`, `ls.1p`, `tool.man`.
_MAN_PAGE = re.compile(r"\.(?:[1-9][a-z]{0,4}|man|roff)$")
# Suffixes of a checksum file beside what it checks (Maven's `junit-3.8.1.pom.sha1`, `release.tar.gz.sha256`).
_DIGEST_SUFFIXES = frozenset(
    name + ending for name in ("md5", "sha", "sha1", "sha224", "sha256", "sha384", "sha512") for ending in ("", "sum")
)
# Words of a file's name that say it lists digests, and the lengths of hex digests (MD5 to SHA-512).
_DIGEST_FILE_WORDS = frozenset(["hashes", "checksums", "digests", "sha256sums", "sha1sums", "md5sums", "shasums"])
_HEX_DIGEST_LENGTHS = frozenset([32, 40, 56, 64, 96, 128])
# Last words of a name that say its value is a format (a pack template, a date picture, a regex).
# An expression is one too (API Gateway's `ApiKeySelectionExpression`, `$request.header.x-api-key`).
_FORMAT_WORDS = frozenset(
    ["format", "formats", "fmt", "pattern", "patterns", "regex", "regexp", "template", "templates", "expression", "expr",
     # getopt's option letters (`shortopts = "hvlo:xif:nb:s:13gt:"`): a format of a command's options
     # (not `opts` alone: `JAVA_OPTS` holds `-Dkey=value` settings, secrets among them)
     "shortopts", "optstring", "getopt"]
)

# How far before a value its context words are looked for: a word of `_IDENTIFIER_CONTEXT` and
# the 24 characters after it, or a digest's name, with room for the character before them.
_BEFORE_CHARS = 64

# `sha256sum` output: a hex digest, two spaces (or ` *`), a file name.
_CHECKSUM_LINE_AFTER = re.compile(r" [ *][\w./\-]+\.\w+")

# A private key's body is one random run: its first lines tell its surprise as well as all of it
# (nats per character within 0.2 on 2048-bit RSA keys, far above the threshold either way), at a
# fifth of a whole key's ~1,360 tokens.
_KEY_SAMPLE_CHARS = 320

# Words after a vendor's prefix: lower-case words of three letters or more, `_`/`-` joined.
_WORDED_BODY = re.compile(r"[a-z]{3,}(?:[_\-][a-z]{2,})+[_\-]?")
# An enumeration's value: a name and a model or number joined by `_` (`etransfer_pocztowy24`,
# `bbpos_wisepad3`, `verifone_P400`, `txcd_92010001`); without a secret name it names a thing.
_ENUM_NAME = re.compile(r"[a-z]+[0-9]*(?:_(?:[a-z]+[0-9]*|[A-Z][0-9]+|[0-9]+))+")
# A word with an English contraction or possessive, either apostrophe: `wasn’t`, `Mypy's`.
_CONTRACTED_WORD = re.compile(r"[A-Za-z]+['’](?:s|t|re|ve|ll|d|m)")
# A documentation tag in capitals (`@DEPRECATED`; the slot finder has cut the emphasis of
# `**@DEPRECATED**` off), or a tag or a word in capitals in underscores (`__@deprecated__`,
# `_REQUIRED_`): what a doc comment says of a parameter it names (`@param clientSecret
# **@DEPRECATED**.`), not a value. A bare `@word` in lower case may be a password (`=@asdfasf`).
_MARKED_UP_WORD = re.compile(r"@[A-Z]{2,}|(_{1,2})(?:@[A-Za-z]+|[A-Z]{2,})\1")
# Lower-case words joined by hyphens or underscores: a description of a token, not one.
_DESCRIBED_TOKEN = re.compile(r"[a-z]+(?:[-_][a-z]+)+")

# A literal that opens a quoted part of a string built around a variable and is joined to it
# (`'uat:80211_keys:"' + key + '"'`): the text around a value, the value being the variable.
_OPENS_BUILT_QUOTE = re.compile(r"""["'][ \t]*\+""")
# Secret-bearing places: the slot itself says what the value is.
_SECRET_PLACES = frozenset({PEM, URL_USERINFO, HEADER, FILE_FORMAT})
# Places whose format says the value is encoded: an `Authorization: Basic` value, FileZilla's
# base64 `<Pass>`, an `.npmrc` `_password`.
_ENCODED_PLACES = frozenset({HEADER, FILE_FORMAT})


@dataclass(frozen=True, slots=True)
class JudgedSlot:
    """A slot that can be a credential: its file span, its evidence (nats), and where it was."""

    start: int
    end: int
    evidence: float
    where: str
    length: int
    extra: Mapping[str, Any]
    sample_end: int = field(default=-1)
    """Where the part whose surprise is judged ends: ``end`` but for a long private-key block,
    whose first ``_KEY_SAMPLE_CHARS`` characters stand for it (the span stays the whole block)."""

    def __post_init__(self) -> None:
        if self.sample_end < 0:
            sample = self.start + _KEY_SAMPLE_CHARS if self.where == PEM else self.end
            object.__setattr__(self, "sample_end", min(self.end, sample))


# Whether a slot the rules keep is settled before the model (``smscan.detectors.cheap_gate``):
# called with the text the slot's offsets point into (a notebook cell's source), the slot and
# the evidence the rules gave it.
Settled = Callable[[str, Slot, float], bool]


def judged_slots(text: str, rule: CredentialRule, *, path: str = "", settled: Settled | None = None) -> list[JudgedSlot]:
    """Every slot of ``text`` that survives the model-free judgement, with its evidence.

    A notebook is judged cell by cell on the decoded source (:mod:`smscan.detectors.notebooks`);
    spans point into the file, and ``extra`` says which cell and where in it. A slot without
    positive evidence (no secret name or place, no vendor format) that ``settled`` answers True
    for is left out too; a value its place calls secret always reaches the model, because weak
    passwords people type (`=@asdfasf`) look plain to cheap features and leak all the same.
    """
    out = []
    pieces = [(cell.text, cell) for cell in notebook_cells(text)] if is_notebook(text) else [(text, None)]
    for piece, cell in pieces:
        for slot in find_slots(piece):
            evidence = judge_slot(piece, slot, rule, path=path)
            if evidence is None or settled is not None and evidence <= 0 and settled(piece, slot, evidence):
                continue
            if cell is None:
                out.append(JudgedSlot(slot.start, slot.end, evidence, slot.where, slot.end - slot.start, {}))
            else:
                start, end = cell.file_span(slot.start, slot.end)
                extra = {"cell": cell.index, "cell_start": slot.start, "cell_end": slot.end}
                out.append(JudgedSlot(start, end, evidence, slot.where, slot.end - slot.start, extra))
    return out


def is_multipart_boundary(text: str, start: int, end: int) -> bool:
    """True when ``text[start:end]`` opens a line as ``--<value>`` and the text closes the same
    boundary with ``--<value>--``: a multipart body's delimiter (RFC 2046).

    Example:
        >>> body = "--q8ZtKpx0\\r\\nContent-Disposition: form-data\\r\\n\\r\\nx\\r\\n--q8ZtKpx0--\\r\\n"
        >>> is_multipart_boundary(body, 2, 10), is_multipart_boundary("--q8ZtKpx0\\n", 2, 10)
        (True, False)
    """
    if start < 2 or text[start - 2 : start] != "--" or (start > 2 and text[start - 3] != "\n"):
        return False
    return text[start:end] in _closed_boundaries(text)


# A line that closes a multipart body: `--<boundary>--`.
_CLOSING_DELIMITER = re.compile(r"^--(\S+?)--[ \t]*\r?$", re.MULTILINE)


@functools.lru_cache(maxsize=4)
def _closed_boundaries(text: str) -> frozenset[str]:
    """The boundaries a document closes, read once a document (a file of many `--X` lines asks
    for each of them)."""
    return frozenset(_CLOSING_DELIMITER.findall(text))


_MAX_REPEATED_UNIT = 4


def _is_repeated_unit(body: str) -> bool:
    """True for a body made of one run of up to four characters said over and over (``123123123``)."""
    return any(
        len(body) >= 3 * size and body == (body[:size] * (len(body) // size + 1))[: len(body)]
        for size in range(1, _MAX_REPEATED_UNIT + 1)
    ) or len(set(body)) <= 2


def judge_slot(text: str, slot: Slot, rule: CredentialRule, *, path: str = "") -> float | None:
    """The evidence a slot adds to its value's surprise, or None when it cannot be a credential.

    Evidence adds up: a name that says secret (or a secret-bearing place) gives ``secret_bonus``,
    a known vendor format ``vendor_bonus`` more; a bare token with neither pays ``token_penalty``.
    In a test file (``path``) a value typed by hand is made-up test data (:mod:`.test_context`).
    """
    value = text[slot.start : slot.end]
    if slot.where == PEM:
        return None if is_armoured_text(value) else rule.secret_bonus
    if slot.where == PUBLIC_BLOCK:
        return None
    # In a manual page's source a font change or a zero-width escape is markup of its text
    # (`token types\&.`); elsewhere an unnamed value holding one is that text (below).
    if _MAN_PAGE.search(path) and has_troff_escape(value):
        return None
    # A zone's DNSKEY or RRSIG record publishes a key or a signature to every resolver (:mod:`.dns_records`).
    if in_dns_key_record(text, slot.start):
        return None
    # In a test (a test file, or a doctest's example line) a value typed by hand is made-up test data.
    if is_stand_in(value) or is_cut_stand_in(text, slot.start, slot.end) or (is_test_path(path) or in_doctest(text, slot.start)) and (
        is_made_up(value) or is_expected_digest(text, slot.start, slot.end) or in_test_vector(text, slot.start)
    ):
        return None
    # An object id in git's refs, a build hash in Sphinx's record (:mod:`.tool_records`).
    if is_tool_record(path, value):
        return None
    # A file that holds one commit id and nothing else, named for a change or a revision, records
    # one (`.latest-doc-only-change.txt`, `LAST_RELEASE_COMMIT`); a token file keeps its own name.
    if _COMMIT_ID.fullmatch(value) and _is_whole_text(text, value) and _REVISION_WORDS & set(name_words(stem_of(path))):
        return None
    # A checksum file holds the digest of the file it is named after; a test's reference file
    # holding one digest and nothing else is the output it expects (ffmpeg's `tests/ref/fate/*`).
    if is_hex(value) and (
        suffix_of(path) in _DIGEST_SUFFIXES
        or is_test_path(path) and len(value) in _HEX_DIGEST_LENGTHS and _is_whole_text(text, value)
    ):
        return None
    # A file's digest under the file's name (a subresource integrity list) checks that file.
    if slot.key and is_integrity_digest(slot.key, value):
        return None
    # A Monarch grammar's state or token class (Monaco's tokenizers) names a rule of the grammar.
    if is_monarch_state(value, slot.key):
        return None
    # A multipart body's boundary opens each part (`--<boundary>`) and closes the last
    # (`--<boundary>--`): a random run that every reader of the message sees.
    if is_multipart_boundary(text, slot.start, slot.end):
        return None
    # An enumeration's name keyed by its number, or one of many codes sharing a prefix (:mod:`.code_tables`).
    if in_code_table(text, slot.start, slot.end):
        return None
    # A run cut out of a longer string that lists characters once each (an ASCII-art ramp, an
    # alphabet); a whole literal or a named value of that shape is a hand-typed key as often.
    if slot.where == TOKEN and is_character_set(value):
        return None
    # An item of a sequence whose opening line names ids or digests (`PRIOR_HASHES = (`, :mod:`.named_sequences`).
    if not slot.key and (name := sequence_name(text, slot.start, slot.end)) and name_class(name) == "identifier":
        return None
    # A page's metadata is shown to every visitor (`<meta name="google-site-verification" content="...">`):
    # public, unless its name says secret.
    meta = _META_CONTENT_BEFORE.search(text, max(slot.start - _META_REACH, 0), slot.start)
    if meta is not None and name_class(meta.group("name")) != "secret":
        return None
    # A gettext catalog's strings are messages and their translations (`msgstr[0] "..."`).
    if slot.where == STRING and is_gettext_catalog(path):
        return None
    # A locale folder's catalog names its messages, in words a secret's name may hold
    # (`notice_account_wrong_password: Chybné heslo`): the values are messages (:mod:`.catalogs`).
    if is_locale_catalog(path) and vendor_of(value) is None:
        return None
    # A badge's token sits in an image's URL to be shown to every reader (`badge.svg?token=...`).
    if slot.where in (ASSIGNMENT, QUERY) and in_image_query(text, slot.start):
        return None
    # A name written beside the value is named by its last attribute; one inherited from an
    # enclosing object (`credentials.prod`) says secret by its first (:mod:`.enclosing_names`).
    place = value_name_class(slot.key if slot.inherited else attribute_name(slot.key), value) if slot.key else "neutral"
    if slot.where in _SECRET_PLACES or slot.where == ARGUMENT and place == "secret":
        place = "secret"
    # A key that is a code among codes (`"PW"`, Palau, among the country codes of a phone-number
    # library's metadata) names a country, not a password (:mod:`.code_tables`).
    if place == "secret" and slot.where not in _SECRET_PLACES and is_code_key(text, slot.start, attribute_name(slot.key)):
        place = "neutral"
    # A hex number among a curve's published parameters (:mod:`.curve_parameters`).
    if place != "secret" and in_curve_definition(text, slot.start, slot.end, slot.key):
        return None
    # A literal under no secret name ending in the one quote mark it holds, joined to what
    # follows, opens a quoted part of a string built around a variable.
    if (
        place != "secret" and value[-1:] in ("'", '"') and value.count(value[-1]) == 1
        and _OPENS_BUILT_QUOTE.match(text, slot.end)
    ):
        return None
    # A name that says the value is a format, a pattern or a template names what it is
    # (`my $limit_format = "Z81I1C1I1d3L3"`, a pack template); no secret's name is left to say secret.
    if place == "neutral" and slot.key and _FORMAT_WORDS.intersection(name_words(slot.key)[-1:]):
        return None
    # An object's attribute of the key's own name is the variable holding the value, passed on
    # (`tokenId: erc1155.tokenId`, `password: this.password`), not the value.
    if slot.key and _ATTRIBUTE_PATH.fullmatch(value) and value.rsplit(".", 1)[1].lower() == attribute_name(slot.key).lower():
        return None
    # So is a variable of the key's own name, negated to a flag in code (`ownPass: !!ownPass`).
    if slot.key and slot.where == ASSIGNMENT and value.startswith("!") and value.lstrip("!") == attribute_name(slot.key):
        return None
    # A file named for its digests (`hashes.json`, `checksums.txt`) holds them in hex, each a
    # digest's length, under the names of the files they check; a secret's name keeps its value.
    if (
        place != "secret" and is_hex(value) and len(value) in _HEX_DIGEST_LENGTHS
        and not _DIGEST_FILE_WORDS.isdisjoint(name_words(stem_of(path)))
    ):
        return None
    vendor = vendor_of(value)
    # A vendor's prefix before words (`sk_test_iter_forwards_options`, `glpat-private-token`) is a
    # stand-in a person wrote in the vendor's shape: a token's body is drawn, not spelt.
    # So is one before a body of a few characters repeated (`glpat-aaaaaaaaaaaaaaaaaaaa`,
    # `GR1348941` and `123` over and over).
    if vendor is not None and (_WORDED_BODY.fullmatch(value[len(vendor):]) or _is_repeated_unit(value[len(vendor):])):
        return None
    # Stripe's publishable keys are made to be published: every checkout page's script holds one.
    if is_publishable_key(value):
        return None
    if vendor is not None or in_vendor_key_path(text, slot.start):
        return (rule.secret_bonus if place == "secret" else 0.0) + rule.vendor_bonus
    # A test suite's unnamed strings are its inputs and the outputs it expects (digests, cookies,
    # nonces, encoded payloads, parser cases); a key that leaks through a test is bound to a secret
    # name, written in a secret place or in a vendor's format (:mod:`.test_context`). Tests kept in
    # a module beside its code count as a test file does.
    if place != "secret" and (is_test_path(path) or in_test_code(path, text, slot.start)):
        return None
    # A change log cites what changed by name (a message id, a certificate authority, a file);
    # a key pasted into one keeps a secret's name or a vendor's format (:mod:`.change_logs`).
    if place != "secret" and is_change_log(path):
        return None
    letter_key = place == "secret" and is_letter_key(value, rule)
    # A UUID under a secret name is a key (API keys and tokens are often drawn as UUIDs);
    # under any other name it is an id.
    secret_uuid = place == "secret" and is_uuid(value)
    if is_ssh_public_key(value) or continues_ssh_public_key(text, slot.start) or is_der_public_key(value):
        return None
    # After `Basic` only base64 of `user:password` is a credential; after any scheme, words
    # joined by hyphens describe a token (`Bearer a-token-string`), which a machine never draws,
    # and a word of prose is the sentence a scheme's name began (`msgstr "Token inválido."`).
    if slot.where == HEADER and (
        (slot.key.lower() == "basic" and not is_basic_credentials(value)) or _DESCRIBED_TOKEN.fullmatch(value)
        or is_prose(value)
    ):
        return None
    # A Docker registry's `auth` (under `"auths"` of a `config.json` or `.dockercfg`) is base64 of
    # `user:password` by definition, as a `Basic` value is: anything else is no login of it.
    if slot.key == "auth" and '"auths"' in text and not is_basic_credentials(value):
        return None
    # A label's value that is a word ending a sentence (`the token is active?`), a word with a
    # contraction or a possessive (`the token wasn’t available`, `pass Mypy’s checks`) or a marked-up
    # word of a doc comment (`@param clientSecret **@DEPRECATED**.`) is the sentence.
    if slot.where == LABEL and (
        value[-1] in "?!.,;:" and is_prose(value) or _CONTRACTED_WORD.fullmatch(value) or _MARKED_UP_WORD.fullmatch(value)
    ):
        return None
    # Where a password itself is written (a URL's password, a name that says password), a file
    # or host name, a path or an email shape is a password holding a dot, `/` or `@` by chance
    # (`https://u:jMH3WyojU.Kr@host`, `IDENTIFIED BY 'Kp4TxQ8m@7.VbnRw'`, `"ab/cd9X.key"`), and
    # two words are a password a person chose (`DB_PASSWORD=sunny-meadow`). Under a key or token
    # name these shapes stay what they are: `ssl_key: certs/server.key`, `auth: client-credentials`.
    password_place = slot.where == URL_USERINFO or (place == "secret" and bool(slot.key) and is_password_name(slot.key))
    # A path whose every part is a word name stays a path under any name: prose binds
    # `smscan/model/passes.py` to the "pass" of "forward pass"; a password's parts mix cases and
    # digits (`ab/cd9X.key`).
    chance_password = password_place and is_chance_name(value) and not ("/" in value and is_name_of_thing(value))
    # In code an unquoted value is an expression: a name with a number in it is a variable
    # (`"X-Amz-Server-Side-Encryption-Customer-Key": b64key,`), a PowerShell command a call
    # (`$password = Get-AnsibleParam -obj $params`); a name the text itself assigns is that
    # variable, whatever the file (`srx2_pass = getpass(...)`, then `conn.password = srx2_pass`).
    # A PowerShell command followed by its arguments is a call in any file (`$PASSWORD = Read-Host
    # "MySQL password" -AsSecureString` in a README).
    if slot.where == ASSIGNMENT and (
        (is_code_name(value) or is_command_name(value) or is_generic_type(value)) and names_variables_unquoted(path) or binds_name(text, value)
        or is_command_name(value) and _COMMAND_ARGUMENTS_AFTER.match(text, slot.end)
    ):
        return None
    # A label in prose is often a verb (`do not pass real_modname`): a typed word needs a literal's place.
    # Between a URL's user and its `@` nothing but the password is written, so a word there
    # (camel-cased words in a database URL, as GitHub's custom patterns test) is one too, not a
    # setting's value.
    typed_password = (
        password_place and slot.where != LABEL and (is_typed_word(value, slot.key) or slot.where == URL_USERINFO and value.isalpha())
        and (slot.where != ASSIGNMENT or not names_variables_unquoted(path))
    )
    if (
        not secret_uuid and (is_uuid(value) or is_other_identifier(value))
        and not letter_key and not chance_password and not typed_password
    ):
        return None
    # A secret name inherited from an enclosing object by a setting that names a thing
    # (`{"credential": {"model": ...}}` gives `credential.model`) does not say what that leaf
    # holds: a name of a thing stays a name. A dotted key written in the file
    # (`jwt.secret.key=...`) is the value's own name.
    inherited = place == "secret" and names_a_thing(slot)
    if (place != "secret" or inherited) and (
        is_prose(value) or is_name_of_thing(value) or is_list_of_names(value) or _ENUM_NAME.fullmatch(value)
        or is_service_code(value)
        or is_typed_ulid(value)
        or is_dashed_code(value)
        or is_code_name(value)
        or is_symbol_name(value)
        or has_troff_escape(value)
        or is_json_literal(value)
        or is_words_in_mixed_case(value)
        or is_encoded_polyline(value)
        or is_codec_list(value)
        or is_blurhash(value)
        or is_short_item_list(value)
        or is_short_number(value)
        or is_encoded_blob(value) and attribute_name(slot.key) not in jwk_members.PRIVATE_MEMBERS
    ):
        return None
    if slot.where not in _ENCODED_PLACES and is_encoded_text(value) and not (place == "secret" and encodes_hex_key(value)):
        return None
    # The words just before the value on its line (never the whole of a long minified line).
    window = max(slot.start - _BEFORE_CHARS, 0)
    before = text[max(text.rfind("\n", window, slot.start) + 1, window) : slot.start]
    if place != "secret" and (place == "identifier" or _IDENTIFIER_CONTEXT.search(before) or in_plain_query(text, slot.start)):
        return None
    if has_digest_name_before(before) or _TEMPLATE_LOOKUP_BEFORE.search(before):
        return None
    if place != "secret" and _LOOKUP_BEFORE.search(before) or _MEASURED_BEFORE.search(before):
        return None
    # A PGP key is named by its long id or fingerprint where the text speaks of PGP, or under a
    # name that does (`GPG_KEY="CFB4C2166397D0D2"`); the key itself is an armoured block.
    if _PGP_KEY_ID.fullmatch(value) and (
        not _PGP_NAME_WORDS.isdisjoint(name_words(slot.key)) if place == "secret"
        else _PGP_WORD.search(text, max(slot.start - _PGP_CONTEXT_CHARS, 0), slot.start) is not None
    ):
        return None
    if (
        place != "secret" and _BITCOIN_ADDRESS.fullmatch(value)
        and _BITCOIN_WORD.search(text, max(slot.start - _BITCOIN_CONTEXT_CHARS, 0), slot.start) is not None
    ):
        return None
    if is_hex(value) and _CHECKSUM_LINE_AFTER.match(text, slot.end):
        return None
    # Layout escapes break text into lines (`MED\nYDPWNLRF...`, a protein's sequence): a value of
    # one class of characters around them is text of that class.
    # Between a URL's user and its `@` a word of one case is a password too (`redis://bob:<word>@host`),
    # once it is longer than the short words people leave there as stand-ins.
    url_word = (
        typed_password and slot.where == URL_USERINFO and len(value) >= _MIN_URL_WORD
        and not _URL_STAND_IN_WORD.search(value) and value != _url_user_before(text, slot.start)
    )
    if len(set(value)) < 4 or (
        character_classes(_LAYOUT_ESCAPES.sub("", value)) < 2 and not letter_key and not secret_uuid and not url_word
    ):
        return None
    if slot.where == TOKEN or (slot.where == ARGUMENT and place != "secret"):
        if len(value) < rule.min_length_token or character_classes(value) < 2:
            return None
        return -rule.token_penalty
    if place == "secret":
        # Under a name inherited from an enclosing object, a short value is a setting of the
        # object (`"credential": {"criterion": "best-f1"}`), judged as if it had no name.
        if len(value) < (rule.min_length_unnamed if inherited else rule.min_length_named):
            return None
        # A word-joined passphrase is a password's published shape, as a vendor's format is a key's.
        return rule.secret_bonus + (rule.vendor_bonus if is_passphrase(value) else 0.0)
    if slot.where in (STRING, ASSIGNMENT) and len(value) >= rule.min_length_unnamed:
        # Short hex without a name is an id (short commit hashes, revision ids), not a key: hex
        # carries 4 bits a character, so a key in hex is long; so is short base 36 in one case
        # (the ids many APIs print: `reddit.live("ukaeu1ik4sw5")`, `Example: dxcon-fg5678gh`).
        if is_hex(value) and len(value) < rule.min_length_unnamed_hex:
            return None
        # MongoDB's document ids are 24 hex digits (`ObjectId("507f1f77bcf86cd799439011")`),
        # on a line that says so.
        if is_hex(value) and len(value) == _OBJECT_ID_LENGTH and (
            _OBJECT_ID_WORD.search(before) or _OBJECT_ID_WORD.search(text[slot.end : slot.end + _BEFORE_CHARS].split("\n", 1)[0])
        ):
            return None
        if _ONE_CASE_ALNUM.fullmatch(value) and len(value) < rule.min_length_unnamed_lower:
            return None
        return 0.0
    return None


def _url_user_before(text: str, start: int) -> str:
    """The user of the URL whose password starts at ``start`` (``postgres`` in ``//postgres:...``)."""
    scheme_end = text.rfind("://", max(start - _URL_USER_REACH, 0), start)
    return text[scheme_end + 3 : start - 1] if scheme_end != -1 else ""


def _is_whole_text(text: str, value: str) -> bool:
    """Whether ``value`` is all ``text`` holds but blanks (the length is compared first: a large
    file of many such values is not copied once for each)."""
    return len(text) - len(value) <= _WHOLE_TEXT_BLANKS and text.strip() == value


def is_typed_word(value: str, name: str) -> bool:
    """True for a word a person typed as a password (``open_sesame``, ``super$ecret``): letters
    with digits, ``_`` or ``$`` inside, neither a constant's name (``DB_PASSWORD``), a variable
    (``$pw``) nor an echo of its own name's words (``db_password`` for ``password``,
    ``newPassword``).

    Written where a password goes as a literal, such a word is the password (weak passwords leak
    as often as strong ones), and the model's surprise tells a typed word from a word that names
    something; its shape alone called it an identifier.

    Example:
        >>> is_typed_word("open_sesame", "password"), is_typed_word("db_password", "password")
        (True, False)
        >>> is_typed_word("DB_PASSWORD", "password"), is_typed_word("$password", "password")
        (False, False)
    """
    # Letters alone are a word, and a word where a password goes is as often a setting
    # (`password_source = "environment"`) as a password; a typed one joins words or adds a sign.
    if not _TYPED_WORD.fullmatch(value) or value.isupper() or value.isalpha():
        return False
    return not set(name_words(value)) <= set(name_words(name)) | _ECHO_WORDS


# Capitals whose letters pair as words' do this well are a constant's name (`XRANGEIDENTIFIERLOOSE`):
# 1 in 10,000 runs of 20 random capitals pairs as well, none of 32.
_CONSTANT_WORD_LEVEL = 6.5
# Words that echo a password's name in a variable's name: `new_password`, `userPwd`, `the_secret`.
_ECHO_WORDS = frozenset("password passwd pwd pass passphrase secret db user admin my new old the current confirm".split())
_TYPED_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_$]{5,}")


def is_letter_key(value: str, rule: CredentialRule) -> bool:
    """True for a long run of ASCII letters alone, a key shape under a secret name.

    Keys drawn from letters (base32 without digits, ``AKIA...`` ids whose random part has no
    digit) look like one long name; under ``password``/``key`` names the model's surprise
    decides, as for any other value.

    Example:
        >>> rule = CredentialRule()
        >>> is_letter_key("AKIAQZLRMEUDXJIWGOCR", rule), is_letter_key("Authorization", rule)
        (True, False)
        >>> is_letter_key("XRANGEIDENTIFIERLOOSE", rule)  # a constant's name in capitals
        False
    """
    return (
        value.isascii() and value.isalpha() and len(value) >= rule.min_length_token
        and not (value.isupper() and pair_level(value) >= _CONSTANT_WORD_LEVEL)
    )
