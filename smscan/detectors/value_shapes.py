"""Shapes a value can have that say what it is, whatever its name: UUIDs, versions, digests,
URLs, paths, patterns, prose, encoded text, names of things.

Pure functions of the value; the detector decides what a shape means in its place (a UUID is no
credential under a neutral name, and is one under ``--super-secret_token``).
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
from html.entities import html5 as html5_entities
import json
import re
from collections.abc import Iterator
from itertools import accumulate
from urllib.parse import unquote_plus

from smscan.detectors.letter_pairs import pair_level, reads_as_word
from smscan.detectors.passphrases import is_passphrase
from smscan.detectors.placeholders import is_placeholder, is_stand_in
from smscan.detectors.secret_names import ID_TYPE_PREFIX, SECRET_PATH_WORD

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
# Written so that the numbers and what follows split one way only (else `1.1.1...!` is quadratic):
# `\d+(?:\.\d+)+` and a letter-digit-dot tail make any run of `[A-Za-z0-9.]`.
# A range operator may lead, as npm's dependencies write a version (`^9.0.5`, `~1.2`, `>=4.20230404.0`).
_VERSION = re.compile(r"^(?:[\^~=]|[<>]=?)?[vV]?\d+\.\d+(?!\d)(?:[A-Za-z0-9.]*|(?:\.\d+)*[-+][A-Za-z0-9.]+)$")
# Digests named by their algorithm: SRI `sha512-...`, `sha256:...`, Go's `h1:...`, `md5=...`.
_DIGEST_NAME = r"(?:sha1|sha224|sha256|sha384|sha512|sha3-\d+|md5|blake2b?|h1)[-:=]"
_DIGEST_PREFIXED = re.compile("^" + _DIGEST_NAME, re.IGNORECASE)
# A package archive's name before `#` (`sonarqube-scanner-2.5.0.tgz#ff704c...`, as lock files and
# registries pin a download) says the hex after it is the archive's digest.
_DIGEST_BEFORE = re.compile(rf"(?:{_DIGEST_NAME}|\.(?:tgz|tar\.gz|tar\.bz2|tar\.xz|zip|whl|jar|gem|crate|nupkg)#)$", re.IGNORECASE)
# Extensions are written in one case (`.txt`, `.JPG`, `.Rmd`), upper-case ones from a letter
# (`.MP3`): `SUU7ANse09.3tWx` and `bGh2Yxct2bq.4QR` are passwords.
# Each extension reads one way only (a capital and digits, `A1`, is upper case, never mixed):
# two readings of a segment make `x.A1.A1...!` try every combination.
_EXTENSION = r"(?:[a-z0-9]{1,5}|[A-Z][A-Z0-9]{0,4}|[A-Z](?=[a-z0-9]{1,4}(?![A-Za-z0-9]))[0-9]*[a-z][a-z0-9]*)"
# Patterns, not values: globs (`*/build/*`, `*.py`) and regular expressions (ranges, groups,
# class escapes, case classes such as `[Ll]`). A bare `**` is no glob: random passwords hold it.
_PATTERN = re.compile(
    rf"\*/|/\*|\*\.{_EXTENSION}$|\[[a-zA-Z0-9]-[a-zA-Z0-9]\]|\(\?[:=!<P]|\\[dwsbDWSB]"
    r"|\[([A-Za-z])(?!\1)(?i:\1)\]"
)
# A `*.ext` ending after a letter or digit: the one glob a password of letters, digits and `*.`
# forms by chance (`Vo8qrs*.tuvwA`); a glob that starts with `*` (`*.local`) stays a glob.
_GLOB_EXTENSION = re.compile(r"(?<=[A-Za-z0-9])\*\.[A-Za-z0-9]{1,5}$")
# Escaped regex metacharacters (`\[`, `\.`, `\(`): two of them make a pattern; one backslash
# before punctuation can happen in a random password.
_REGEX_ESCAPE = re.compile(r"\\[.\[\](){}*+?|^$]")
# Words of prose, in any language written in Latin letters: `Voorbeelden:`, `boshlang'ich`,
# `requi-yar-ed`. Each word is lower case, capitalised or all capitals, never mixed like a key.
_WORD_RUN = re.compile(r"^(?:[A-Z]?[a-z]+|[A-Z]{2,})(?:['\-](?:[A-Z]?[a-z]+|[A-Z]{2,}))*[:.!?]?$")
# Windows paths: a drive letter, or UNC and escaped separators.
_WINDOWS_PATH = re.compile(r"^[A-Za-z]:[\\/]|\\\\")
# Package, image and action references: name@version, owner/repo@ref.
# The version is numbers joined by dots (`@v4`, `@1.2.3-beta`), so `YJRA915@8m2g7a` stays a password.
# An npm scope may lead: `@babel/preset-env@7.24.0`.
_REFERENCE_AT_VERSION = re.compile(r"^@?[\w.\-]+(?:/[\w.\-]+)*@v?\d+(?:\.[\w\-]+)*$")
# Requirement specifiers: name>=1.2, name==1.2.3, name~=2.0, name>=19.3b0 (PEP 440 and npm-like).
# The version is numbers with dots (`>=1.2`, `^4.17.21`, `~=2.0.*`), so `GNq^1Q7l6Y.D6e` is no range;
# npm's `^`/`~` ranges always hold a dot (`~1.2`), so a password ending in `~7` is none either.
_REQUIREMENT = re.compile(r"^[A-Za-z0-9][\w.\-]*(?:\[[\w,\-]+\])?\s*(?:===?|>=|<=|~=|!=|[\^~](?=\s*v?\d+\.)|>|<)\s*v?\d+(?:\.(?:\d+|[x*]))*(?:\.?(?:a|b|rc|post|dev)\d+)*(?:[-+][\w.]+)?(?:,\s*(?:[<>=!~]=?)\s*\d[\w.\-*]*)*$")
# Product tokens (`User-Agent` style): `uploader/1.4.2`, `gateway-client/0.7.1`.
_PRODUCT_TOKEN = re.compile(r"^[A-Za-z][\w.\-]*/v?\d+\.\d[\w.\-]*$")
_DATA_URI = re.compile(r"^data:[\w.+\-]+/[\w.+\-]+(?:;[\w=\-]+)*[;,]")
# A media type (RFC 6838): a registered top-level type, or an unregistered `x-` one, and a
# subtype (`x-world/x-3dmf`, `application/vnd.ms-excel`, `image/svg+xml`).
_MEDIA_TYPE = re.compile(
    r"^(?:application|audio|chemical|font|haptics|image|message|model|multipart|text|video|x-[a-z]+)"
    r"/[A-Za-z0-9][\w.+\-]*$"
)
# The last part of a request signature's credential scope (AWS Signature Version 4 and Google
# Cloud Storage's V4 signing): a protocol's constant, written beside the signing key's names.
_SIGNING_SCOPE_END = re.compile(r"^(?:aws4|goog4)_request$")
# A whole credential scope (`Credential=<key id>/20170613/us-east-1/s3/aws4_request`) whose key id
# is not shaped like one (an access key id is 16 or more capitals and digits: `12312313` is a
# test's): the date, region and service of a signature, public in every signed request.
_SIGNING_SCOPE = re.compile(r"^(?![A-Z0-9]{16,}/)[^/\s]+/\d{8}/[\w\-]+/[\w\-]+/(?:aws4|goog4)_request$")
_HEX = re.compile(r"^[0-9a-fA-F]+$")
_BASE64 = re.compile(r"^(?:[A-Za-z0-9+/]+|[A-Za-z0-9_\-]+)={0,2}$")
_CREDENTIAL_PAIR = re.compile(r"^[\w.@+\-]+:\S+$")
# A scheme with one slash is a URL too (`file:/etc/hosts`, `x-scheme:/a/b`): the scheme is lower
# case, as RFC 3986 writes it, so a password of mixed case that holds `:/` is none. A type in
# capitals before a path is one too (Kerberos' `FILE:/tmp/krb5cc_1000`).
_URLISH = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.\-]*://|[a-z][a-z0-9+.\-]*:/|[A-Z]{2,}:/|www\.|mailto:|/|\./|\.\./|~/)")
# An address ends in a top-level domain of letters: `hj@pmAszz.Jdsjp0WaoV` is a password.
# An `=` is as common in a mail's message id as in an address (`CAF_KswU7aBS=tcg75@mail.gmail.com`).
_EMAIL = re.compile(r"^[\w.+=\-]+@[\w\-]+(?:\.[\w\-]+)*\.[A-Za-z]{2,24}$")
_HOSTNAME = re.compile(r"^(?:[a-z0-9\-]+\.)+[a-z]{2,}(?::\d+)?$")
_IP = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?$")
# An IPv6 host as URLs write it, in brackets with an optional port: `[fe80::1]:8080`, `[1:2:3]`.
_BRACKETED_HOST = re.compile(r"^\[[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*\](?::\d+)?$")
# A C compiler's flag defining or undefining a macro (`-DPy_LIMITED_API`, `-DNDEBUG`, `-UHAVE_X=1`):
# the macro is a constant's name in capitals or a symbol in snake case, never a random mix.
_MACRO_FLAG = re.compile(
    r"^-[DU](?:_*[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*|_*[A-Za-z][a-z0-9]*(?:_[A-Z0-9]+)+)(?:=[\w.\-]*)?$"
)
# An action of a cloud's access policy: a service in lower case, `:`, a verb and what it acts on
# (AWS' `s3:GetObject`, `ec2:DescribeInstances`, Tencent's `name/cos:PutObjectACL`, `s3:Get*`): letters
# alone after the verb. A user and a password may take the shape by chance, so it is a word shape.
_POLICY_ACTION = re.compile(
    r"^(?:[a-z][a-z0-9\-]*/)?[a-z][a-z0-9\-]*:(?:Get|Put|List|Describe|Create|Delete|Update|Head|Post|Pass|Assume"
    r"|Invoke|Send|Receive|Start|Stop|Run|Terminate|Attach|Detach|Add|Remove|Set|Modify|Tag|Untag|Decrypt"
    r"|Encrypt|Generate|Publish|Subscribe|Query|Scan|Batch|Copy|Restore|Upload|Abort|Complete|Initiate"
    r"|Append|Options|Change|Enable|Disable|Import|Export|Associate|Disassociate|Register|Deregister)"
    r"(?:[A-Z][A-Za-z]*)?\*?$"
)
# A value in round brackets, maybe ending a sentence: what a run of prose cut from a comment holds.
_BRACKETED_IN_PROSE = re.compile(r"\(([^()\s]{3,})\)[.,;:]?")
# A web page's asset by its file name, however many dotted parts it has (`bokeh-2.3.0.legacy.min.js`).
_WEB_ASSET = re.compile(r"^[\w\-/@]+(?:\.[\w\-]+)*\.(?:m?js|cjs|css|wasm|map)$")
# A resource's dotted name in lower-case parts, maybe dashed, maybe ending in a locale (TinyMCE's
# `tinymce.html-i18n.help-keynav.pt_BR`): three parts or more. A word shape: words joined by dots
# are a password a person may choose.
_DOTTED_RESOURCE = re.compile(r"^[a-z][a-z0-9\-]*(?:\.[a-z][a-z0-9\-]*){2,}(?:\.[a-z]{2}_[A-Z]{2})?$")
# A UUCP bang path, hosts and then a user (`From: hplabs!ames!ut-sally!james`): lower-case names
# joined by `!`. Words joined by a sign are a passphrase's shape, so this is one of the word shapes.
_BANG_PATH = re.compile(r"^[a-z][a-z0-9\-]*(?:![a-z][a-z0-9\-]*){3,}$")
# The version of a pin cut at its first `=` by a finder of values inside strings
# (`deps = "detect-secrets==1.5.0"` read as `detect-secrets = "=1.5.0"`, pyproject's `x = "==1.5"`).
_PIN_REST = re.compile(r"^=+\s*v?\d+\.\d[\w.\-+]*$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+Z?)?$")
# A timestamp whatever its date part holds (`201406-10T20:55:16.806027Z`, a test's malformed one).
_TIMESTAMP = re.compile(r"^[\d\-]{6,10}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+\-]\d{2}:?\d{2})?$")
# A date and time written as digits alone (`20240101T121212`, Wordfast's `%19000101~121212`).
_DIGIT_STAMP = re.compile(r"^%?\d{8}[~T_\-]?\d{6}$")
# An issue or pull request's number (`bug: #1331882`).
_ISSUE_NUMBER = re.compile(r"^#\d+$")
# A duration in Ruby's ActiveSupport (`reset_password_within = 6.hours`, `4.days.ago`).
_RUBY_DURATION = re.compile(
    r"^\d+(?:\.\d+)?\.(?:seconds?|minutes?|hours?|days?|weeks?|fortnights?|months?|years?)(?:\.(?:ago|from_now|since))?$"
)
# A type of Go through a pointer or a slice (`jwtTestDefaultKey *rsa.PublicKey`, `[]ecdsa.PrivateKey`).
_GO_TYPE = re.compile(r"^(?:\*|\[\])+[a-z][a-z0-9]*\.[A-Z][A-Za-z0-9]*$")
# A prompt a program waits for, one word and a colon (sshpass matches `"assword:"`).
_PROMPT = re.compile(r"^[A-Za-z][a-z]{2,}:$")
# A C preprocessor's directive (`Get rid of last PLUGIN_DEF_AUTH #ifdef`).
_PREPROCESSOR_DIRECTIVE = re.compile(r"^#(?:if|ifdef|ifndef|elif|else|endif|define|undef|include|import|pragma|error|warning|line)$")
# A member reached through a pointer in C, C++ or PHP (`can_auth = wo->neg_upap && ...`).
_MEMBER_ACCESS = re.compile(r"^\$?[A-Za-z_]\w*(?:->[A-Za-z_]\w*)+$")
# An ISO 8601 duration (`P0Y0M0DT12H0M0S`, `PT30S`).
_DURATION = re.compile(r"^P(?=\d|T\d)(?:\d+Y)?(?:\d+M)?(?:\d+W)?(?:\d+D)?(?:T(?=\d)(?:\d+H)?(?:\d+M)?(?:\d+(?:\.\d+)?S)?)?$")
# A list of numbers and ranges (an IMAP sequence set `2,4:7,9,12:*`, pages `1-3,5`).
_NUMBER_RANGES = re.compile(r"^(?:\d+|\*)(?:[:\-](?:\d+|\*))?(?:,(?:\d+|\*)(?:[:\-](?:\d+|\*))?)+$")
# One range of two numbers (an HTTP byte range `bytes=2772992-6781209`): see :func:`is_number_range`.
_NUMBER_RANGE = re.compile(r"^(?P<first>\d{1,18})-(?P<last>\d{1,18})$")
# An id number with its check digits (a tax id `1095312769-0`): a number, as digits alone are
# under any name. (Groups of equal length, `12345-67890-54321`, are a licence key's shape.)
_CHECK_DIGITS = re.compile(r"^\d{5,12}-\d{1,2}$")
# An SVG path's data (`191.7-144.3v43c-71.5`, `103v-340l68-33.2v384zM448`): numbers between the
# path commands' letters. A hex token holds letters outside them (`b`, `d`, `e`, `f`).
_PATH_DATA = re.compile(r"^[MmLlHhVvCcSsQqTtAaZz\d.,\-]+$")
# A reST role written without its target (`authData: :py:class:`...``): markup, not a value.
_REST_ROLE_VALUE = re.compile(r"^:[\w+\-]+(?::[\w+\-]+)?:$")
# A web analytics property's id, public in every page that loads the tag (Google Analytics 4's
# `G-DFLYZZK12P`, Universal Analytics' `UA-12345678-1`).
_ANALYTICS_ID = re.compile(r"^(?:G-[A-Z0-9]{8,12}|UA-\d{4,10}-\d{1,4})$")
# A GitHub App's client id (`Iv1.` and 16 hex, or `Iv23` and 16 letters and digits): public, sent
# in every authorization URL; its secret is another value.
_GITHUB_APP_CLIENT_ID = re.compile(r"^Iv(?:1\.[0-9a-f]{16}|23[A-Za-z0-9]{16})$")
# Substitutions alone (tox's `{env:OUT_DIR}{/}`, `{name}{ext}`): filled in where the value is used.
# Each is a name in one case, a `source:NAME` lookup or one sign; a braced run of mixed case and
# digits is a value (Jenkins writes its secrets `{AQAAABAAAA...}`).
_SUBSTITUTIONS = re.compile(r"^(?:\{(?:[a-z]+:[A-Za-z_][\w.\-]*|[a-z_]+|[A-Z_]+|[^\w\s{}]?)\})+$")
# A directive's or decorator's name (dynaconf's `@read_file`, `@pytest_fixture`): words after `@`.
_AT_NAME = re.compile(r"^@[a-z]+(?:_[a-z]+)+$")
# A state or token class of a Monarch grammar (Monaco's tokenizers: `token: "@brackets"`,
# `switchTo: "@enumBody.$S2"`, `"@topLevel.proto3"`): a name after `@`, maybe with the arguments
# of its state (`.$S<n>` copies one of the state's, a lower-case word is given). The keys of a
# Monarch action that take one.
_MONARCH_STATE = re.compile(r"^@(?P<name>[a-z][A-Za-z]*)(?P<arguments>(?:\.(?:\$(?:S\d|#)|[a-z][a-z0-9]*))*)$")
_MONARCH_ACTION_KEYS = frozenset({"token", "next", "switchTo", "bracket", "goBack", "nextEmbedded"})
# A firmware build names the releases of its parts (gpsd's SiRF `GSW3.2.4_3.1.00.12-SDK003P1`):
# two runs of three dotted numbers or more, which a drawn key holds by no chance.
_RELEASE_NUMBERS = re.compile(r"(?<![\d.])\d+(?:\.\d+){2,}")
_BUILD_LABEL = re.compile(r"^[A-Za-z0-9_.\-]+$")
# An NMEA 0183 sentence a GPS receiver sends (`$GPGGA,...`, a maker's own `$PLCS,REV,...`): fields of
# capitals and digits.
_NMEA_SENTENCE = re.compile(r"^[$!](?:[A-Z]{5}|P[A-Z]{3}[A-Z0-9]{0,4}),[A-Z0-9.,+\-*]*$")
# An angle in degrees or hours, minutes and seconds (`+45d16m49.3s`, `20h41m25.9s`, `-12:30:00.5`).
_SEXAGESIMAL = re.compile(r"^[+\-]?\d{1,3}(?:[dh]\d{1,2}m\d{1,2}(?:\.\d+)?s?|:\d{2}:\d{2}(?:\.\d+)?)$")
# A generic type in TypeScript, Java or C# (`TArg<KDFInput>`, `Promise<TRet<Uint8Array>>`, cut at
# its first comma: `TRet<CHashXOF<_BLAKE3`): names of code in angle brackets.
# Names of code hold one run of digits at most (`Uint8Array`, `BLAKE3`); keys scatter them.
_DIGIT_RUNS = re.compile(r"\d\D+\d")
_GENERIC_TYPE = re.compile(r"^(?P<names>[A-Z][A-Za-z0-9]*(?:<_?[A-Z][A-Za-z0-9_]*)+)>*(?:\[\])?$")
# A suite of RFC 9380's hashing to curves, the domain separation tag of a signature scheme
# (`BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_`): the suite's parts in capitals.
_HASH_TO_CURVE_SUITE = re.compile(r"^[A-Z0-9_\-]+_(?:XMD|XOF):[A-Z0-9\-]+_(?:SSWU|SVDW|ELL2)_(?:RO|NU)_[A-Z0-9_]*$")
# A compiler driver's option passed on to the linker, assembler or preprocessor (`-Wl,--version-script,...`).
_PASSED_ON_OPTION = re.compile(r"^-W[lap],-{0,2}[a-z][a-z\-]*(?:[,=][\w@/.\-]*)*$")
# A device's hardware id as Windows and firmware tools write it (`USB\\VID_1A86&PID_5512`).
_HARDWARE_ID = re.compile(
    r"^(?:USB|PCI|HID|ACPI|BTH|HDAUDIO)\\(?:VID|VEN)_[0-9A-Fa-f]{4}&(?:PID|DEV)_[0-9A-Fa-f]{4}(?:&(?:REV|MI|COL|SUBSYS)_[0-9A-Fa-f]{2,8})*$"
)
# A constant plus or minus a small number, as code indexes with it (`gre[SG_GID:SG_ADM+1]`).
_CONSTANT_ARITHMETIC = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+[+\-]\d{1,3}$")
# The option letters getopt takes (`"DVb:c:d:ehm:n:p:va:w:W:"`): letters, each maybe followed by
# one or two colons (it takes an argument).
_OPTION_LETTERS = re.compile(r"^[+\-:]?(?:[A-Za-z0-9?]:{0,2})+$")
_MAX_OPTION_RUN = 4
# A markup entity cut at its `;` (`rf&#34` is HTML for `rf"`): a page's text, not a value.
_ENTITY_CUT = re.compile(r"&(?:#\d{2,4}|#x[0-9a-fA-F]{2,4}|quot|amp|lt|gt|apos)$")
# The close of a URI template's optional part after user info (`[secret:key@]bucket/object`).
_OPTIONAL_PART_CLOSE = re.compile(r"@\]")
# A folder's name with its closing slash, a prefix paths are built on (`template_prefix = "wagtaillocales/"`).
_FOLDER_PREFIX = re.compile(r"^[a-z][a-z0-9_.\-]*/$")
# A service's code: capitals then a number (Azure AD's `AADSTS7000215`, `ERR20001`).
_CODE_NUMBER = re.compile(r"^[A-Z]{3,8}\d{4,10}$")
# An integer written in hex for code, quoted (`b"0xfe11ac99bebe3322"`): 64 bits at most, where a
# key written so is 128 bits or more.
_HEX_INTEGER = re.compile(r"^0[xX][0-9a-fA-F]{1,16}$")
# The last extension holds a letter: `violet.lotus.396` is a password, `notes.v2.txt` a file.
_FILE_NAME = re.compile(rf"^[\w\-]+(?:\.{_EXTENSION})*\.(?=[A-Za-z0-9]{{0,4}}[A-Za-z]){_EXTENSION}$")
# Names of code, dotted or not; a documentation reference may lead with `~` or `.` (Sphinx's
# `~pkg.mod.Class`, `.Class` relative to the module) and a module prefix ends in a dot
# (`pkg.mod.` before a class name in rendered API docs).
_IDENTIFIER = re.compile(r"^[~.]?[A-Za-z_$][A-Za-z_$]*(?:[.:][A-Za-z_$][A-Za-z_$]*)*\.?$")
# Decimal numbers with digit separators or an exponent (TOML, Rust, Python, Java literals):
# `224_617.445_991_228`, `1_000_000`, `6.626e-34`. Hex keys (`0x4c08...`) are not numbers here.
_NUMBER = re.compile(r"^[+-]?\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?$")
# A number with its unit (`-0.00202266700216569s`, `250ms`, `1.5GB`).
_QUANTITY = re.compile(r"^[+-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?:[a-zA-Zµ]{1,3}|%)$")
# Quantities with their units in arithmetic (`225lb/(7ft+2in)`, `9.81m/s^2`: a units converter's input).
_QUANTITY_EXPRESSION = re.compile(
    r"^\(?\d+(?:\.\d+)?[a-zA-Zµ]{1,3}(?:\)?[/*+\-^]\(?(?:\d+(?:\.\d+)?)?(?:[a-zA-Zµ]{1,3}\d?)?)+\)?$"
)
# A machine size written as quantities joined by `-`, `_` or `x` (a flavor `4C-4GB-100GB`,
# `2vCPU-8GiB`, `1x4GB`): every part a number with a unit of cores or bytes.
_SIZE_PART = r"\d+(?:[cCgGmMkKtT]|[kKmMgGtTpP]i?[bB]|v?cpus?|vCPUs?|cores?)"
_SIZE_SPEC = re.compile(rf"^{_SIZE_PART}(?:[-_x]{_SIZE_PART})+$")
# An object's id with its type before `_` and a time-ordered body that opens with `01` (a ULID's
# first characters until 2039): Anthropic's `wrkspc_011CZkZaBF1tNoB5wlCeusgy`, `evt_01HQ3K...`.
_TYPED_ULID = re.compile(r"^[a-z]{2,12}_01[0-9A-Za-z]{20,30}$")
# An id written with its type before a colon (:data:`ID_TYPE_PREFIX`: `id:a4ayc_80_OEAAAAAAAAAYa`).
_TYPED_ID = re.compile(rf"^{ID_TYPE_PREFIX}[A-Za-z0-9_\-]+$")
# A YAML tag (`!encrypted/pkcs1-oaep`, `!!binary`, `!GetAtt`): how the node below it is read. Its
# words are lower case or capitalised whole, never mixed with digits as a password is (`!Passw0rd`).
_YAML_TAG = re.compile(r"^!!?(?:[a-z][a-z0-9.\-]*|(?:[A-Z][a-z]+)+)(?:/[a-z0-9.\-]+)*$")
# An RFC named by its number (`eddsa.new(key, "rfc8032")` picks the RFC's variant).
_RFC_NAME = re.compile(r"^rfc[- ]?\d{3,5}$", re.IGNORECASE)
# `KEY:value` properties joined by commas (`ENVIRONMENT:azure,TOKEN_RESOURCE:x`): settings.
_PROPERTY_LIST = re.compile(r"^[A-Z][A-Z0-9_]*:[^,:\s]*(?:,[A-Z][A-Z0-9_]*:[^,:\s]*)+$")
# A format with `%` fields and words (`dump_%N.%P.core`, `%Y-%m-%d_backup`): a pattern of names.
_PERCENT_FIELD = re.compile(r"%[A-Za-z]")
# The open bracket of a link or tag before a word (`<https`, `<span`), cut where the value ends.
_OPEN_BRACKET_WORD = re.compile(r"^<[a-z][a-z0-9+.\-]*$")
# Command-line options (`--shared`, openssl's `-genkey`): a flag, never its value (`-p<password>`,
# a letter glued to a value of mixed cases and digits, is a value).
_LONG_OPTION = re.compile(r"^(?:--[a-z][a-z0-9]*|-[a-z]{3,})(?:-[a-z0-9]+)*$")
# Numbers with digit groups: `13,785,482`, `1_000_000`.
# A currency sign may lead: `$1,250,000`, `€12,500.00` is an amount in a table or a demo.
_GROUPED_NUMBER = re.compile(r"^[$€£¥]?\d{1,3}(?:([,_])\d{3})(?:\1\d{3})*(?:\.\d+)?$")
# Relative paths to a file: `smscan/model/passes.py`, `$DATA/secrets/labels.jsonl`,
# `pkg{d}/sub/m{i}.py`. Base64 holds `/` but no `.`; passwords hold `.` but rarely `/`.
# A query or fragment may follow, as in a stylesheet's `url(fonts/icons.4f2c1d.eot?#iefix)`.
_RELATIVE_PATH = re.compile(r"^[\w.${}+\-]+(?:/[\w.${}+\-]+)+\.[a-z][a-z0-9]{0,4}(?:[?#][\w=&#.\-]*)?$")
# An action or package at a named ref or pinned to a commit: `OWNER/smscan@REF`,
# `actions/checkout@main`, `re-actors/alls-green@release/v1`, `re-actors/alls-green@05ac9388...`
# (a workflow's `uses:`, pinned by its full commit id as hardening guides ask).
_REPOSITORY_AT_REF = re.compile(r"^[\w.\-]+/[\w.\-]+@(?:[A-Za-z][A-Za-z0-9._\-]*(?:/[A-Za-z0-9._\-]+)*|[0-9a-f]{7,40})$")
# A parameter's name written with its `=` (`X-Amz-Credential=`), or the name compared by `==`
# (`platform_python_implementation=="PyPy"`, a pin's environment marker): words, no value.
# Names written in CamelCase or CONSTANT_CASE count too (`SharedAccessKeyName=`, `AUTH0_CLIENT_SECRET=`):
# base64 padding follows random characters, never whole capitalised words or upper-case words
# joined by `_`.
_PARAMETER_NAME = re.compile(
    r"^(?:[A-Za-z]+(?:[-_.][A-Za-z]+)+|(?:[A-Z][a-z]{2,}){2,}|[A-Z][A-Z0-9]*(?:_[A-Z][A-Z0-9]*)+)==?$"
)
# Names of encodings, never a value's secret (`Buffer.from(key, "base64")` read under `accountKey`).
# Charsets' registered names too (`ANSI_X3.4-1968`, `ISO-8859-15`, `windows-1252`, `Shift_JIS`).
_ENCODING_NAME = re.compile(
    r"^(?:base(?:16|32|58|64)(?:url)?|hex|utf-?(?:8|16|32)(?:[-_]?(?:le|be|sig))?|ucs-?[24]|ascii|latin-?1|binary"
    r"|ansi_x3\.4-19(?:68|86)|(?:us-)?ascii|iso[-_]?8859[-_]\d{1,2}(?::19\d\d)?|iso[-_]?646[-.\w]*|windows-125\d"
    r"|cp\d{3,5}|ibm\d{3,5}|koi8-[rut]|euc-(?:jp|kr|cn|tw)|shift[_-]jis|gb(?:2312|k|18030)|big5(?:-hkscs)?)$",
    re.IGNORECASE,
)
# A route to a controller's action (`cms/sites/passwords#edit`, Rails' `to:`): words, `/`, `#action`.
_ROUTE = re.compile(r"^[a-z_]+(?:/[a-z_]+)+#[a-z_]+$")
# A host and path written without a scheme (`some-bucket.s3.amazonaws.com/171ea24d...`): two dots in
# the host, a top-level domain of letters, then `/`.
_HOST_PATH = re.compile(r"^(?:[a-z0-9\-]+\.){2,}[a-z]{2,}(?::\d+)?/")
# A host of one dot and a path of lower-case words (`pie.dev/bearer`, `example.org/api/v1`).
_SHORT_HOST_PATH = re.compile(r"^[a-z0-9\-]+\.[a-z]{2,}(?::\d+)?(?:/[a-z0-9_\-]+)+/?$")
# snake_case names with digits (`auth_provider_x509_cert_url`): three words or more, each letters and
# then digits. A password a person chose can take this shape (`sunny_meadow_cat7`), so it is
# one of the word shapes (``words=``) that a password place keeps.
_SNAKE_NAME = re.compile(r"^[a-z]+[0-9]*(?:_[a-z]+[0-9]*){2,}$")
# Amazon resource names: `arn:aws:iam::aws:policy/IAMUserChangePassword` names a thing.
_ARN = re.compile(r"^arn:aws[\w\-]*:[\w\-]+:[\w\-]*:(?:\d{12}|aws)?:")
# A reference to an attribute or constant of code (`X25519.secret_length`): dotted names whose
# last part is words in snake_case, as a random password's dotted tail (`Kp4T.xQ8m`) never is
# (camelCase is left out: `.lqHjfmuJde` is a random tail as often as a name).
_ATTRIBUTE_REFERENCE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\.[a-z]{2,}(?:_[a-z]{2,})+$")
# Two lower-case words joined by a hyphen (`held-out`, `re-fed`, `read-only`): a compound word;
# a passphrase has more words or digits (:mod:`smscan.detectors.passphrases`).
_COMPOUND_WORD = re.compile(r"^[a-z]{2,}-[a-z]{2,}$")
# A package's name in lower-case parts, each two letters or more before any digit (Debian's
# `php-guzzlehttp-psr7`, `golang-github-lib-pq`): a drawn value mixes digits into its parts' starts,
# and words ending in digits are a passphrase (:func:`~smscan.detectors.passphrases.is_passphrase`).
_PACKAGE_NAME = re.compile(r"^[a-z]{2}[a-z0-9]*(?:[-.][a-z]{2}[a-z0-9]*){2,}$")
# An extension header's name (`X-Mailgun-Variables`, `X-Amz-Date`), and Mailgun's way of naming
# one in a message's fields (`h:X-Mailgun-Variables`): capitalised words after `X-`. Two
# capitalised words are a password a person may choose, so this is one of the word shapes.
_EXTENSION_HEADER = re.compile(r"^(?:[a-z]:)?X-[A-Z][a-z0-9]*(?:-[A-Z][a-z0-9]*)*$")
# Paths of code and types, each part a lower-case or CamelCase name: `&pyo3::Bound<`,
# `std::sync::Arc<Mutex>`; `Zq8x::P1sV` mixes cases and digits inside a part, as a key does.
_CODE_NAME = r"(?:[a-z_][a-z0-9_]*|(?:[A-Z][a-z]+\d*)+|[A-Z]+\d*)"
_TYPE_PATH = re.compile(rf"^[&*]?(?:{_CODE_NAME}::)+{_CODE_NAME}(?:<[\w:&<>, ]*>?|\(\)|\[\])?$")
# A type written as a string (a forward reference, `cast("t.Iterable[V]", x)`): a name of letters,
# maybe dotted, subscripted by such names (`type[_TAnyCC]`, `dict[str, t.Any]`, `Optional[Foo]`).
# Keys mix digits into their letters; type names keep them out.
_TYPE_NAME = r"[A-Za-z_][A-Za-z_]*(?:\.[A-Za-z_][A-Za-z_]*)*"
_TYPE_EXPRESSION = re.compile(
    rf"^{_TYPE_NAME}\[{_TYPE_NAME}(?:\[[\w., |]*\])?(?:\s*[,|]\s*{_TYPE_NAME}(?:\[[\w., |]*\])?)*\]$"
)
# A terminal's colour and cursor codes (`\e[0;1;30;40m`, `\033[1m`, `\x1b[2K`): styled text.
_TERMINAL_ESCAPE = re.compile(r"(?:\\e|\\033|\\x1[bB]|\\u001[bB])\[[\d;]*[A-Za-z]")
# URIs without `//`: tag URIs (RFC 4151, `tag:yaml.org,2002:map`) and URNs (`urn:ietf:rfc:2648`).
_NAME_URI = re.compile(r"^(?:tag:[\w.\-@]+,\d{4}(?:-\d{2}){0,2}:|urn:[A-Za-z0-9][A-Za-z0-9\-]{0,31}:)")
# A call of a named function with one quoted argument, as code quoted inside a string
# (`b'asset_url("site.3e1f9a.css")'` in a test of rewritten assets): code, not a value.
_CALL_OF_STRING = re.compile(r"""^[A-Za-z_][\w.]*\(\s*(?:"[^"]*"|'[^']*')\s*\)$""")
# Date and time pictures (`YYYY-MM-DD`, `[[HH:]MM:]ss[.uuuuuu]`, `dd.mm.yy`): every run of letters
# is one letter repeated and nothing else is a digit. A key never repeats each of its letters.
_PICTURE_RUN = re.compile(r"[A-Za-z]+")
_PICTURE_CHARS = re.compile(r"^[A-Za-z\[\](){}:;.,/\- %]+$")
# Escaped tab, newline and return: text laid out with white space (`"a\tb\n"`), a test input
# or a line of a message. Random bytes written as escapes use `\xNN` for nearly all of them.
_LAYOUT_ESCAPE = re.compile(r"\\[tnr]")
# A line of a message ends in an escaped newline (gettext headers, printed text: `"path/x/)\n"`);
# random bytes written with escapes (`b'\x8f...\n'`) hold `\x`.
_LINE_END_ESCAPE = re.compile(r"^(?!.*\\x).*\\n$")
# Escaped code points above a byte (`\u3028`, `\U00043efa`): Unicode text written with escapes (a
# test of how text is escaped). A key's random bytes are bytes, written `\xNN`.
_CODE_POINT_ESCAPE = re.compile(r"\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}")
# Any escaped character, read out to find text written with escapes (`P\u0159ehled`, `tEXtDepth\x00`).
_ANY_ESCAPE = re.compile(r"\\(?:u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|x[0-9a-fA-F]{2})")
_OCTAL_OR_LAYOUT_ESCAPE = re.compile(r"\\(?:[0-7]{3}|[tnr])")
# A DOI (`10.21105/joss.01277`): a registered name of a paper or a dataset.
_DOI = re.compile(r"^(?:doi:)?10\.\d{4,9}/\S+$", re.IGNORECASE)
# Security advisories' ids: GitHub's (`GHSA-v6wp-4m6f-gcjg`, its own alphabet), CVE, PYSEC.
_ADVISORY_ID = re.compile(r"^(?:GHSA(?:-[23456789cfghjmpqrvwx]{4}){3}|CVE-\d{4}-\d{4,}|PYSEC-\d{4}-\d+)$")
# A Windows security identifier (`S-1-5-18` is LocalSystem) and an iSCSI qualified name
# (`iqn.1993-08.org.debian:01:44a42c8ddb8b`) name principals and devices, publicly.
_PRINCIPAL_NAME = re.compile(r"^(?:S-1-\d+(?:-\d+){1,14}|iqn\.\d{4}-\d{2}\.[a-z0-9\-]+(?:\.[a-z0-9\-]+)+(?::\S+)?)$")
# An Ethereum address (`0x` and 40 hex digits, its checksum in the case of the letters): public,
# where a private key is 64 hex digits. A cloud region (`eu-west-1`, `us-central1`, `ap-southeast-2`).
_PUBLIC_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
_CLOUD_REGION = re.compile(
    r"^(?:us|eu|ap|sa|ca|me|af|il|mx|cn|us-gov|europe|asia|australia|northamerica|southamerica)-"
    r"(?:north|south|east|west|central|northeast|southeast|northwest|southwest)\d?(?:-\d)?$"
)
# Rate limits as throttling settings write them: `5/m`, `20/m/ip,5/m/key`, `100/hour`.
_RATE_LIMIT = re.compile(r"^\d+/(?:[smhd]|sec|min|hour|day)(?:/\w+)?(?:,\d+/(?:[smhd]|sec|min|hour|day)(?:/\w+)?)*$")
# A character or two written as escapes (`\xd1\x91`, `\u0451`): a letter in a test, too short for a key.
_ESCAPED_CHARACTERS = re.compile(r"^(?:\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}){1,4}$")
# Percent-encoded text: what it decodes to is words (`El+Ni%C3%B1o` is "El Niño").
_PERCENT_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")
_DECODED_WORDS = re.compile(r"^[^\W\d_]+(?:[ \-'][^\W\d_]+)*$")
# Grammar notation: an ABNF repetition of a rule (`1*tchar`, `*DIGIT`, `1*3ALPHA`, RFC 5234).
_GRAMMAR_REPETITION = re.compile(r"^\d*\*\d*<?[A-Za-z][A-Za-z0-9\-]*$")
# A regular expression's character class with its repetition (`[{_TCHAR}]+`, `[a-z0-9]*`).
_REGEX_CLASS = re.compile(
    r"\[[^\]\s]+\][+*?]|\[:(?:alnum|alpha|digit|lower|upper|space|punct|xdigit|word|blank|cntrl|graph|print):\]"
)
# A name set in markup emphasis in prose (`*verify_ssl*`, ``` ``timeout`` ```, `_static_`).
_EMPHASISED_NAME = re.compile(r"^(\*{1,2}|`{1,2}|_)[A-Za-z_][\w.]*\1$")
# A constant's name in capitals and digits, three parts or more (`OP_NO_TLSv1_1`, `SSL_OP_NO_SSLv2`).
_CONSTANT_NAME = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9][A-Za-z0-9]*){2,}$")
# Words joined by `-` or `_` (or one CamelCase name) in two or more `/` parts, a version or an HTTP
# method among them, and maybe a REST custom method after a colon: a path of names
# (`cred-type/sa-jwt`, `host/hr_swinst`, `v1/secret/data`, `pypi/FlaskLike`, `iid/v1:batchAdd`, `GET/list`,
# a word holding digits: `gem2deb/rake/testtask`), maybe between slashes (`api/v1/modelomparentapi/`).
_WORD_PART = r"(?:[a-z]{2,}(?:\d+[a-z]*)?(?:[-_][a-z]{2,})*|(?:[A-Z][a-z]+)+|v\d+|GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)"
_WORD_PATH = re.compile(rf"^/?{_WORD_PART}(?:/{_WORD_PART})+(?:/|:[a-z]+(?:[A-Z][a-z]+)*)?$")
# A REST path, a version then words, to one object by its id (`v1/payments/billing-plans/P-5VH6...`);
# :data:`SECRET_PATH_WORD` in a part makes the last one a key (`v1/hooks/<token>`), as in a URL.
_API_PATH_TO_ID = re.compile(r"^/?v\d+(?P<words>(?:/[a-z][a-z_\-]*)+)/[A-Za-z0-9][A-Za-z0-9_\-]*$")
# A relative Windows path of lower-case names (`crypto_box\\curve25519xsalsa20poly1305`, a Visual
# Studio filter): each part may open with a capital, never mixes cases like a key.
_BACKSLASH_PATH = re.compile(r"^[A-Za-z_][a-z0-9_.\-]*(?:\\{1,2}[A-Za-z_][a-z0-9_.\-]*)+\\?$")
# A code made of capitalised words and numbers joined by hyphens (`T-WIN-2012-DATACTR-64-2-4-50`, an
# image's name): a drawn key mixes letters and digits inside its groups (`3MY8N-WGW78-...`).
_CODE_OF_WORDS = re.compile(r"^(?=(?:.*?(?:^|-)[A-Z]{2,}(?=-|$)){2})(?:[A-Z]+|\d+)(?:-(?:[A-Z]+|\d+)){3,}$")
# A thing's name with its id in brackets (`CaaS-QA[10-209-120-14_<uuid>]`, a server in an audit log).
_NAME_WITH_ID = re.compile(
    r"^[A-Za-z][\w.\-]*\[[\w.\-]*[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}[\w.\-]*\]$"
)
# camelCase names of code joined by underscores (`dpiOciFnType__lobTrim2`, a C typedef): every
# capital opens a lower-case word, digits close a name, where a drawn key puts them anywhere.
_JOINED_CAMEL_NAMES = re.compile(r"^[a-z]{2,}(?:[A-Z][a-z]+)+\d*(?:__?[a-z]{2,}(?:[A-Z][a-z]+)*\d*)+$")
# Ids of cloud resources, public in every template that launches them: AWS's `ami-7f418316`,
# `sg-0a1b2c3d4e5f60718`, `subnet-...` (8 or 17 hex digits after the resource's prefix).
_CLOUD_RESOURCE_ID = re.compile(
    r"^(?:ami|aki|ari|sg|subnet|vpc|vpce|igw|eigw|rtb|acl|eni|vol|snap|i|eipalloc|nat|pcx|tgw|lt|dopt|cgw|vgw|vpn|fs|fsmp)"
    r"-(?:[0-9a-f]{8}|[0-9a-f]{17})$"
)
# An LDAP distinguished name: two or more `type=value` parts of the standard attribute types
# (`cn=root,ou=CSEE,o=UQ,c=AU`, `dc=example,dc=com`): where an entry is, not a secret.
_DISTINGUISHED_NAME = re.compile(
    r"^(?:cn|ou|o|dc|c|uid|l|st|street|sn|mail)=[^,=+\s][^,=+]*(?:,[ \t]*(?:cn|ou|o|dc|c|uid|l|st|street|sn|mail)=[^,=+]+)+$",
    re.IGNORECASE,
)
# Classes of a versioned API named by their version (Kubernetes' `V1SecretReference`,
# `V1beta1CustomResourceDefinition`): a version, then capitalised words.
_VERSIONED_CLASS = re.compile(r"^V\d+(?:(?:alpha|beta)\d+)?(?:[A-Z][a-z]+){2,}$")
# An extension's name (`X-BINDPW`, an LDAP URL's extension type; headers in any case: `X-Request-ID`,
# `X-FuNkY-HeADeR`): letters, words joined by hyphens.
_EXTENSION_NAME = re.compile(r"^X-(?:[A-Z][A-Z0-9]*(?:-[A-Z][A-Z0-9]*)*|[A-Za-z]+(?:-[A-Za-z]+)+)$")
# A JSONPath template (kubectl's `{.access_token}`, `{.items[*].metadata.name}`): where a value is read.
_JSONPATH_TEMPLATE = re.compile(r"^\{\.[\w.\[\]*@?()'\"=\- ]*\}$")
# Datadog's client tokens (`pub` and 32 hex digits) are made to be public: browsers send them
# with every log and RUM event.
# A Programmable Search Engine's id (`cx`: 21 digits, `:`, 11 letters and digits) is written into
# every page that embeds the search box.
_PUBLIC_CLIENT_TOKEN = re.compile(r"^(?:pub[0-9a-f]{32}|\d{21}:[a-z0-9_\-]{11})$")
# `git describe` of a version: the tag, commits since it, `g` and the commit (`0.7-1-g574ab98-dirty`).
# setuptools-scm records the commit alone the same way (`"node": "g1a6b6121c..."`, `g` and 40 hex).
_GIT_DESCRIBE = re.compile(r"^(?:v?\d+(?:\.\d+)*-\d+-g[0-9a-f]{7,40}(?:-dirty)?|g[0-9a-f]{40})$")
# Arithmetic on numbers (`2^252+27742317777372353535851937790883648493`, a group's order); numbers
# joined by `-` alone are a code (a phone or an account number).
_NUMBER_EXPRESSION = re.compile(r"^\d+(?:[+\-*/^]\d+)*[+*/^]\d+(?:[+\-*/^]\d+)*$")
# A Python `struct` format: a byte order, then type codes with counts (`<HHHH16sIIIIQQHHI`).
_STRUCT_FORMAT = re.compile(r"^[<>!=@](?:\d*[xcbB?hHiIlLqQnNefdspP]){4,}$")
# A version with the variant it names (`3.x_password`, `2.0_voms`: an auth plugin's version).
_VERSIONED_LABEL = re.compile(r"^\d+(?:\.(?:\d+|x))+_[a-z]+(?:_[a-z]+)*$")
# A host's name led by its IPv4 address written with dashes (`ip-10-0-1-23`, `10-209-120-14_<uuid>`).
_DASHED_ADDRESS_NAME = re.compile(r"^(?:ip-)?\d{1,3}(?:-\d{1,3}){3}(?:$|[_.\-])")
# JOSE algorithm names (RFC 7518, 8037, ECDH-1PU): parts such as `A256CBC`, `HS512`, `RSA`, `OAEP`,
# `ECDH`, `1PU`, `A128KW` joined by `-` or `+` (`A256CBC-HS512`, `ECDH-1PU+A128KW`, `RSA-OAEP-256`).
_JOSE_PART = r"(?:A(?:128|192|256)(?:CBC|GCM|KW|GCMKW)?|[HRPE]S(?:256|384|512)K?|RSA(?:1_5)?|OAEP|ECDH|ES|1PU|PBES2|EdDSA|256|384|512)"
_JOSE_ALGORITHM = re.compile(rf"^{_JOSE_PART}(?:[-+]{_JOSE_PART})+$")
# An RFC 2047 encoded word (`=?utf-8?q?Sebasti=C3=A1n?=`): a header's text, a name in PKG-INFO.
_ENCODED_WORD = re.compile(r"^=\?[\w\-]+\?[QqBb]\?[^?\s]*\?=$")
# Code: a call's closing bracket before an attribute (`sas_token).url`).
_CALL_TAIL = re.compile(r"\)\.[A-Za-z_]")
# Fields of letters and a number joined by commas: a CDN's timing header (`S1481214079.394283,VS0,VE159`).
_LETTERED_NUMBERS = re.compile(r"^[A-Z]{1,3}\d+(?:\.\d+)?(?:,[A-Z]{1,3}\d+(?:\.\d+)?)+$")
# A numbered field of a completion spec or a format (`1:URL:_httpie_urls`, zsh's `_arguments`).
_NUMBERED_FIELD = re.compile(r"^\d+:[A-Za-z][\w ]*:[\w\-():]+$")
# Markup: a value that holds an HTML tag (`returned</p>`, `<b>note`; HTML writes them in lower case)
# was cut from a rendered page.
_MARKUP_TAG = re.compile(r"</?[a-z][a-z0-9]*>")
# An HTML character reference, named or numbered (`&Eacute;`, `&#233;`, `&#xE9;`); a named one
# counts only when HTML defines it (`&pass;` is no reference).
_HTML_ENTITY = re.compile(r"&(?:(?P<name>[A-Za-z]{2,8}\d{0,2})|#\d{2,6}|#[xX][0-9A-Fa-f]{2,5});")


def is_prose(value: str) -> bool:
    """True for words rather than a key: non-ASCII text, or letter words joined by ``-``/``'``.

    Credentials are ASCII; translations and labels (``Voorbeelden:``, ``没有提供足够的参数``)
    surprise an English-trained model without being secret.

    Example:
        >>> is_prose("Voorbeelden:"), is_prose("boshlang'ich"), is_prose("Zq8x-P1sV9")
        (True, True, False)
    """
    return not value.isascii() or bool(_WORD_RUN.match(value))


def is_escaped_word(value: str) -> bool:
    r"""True for a word written with escapes (``P\u0159ehled``, ``tEXtDepth\x00``): read without
    them it is letters alone. A key's bytes written as escapes leave digits and signs between
    them (``_5#y2L"F4Q8z\n\xec]/``).

    Example:
        >>> is_escaped_word("Sis\\u00e4llysluettelo"), is_escaped_word("q8\\x9fZ\\x01mN"), is_escaped_word("P&Eacute;REZ")
        (True, False, True)
    """
    rest, escapes = _ANY_ESCAPE.subn("", value)
    if escapes > 0 and rest.isalpha():
        return True
    # HTML's character references (`P&Eacute;REZ`, `caf&#233;`): a word as a page writes it.
    references = list(_HTML_ENTITY.finditer(value))
    if references and all(m.group("name") is None or m.group("name") + ";" in html5_entities for m in references):
        if _HTML_ENTITY.sub("", value).isalpha():
            return True
    # Serialized bytes around a dotted name, written with octal and layout escapes (a protobuf
    # descriptor's options: `\n\024com.coreos.jetcd.apiP\001`).
    rest, escapes = _OCTAL_OR_LAYOUT_ESCAPE.subn("", value)
    return escapes >= 2 and "." in rest and rest.replace(".", "").isalpha()


def is_encoded_text(value: str) -> bool:
    """True for base64 (or base32) that decodes to readable text (``aGVsbG8gd29ybGQ=``): data, not a key.

    Random key material almost never decodes to printable ASCII (for 12 bytes, odds of about
    1 in 10^5), while encoded messages, markup and JSON always do. A decoded ``user:password``
    pair (HTTP Basic credentials) is not mere text and stays a candidate.

    Example:
        >>> is_encoded_text("aGVsbG8gd29ybGQ="), is_encoded_text("YWRtaW46czNjcjN0"), is_encoded_text("q8Zt3kPx0wLm9Rv2")
        (True, False, False)
    """
    decoded = _base64_decoded(value)
    # Capitals and the digits 2 to 7 also read as base32 (RFC 4648), the encoding of TOTP
    # secrets: `GEZDGNBVGY3TQOJQ...` is the digits `1234567890...`, a test's stand-in.
    base32 = _base32_decoded(value)
    if base32 is not None and all(32 <= byte < 127 for byte in base32):
        decoded = base32
    if decoded is None:
        return False
    printable = [_is_text_byte(byte) for byte in decoded]
    readable = all(printable)
    # Text with a byte or two garbled (a corrupted copy) is still text: random bytes are printable
    # about 37% of the time, so 90% of sixteen or more is far beyond chance.
    mostly_readable = len(decoded) >= 16 and sum(printable) >= 0.9 * len(decoded)
    # Binary that is a file or an archived object is data; readable text is judged below. Bytes
    # whose readable part carries a key (a token prefix glued before base64 JSON, `ops_eyJ...`; a
    # base64 PEM key cut mid-character) are that key, not data.
    if not readable and not mostly_readable and len(decoded) >= 12 and is_structured_data(decoded):
        return not any(not is_stand_in(run) for run in key_runs(decoded.decode("latin-1")))
    if len(decoded) < 6 or not (readable or mostly_readable):
        return False
    text = "".join(chr(byte) if ok else " " for byte, ok in zip(decoded, printable))
    # Text that carries a key (`{"k":"Jzz7CvXb...","id":1}`, a vendor key wrapped once more in
    # base64, `<uuid>:<secret>`) is that key encoded, unless the key is itself a stand-in
    # (`{"k":"EXAMPLE..."}`, `abcdefghijklmnopqrstuvwxyz1234567890...`).
    if any(not is_stand_in(run) for run in key_runs(text)):
        return False
    # A user:password pair is a credential, unless it is a stand-in pair such as foo:bar.
    return not _CREDENTIAL_PAIR.match(text) or is_placeholder(text.replace(":", " "))


# Binary data in base64 this long or longer is a payload (firmware, an image, a font), not a key:
# twice a 512-bit HMAC key, the longest secret drawn as raw bytes; a private key this long is
# DER, whose first byte opens a SEQUENCE.
_MIN_BLOB_BYTES = 128
_DER_SEQUENCE_BYTE = 0x30
_MAX_BLOB_PRINTABLE_SHARE = 0.75  # random bytes are about 38% printable; text is all of it


def is_encoded_blob(value: str) -> bool:
    """True for base64 of 128 bytes or more that is no DER structure (esptool's flasher stubs,
    an embedded image): data a file carries, never a secret's value unless a name says so.

    Example:
        >>> is_encoded_blob(base64.b64encode(bytes(range(1, 256)) * 2).decode()), is_encoded_blob("Zq8xP1sV9kL2mN4b")
        (True, False)
        >>> is_encoded_blob(base64.b64encode(b"eyJhbGciOiJSUzI1NiJ9." * 10).decode())  # text: a JWT wrapped again
        False
    """
    if len(value) < _MIN_BLOB_BYTES * 4 // 3:
        return False
    decoded = _base64_decoded(value)
    if decoded is None or len(decoded) < _MIN_BLOB_BYTES or decoded[0] == _DER_SEQUENCE_BYTE:
        return False
    # Binary, not encoded text: a token or a key file wrapped in base64 once more reads as text
    # (`ZXlKaGJHY2lP...` is a JWT) and is judged as text is.
    printable = sum(_is_text_byte(byte) for byte in decoded)
    return printable < _MAX_BLOB_PRINTABLE_SHARE * len(decoded)


def _is_text_byte(byte: int) -> bool:
    """A byte of text: printable ASCII, a tab or a line break."""
    return 32 <= byte < 127 or byte in (9, 10, 13)


# A part of a path that is a word (`api`, `users`, `v1`), which no base64 run spells but by chance.
_PATH_WORD = re.compile(r"[a-z]{2,}\d*|v\d+")
_ESCAPED_PADDING = re.compile(r"\\u003[dD]")


def _base64_decoded(value: str) -> bytes | None:
    """The bytes of a base64 value of twelve characters or more (either alphabet), else None; a
    padding sign JSON escaped (`MDEyOk9yZ2FuaXphdGlvbjE\\u003d`, as Gson writes it) is read as `=`."""
    value = _ESCAPED_PADDING.sub("=", value)
    if len(value) < 12 or not _BASE64.match(value):
        return None
    padded = value + "=" * (-len(value) % 4)
    try:
        return base64.b64decode(padded, altchars=b"-_" if ("-" in value or "_" in value) else None, validate=True)
    except (binascii.Error, ValueError):
        return None


# RFC 4648's base32 alphabet; sixteen characters (ten bytes) or more, as TOTP secrets are written.
_BASE32 = re.compile(r"^[A-Z2-7]{16,}=*$")


def _base32_decoded(value: str) -> bytes | None:
    """The bytes of a base32 value of sixteen characters or more, padding optional, else None."""
    if not _BASE32.match(value):
        return None
    body = value.rstrip("=")
    try:
        return base64.b32decode(body + "=" * (-len(body) % 8))
    except (binascii.Error, ValueError):
        return None


# A hex run long enough to be a key (96 bits), one case throughout, as keys and digests are written.
_HEX_KEY_RUN = re.compile(rb"(?<![0-9A-Za-z])(?:[0-9a-f]{24,}|[0-9A-F]{24,})(?![0-9A-Za-z])")


def encodes_hex_key(value: str) -> bool:
    """True for base64 whose bytes hold a hex key (``OJk4ZWE2MjYy...`` is base64 of ``8ea6262c1a43...``):
    some vendors issue a hex key wrapped once more in base64. Decoded, it reads as text, so
    :func:`is_encoded_text` calls it data; under a secret's name it is that secret, unless the hex
    is a stand-in (``0123456789abcdef...``).

    Example:
        >>> encodes_hex_key("OJk4ZWE2MjYyYzFhNDM2ZjlhYzE2ZTRjYjk3NmQ5YWFi"), encodes_hex_key("aGVsbG8gd29ybGQ=")
        (True, False)
        >>> encodes_hex_key("MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=")  # 0123456789abcdef twice
        False
    """
    decoded = _base64_decoded(value)
    if decoded is None:
        return False
    for run in _HEX_KEY_RUN.finditer(decoded):
        key = run.group().decode("ascii")
        if any(c.isdigit() for c in key) and any(c.isalpha() for c in key) and not is_stand_in(key):
            return True
    return False


# Headers of file formats that are written as base64 (images, archives, serialized objects):
# PNG, GIF, JPEG, PDF, zip, gzip, RIFF (WebP, WAV), Apple's binary plist and NSArchiver streams.
_FILE_MAGIC = (b"\x89PNG", b"GIF8", b"\xff\xd8\xff", b"%PDF", b"PK\x03\x04", b"\x1f\x8b", b"RIFF", b"bplist",
               b"\x04\x0bstreamtyped")
# A run of letters this long in random bytes has odds of about (52/256)^8, 1 in 350,000 a place.
_WORD_IN_BYTES = re.compile(rb"[A-Za-z]{8}")


def is_structured_data(decoded: bytes) -> bool:
    """True for decoded bytes that are a file or a serialized object, not key material: they
    start with a file format's header, or hold a run of eight letters (the class and field names
    of an archived object). Random key bytes do neither but by rare chance.

    Example:
        >>> is_structured_data(b"\\x04\\x0bstreamtyped\\x81\\xe8"), is_structured_data(b"\\x12NSMutableArray\\x00\\x93")
        (True, True)
        >>> is_structured_data(bytes(range(200, 232)))
        False
    """
    return decoded.startswith(_FILE_MAGIC) or bool(_WORD_IN_BYTES.search(decoded))


# Runs of key characters in decoded text: 16 or more, never a word or CamelCase words
# (`SomeSecretString` is text), nor an id of hex digits and dashes (a UUID in a report link's
# JSON names the report).
_KEY_RUN = re.compile(r"[A-Za-z0-9+/_\-]{16,}")
_CASE_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_HEX_ID = re.compile(r"^[0-9a-fA-F\-]+$")


# A dotted name of code whose parts hold digits (`rfc3412.sendPdu`): a module's or an object's
# lower-case name, then parts of letters and digits, separated by dots (a last `:part` allowed).
_DOTTED_PARTS = re.compile(r"^[a-z][A-Za-z0-9]*(?:\.[A-Za-z][A-Za-z0-9]*)+(?::[A-Za-z][A-Za-z0-9]*)?$")
_CAMEL_STEP = re.compile(r"[a-z][A-Z]")


def is_path_data(value: str) -> bool:
    """True for an SVG path's data cut out of its attribute: numbers and path commands, fewer
    letters than digits (as many, with a sign or a decimal point), or numbers alone with
    decimals. An icon set holds thousands of such runs, each one a model would otherwise score;
    a key's letters go beyond the commands' (`b`, `d`, `e`, `f`, ...).

    Example:
        >>> is_path_data("103v-340l68-33.2v384zM448"), is_path_data("14h2v3h3v2h-3v3h-2v-3h-3v-2h3z")
        (True, True)
        >>> is_path_data("1.5-1.5-.67-1.5-1.5.67-1.5")
        True
        >>> is_path_data("3c5a1c7a9c2a4c6a8c0a"), is_path_data("Zq8xP1sV9kL2mN4b")
        (False, False)
    """
    if len(value) < 8 or _PATH_DATA.match(value) is None:
        return False
    letters, digits = sum(c.isalpha() for c in value), sum(c.isdigit() for c in value)
    # Numbers alone are a path's only with decimals (`1.5-1.5-.67`): digits in groups joined by
    # hyphens are a licence key's shape.
    if letters == 0:
        return "." in value
    return letters < digits or letters == digits and any(c in ".-" for c in value)


def is_dotted_code_name(value: str) -> bool:
    """True for a dotted name of code whose parts may hold digits (``rfc3412.sendPdu``): it
    starts with a lower-case name, names a method or attribute in camelCase, and every run of
    letters in it is a word of three letters or more, where a random value with a dot
    (``q8zt3.kPx0wLm``) cuts into pieces of one or two. A passphrase of words and digits
    (``Valley.Zebra54``, ``valley.zebra54``) has no camelCase step.

    Example:
        >>> is_dotted_code_name("rfc3412.sendPdu"), is_dotted_code_name("rfc3412.receiveMessage:response")
        (True, True)
        >>> is_dotted_code_name("q8zt3.kPx0wLm"), is_dotted_code_name("Valley.Zebra54"), is_dotted_code_name("valley.zebra54")
        (False, False, False)
    """
    if not _DOTTED_PARTS.match(value) or not _CAMEL_STEP.search(value):
        return False
    pieces = _CASE_WORD.findall(value)
    return bool(pieces) and all(len(piece) >= 3 for piece in pieces)


def is_random_case(value: str) -> bool:
    """True for letters whose cases are mixed at random (``yqDVtkqPECriaLRi``, ``qyOIhJiM``), the
    shape of a key drawn from letters, never of a name of code: names put their capitals at word
    starts or in acronyms (``getHTTPResponse``, ``XMLHttpRequest``), so they cut into words of three
    letters or more, where a random mix cuts into many pieces of one or two.

    Example:
        >>> is_random_case("yqDVtkqPECriaLRi"), is_random_case("qyOIhJiM"), is_random_case("getHTTPResponseCode")
        (True, True, False)
        >>> is_random_case("XMLHttpRequest"), is_random_case("private_rGAPQJbhBx"), is_random_case("isOK")
        (False, False, False)
    """
    if len(value) < 8:
        return False
    pieces = _CASE_WORD.findall(value)
    short = sum(1 for piece in pieces if len(piece) <= 2)
    return short >= 3 and short >= 0.4 * len(pieces)


def key_runs(text: str) -> list[str]:
    """The runs of ``text`` shaped like a key: 16 or more key characters mixing both cases and
    digits, the cases at random rather than in words (``Jzz7CvXbpdRha0t9``).

    Example:
        >>> key_runs('{"k":"Jzz7CvXbpdRha0t9ZNEnnhaZjl3X","n":"backups"}'), key_runs("hello world, some-plain-words")
        (['Jzz7CvXbpdRha0t9ZNEnnhaZjl3X'], [])
    """
    runs = []
    for match in _KEY_RUN.finditer(text):
        run = match.group()
        if _HEX_ID.match(run):
            continue
        # Both cases and digits: ids of markup and code (`clip0_17259_236674`, SVG path data
        # `0H20000V400H0V0Z`) hold one case; words of text are three letters or more, where a
        # random mix of cases cuts into pieces of one or two.
        mixed = any(c.islower() for c in run) and any(c.isupper() for c in run) and any(c.isdigit() for c in run)
        short_pieces = sum(1 for word in _CASE_WORD.findall(run) if len(word) <= 2)
        if mixed and short_pieces >= 2:
            runs.append(run)
    return runs


def is_other_identifier(
    value: str, *, dotted_names: bool = True, addresses: bool = True, words: bool = True
) -> bool:
    """Shapes of other things (UUIDs are judged apart: :func:`is_uuid`): versions, URLs, paths, hosts, dates, digests, data URIs,
    globs and regexes, package references, plain names, numbers.

    ``dotted_names=False`` leaves out the shapes a random password takes by chance when it holds
    a dot, a star or a slash (:func:`is_dotted_name`: a file name, a relative path), for places
    where no file or host name is written; ``addresses=False`` those it takes when it holds an
    ``@`` too (an email, ``name@1.2``, ``owner/repo@ref``); ``words=False`` two words joined by
    a hyphen, the shape of a password a person chose (``sunny-meadow``), extension headers
    (``X-Mailgun-Variables``), snake_case words with digits, constants' names in capitals, paths
    of lower-case words, and letters in a random mix of cases (``yqDVtkqPECriaLRi``,
    :func:`is_random_case`).

    Numbers with separators, long options, pins, code types and parameter names are never a
    value under any name: ``tokens: 13,785,482`` counts tokens, ``api_key: std::sync::Arc<str>``
    is a field's type, ``--shared`` a flag.
    """
    # A value in quotes is what it quotes (a Markdown code span around a literal: `'/tmp/.s.PGSQL.5432'`),
    # and one in brackets closing a sentence what it brackets (`(GHSA-j456-xh4h-cpf2).`).
    if len(value) > 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    elif (bracketed := _BRACKETED_IN_PROSE.fullmatch(value)) is not None:
        value = bracketed.group(1)
    return bool(
        _VERSION.match(value)
        or _DIGEST_PREFIXED.match(value)
        or _DATA_URI.match(value)
        or _MEDIA_TYPE.match(value)
        or _SIGNING_SCOPE_END.match(value)
        or _SIGNING_SCOPE.match(value)
        or _PATTERN.search(value if dotted_names else _GLOB_EXTENSION.sub("", value))
        or len(_REGEX_ESCAPE.findall(value)) >= 2
        or _WINDOWS_PATH.search(value)
        or addresses and (_REFERENCE_AT_VERSION.match(value) or _EMAIL.match(value) or _REPOSITORY_AT_REF.match(value))
        or _REQUIREMENT.match(value)
        or _PRODUCT_TOKEN.match(value)
        or _URLISH.match(value) and not is_slashed_base64(value)
        or dotted_names and (
            _HOSTNAME.match(value) or _FILE_NAME.match(value) or _RELATIVE_PATH.match(value) or _SHORT_HOST_PATH.match(value)
        )
        or words and (_COMPOUND_WORD.match(value) or _SNAKE_NAME.match(value) or _EXTENSION_HEADER.match(value))
        or words and (_PACKAGE_NAME.match(value) and not is_passphrase(value) or is_number_range(value))
        or _IP.match(value)
        or is_ip_network(value)
        or _MACRO_FLAG.match(value)
        or words and _POLICY_ACTION.match(value)
        or words and _BANG_PATH.match(value)
        or _DATE.match(value)
        or _TIMESTAMP.match(value)
        or _DIGIT_STAMP.match(value)
        or _ISSUE_NUMBER.match(value)
        or _PREPROCESSOR_DIRECTIVE.match(value)
        or _PROMPT.match(value)
        or _RUBY_DURATION.match(value)
        or _GO_TYPE.match(value)
        or _MEMBER_ACCESS.match(value)
        or _DURATION.match(value)
        or _NUMBER_RANGES.match(value)
        or _HEX_INTEGER.match(value)
        or _REST_ROLE_VALUE.match(value)
        or is_path_data(value)
        or _CHECK_DIGITS.match(value)
        or _ANALYTICS_ID.match(value)
        or _GITHUB_APP_CLIENT_ID.match(value)
        # Letters in a random mix of cases are a name by shape, and a password drawn from letters
        # where a password is written (a word shape, kept by ``words=False``).
        or _IDENTIFIER.match(value) and (words or not is_random_case(value))
        or _NUMBER.match(value)
        or _QUANTITY.match(value)
        or _QUANTITY_EXPRESSION.match(value)
        or _SIZE_SPEC.match(value)
        or _TYPED_ID.match(value)
        or _RFC_NAME.match(value)
        or _YAML_TAG.match(value)
        or _PROPERTY_LIST.match(value)
        or len(_PERCENT_FIELD.findall(value)) >= 2 and re.search(r"[a-z]{3}", value) is not None
        or _OPEN_BRACKET_WORD.match(value)
        or _TYPE_PATH.match(value)
        or _LONG_OPTION.match(value)
        or _PIN_REST.match(value)
        or _GROUPED_NUMBER.match(value)
        or _PARAMETER_NAME.match(value)
        or _BRACKETED_HOST.match(value)
        or _CALL_OF_STRING.match(value)
        or _TYPE_EXPRESSION.match(value)
        or _TERMINAL_ESCAPE.search(value)
        or _NAME_URI.match(value)
        or is_format_picture(value)
        or is_algorithm_name(value)
        or len(_LAYOUT_ESCAPE.findall(value)) >= 2
        or len(_CODE_POINT_ESCAPE.findall(value)) >= 2
        or is_escaped_word(value)
        or _DOI.match(value)
        or _ADVISORY_ID.match(value)
        or _PRINCIPAL_NAME.match(value)
        or _PUBLIC_ADDRESS.match(value)
        or _CLOUD_REGION.match(value)
        or _RATE_LIMIT.match(value)
        or _ESCAPED_CHARACTERS.match(value)
        or is_percent_encoded_words(value)
        or _GRAMMAR_REPETITION.match(value)
        or _REGEX_CLASS.search(value)
        or _EMPHASISED_NAME.match(value)
        or words and _CONSTANT_NAME.match(value) and sum(c.islower() for c in value) <= 2
        or _NUMBERED_FIELD.match(value)
        or _LETTERED_NUMBERS.match(value)
        or _CALL_TAIL.search(value)
        or _JOSE_ALGORITHM.match(value)
        or _ENCODED_WORD.match(value)
        or words and (_WORD_PATH.match(value) or _BACKSLASH_PATH.match(value))
        or _is_api_path_to_id(value)
        or _CODE_OF_WORDS.match(value)
        or _DASHED_ADDRESS_NAME.match(value)
        or _VERSIONED_LABEL.match(value)
        or _NAME_WITH_ID.match(value)
        or _JOINED_CAMEL_NAMES.match(value)
        or _GIT_DESCRIBE.match(value)
        or _CLOUD_RESOURCE_ID.match(value)
        or _DISTINGUISHED_NAME.match(value)
        or _VERSIONED_CLASS.match(value)
        or _EXTENSION_NAME.match(value)
        or _JSONPATH_TEMPLATE.match(value)
        or _PUBLIC_CLIENT_TOKEN.match(value)
        or _NUMBER_EXPRESSION.match(value)
        or _STRUCT_FORMAT.match(value)
        or _LINE_END_ESCAPE.match(value)
        or _MARKUP_TAG.search(value)
        or _ARN.match(value)
        or _ENCODING_NAME.match(value)
        or _ROUTE.match(value)
        or _HOST_PATH.match(value)
        or _ATTRIBUTE_REFERENCE.match(value)
        or _SUBSTITUTIONS.match(value)
        or _AT_NAME.match(value)
        # Shapes of code and data a password could take by chance: word shapes, kept where a
        # password is written (`words=False`).
        or words and (
            value.count(".") >= 4 and _BUILD_LABEL.match(value) is not None and len(_RELEASE_NUMBERS.findall(value)) >= 2
            or _NMEA_SENTENCE.match(value) is not None
            or _SEXAGESIMAL.match(value) is not None
            or _HARDWARE_ID.match(value) is not None
            or _CONSTANT_ARITHMETIC.match(value) is not None
            or is_option_letters(value)
            or is_generic_type(value)
            or ("_XMD:" in value or "_XOF:" in value) and _HASH_TO_CURVE_SUITE.match(value) is not None
            or _PASSED_ON_OPTION.match(value) is not None
        )
        or _ENTITY_CUT.search(value)
        or _OPTIONAL_PART_CLOSE.search(value)
        or _FOLDER_PREFIX.match(value)
        or is_character_list(value)
        or dotted_names and words and (is_dotted_code_name(value) or _DOTTED_RESOURCE.match(value))
        or value.isdigit()
    )


def is_option_letters(value: str) -> bool:
    """True for getopt's option letters: each letter once, three or more of them taking an argument,
    a few letters at most between two that do (random text joined by colons has long runs).

    Example:
        >>> is_option_letters("DVb:c:d:ehm:n:p:va:w:W:"), is_option_letters("ho:v"), is_option_letters("Zq8x:P1s:V9kL")
        (True, False, False)
    """
    letters = value.lstrip("+-:").replace(":", "")
    runs = [run for run in value.lstrip("+-:").split(":") if run]
    return (
        _OPTION_LETTERS.match(value) is not None and value.count(":") >= 3 and len(letters) >= 5
        and len(set(letters)) == len(letters) and not _DIGIT_RUNS.search(letters)
        and max(map(len, runs)) <= _MAX_OPTION_RUN
    )


def is_slashed_base64(value: str) -> bool:
    """True for base64 that starts with `/` (once in 64 keys) and so reads as a path: a key run in
    it and no part a word of a path (`/api/v1/users/...`).

    Example:
        >>> is_slashed_base64("/T/rPJJQt5dKm1KLaWNjIaRhtV71W3vq/YCamp6SW3mmNC+g/biylNl"), is_slashed_base64("/etc/ssl/server.key")
        (True, False)
        >>> is_slashed_base64("/api/v1/users/Zq8xP1sV9kL2mN4bW7cR")
        False
    """
    return (
        value[:1] == "/" and _BASE64.match(value) is not None and bool(key_runs(value))
        and not any(_PATH_WORD.fullmatch(part) for part in value.split("/"))
    )


def is_generic_type(value: str) -> bool:
    """True for a generic type: names of code in angle brackets, none of them a random mix of cases.

    Example:
        >>> is_generic_type("TArg<KDFInput>"), is_generic_type("TRet<CHashXOF<_BLAKE3"), is_generic_type("Zq<xP1sV9kL2mN4bW>")
        (True, True, False)
    """
    match = _GENERIC_TYPE.match(value)
    return match is not None and not any(
        is_random_case(name) or _DIGIT_RUNS.search(name) for name in match["names"].replace("_", "").split("<")
    )


def is_monarch_state(value: str, key: str | None) -> bool:
    """True for a Monarch grammar's state or token class: one with a copied argument (`.$S2`)
    under any key, any under a key of a Monarch action (a key after `@` elsewhere is a password:
    `secret: "@asdfasf"`).

    Example:
        >>> is_monarch_state("@enumBody.$S2", "switchTo"), is_monarch_state("@brackets", "token")
        (True, True)
        >>> is_monarch_state("@asdfasf", "SECRET"), is_monarch_state("@dm1n", "token")
        (False, False)
    """
    match = _MONARCH_STATE.match(value)
    return match is not None and ("$" in match["arguments"] or key in _MONARCH_ACTION_KEYS)


def is_typed_ulid(value: str) -> bool:
    """True for an object's id with its type (Anthropic's `wrkspc_011CZkZaBF1tNoB5wlCeusgy`): an
    id where no name says secret; under a secret's name the same shape stays a candidate.

    Example:
        >>> is_typed_ulid("wrkspc_011CZkZaBF1tNoB5wlCeusgy"), is_typed_ulid("sk_Zq8xP1sV9kL2mN4bW7cRq8Zt")
        (True, False)
    """
    return _TYPED_ULID.match(value) is not None


def is_integrity_digest(name: str, value: str) -> bool:
    """True for a digest of a web page's script or style sheet under the file's name, as
    subresource integrity lists them (Bokeh's `"bokeh-0.3.js": "E41nFALn...ZGIV"`): base64 of 32,
    48 or 64 bytes, maybe after its algorithm (`sha384-...`). Under another file's name the same
    bytes are a key (a Kubernetes secret's `encryption.key`, a `master.key`).

    Example:
        >>> is_integrity_digest("bokeh-0.3.min.js", "sha384-" + "A" * 64), is_integrity_digest("app.css", "A" * 64)
        (True, True)
        >>> is_integrity_digest("encryption.key", "A" * 44), is_integrity_digest("app.js", "A" * 40)
        (False, False)
    """
    if not _WEB_ASSET.match(name):
        return False
    body = re.sub(r"^sha(?:256|384|512)-", "", value)
    # Integrity metadata is written in base64's standard alphabet, never the URL-safe one.
    raw = None if "-" in body or "_" in body else _base64_decoded(body)
    return raw is not None and len(raw) in (32, 48, 64)


def is_number_range(value: str) -> bool:
    """True for one range of two numbers, the first below the last (a byte range ``2772992-6781209``);
    a word shape, as a licence key of two digit groups is written where a key's name says so.

    Example:
        >>> is_number_range("2772992-6781209"), is_number_range("1-3"), is_number_range("67890-12345")
        (True, True, False)
    """
    match = _NUMBER_RANGE.match(value)
    return match is not None and int(match.group("first")) < int(match.group("last"))


def is_ip_network(value: str) -> bool:
    """True for an IPv6 address or an address block in CIDR form (``fd31:bf08:57cb::/48``,
    ``192.168.26.0/24``): what a network's settings write, never a secret; hex in colon groups
    parses as one only when it keeps the address's grammar.

    Example:
        >>> is_ip_network("fd31:bf08:57cb::/48"), is_ip_network("2001:db8::1"), is_ip_network("10.0.0.0/8")
        (True, True, True)
        >>> is_ip_network("ab:cd"), is_ip_network("1234"), is_ip_network("Zq8x:P1sV::9kL2")
        (False, False, False)
    """
    if value.count(":") < 2 and "/" not in value:
        return False
    try:
        ipaddress.ip_network(value, strict=False)
    except ValueError:
        return False
    return True


def is_service_code(value: str) -> bool:
    """True for capitals then a number (``AADSTS7000215``): an error or product code where no name
    says secret; under a key's name the same shape stays a candidate.

    Example:
        >>> is_service_code("AADSTS7000215"), is_service_code("KZ8PWRT4827")
        (True, False)
    """
    return _CODE_NUMBER.match(value) is not None


# Parts each all capitals or all digits joined by `-`, letters first: an instrument's symbol
# (`BTC-241227-41000-C`: a ticker, an expiry, a strike, call or put), a charset (`ISO-8859-1`).
_DASHED_CODE = re.compile(r"^[A-Z]{2,8}(?:-(?:[A-Z]{1,8}|\d{1,8})){2,}$")


_CAPITAL_PARTS = re.compile(r"^[A-Z][A-Z0-9]*(?:-[A-Z][A-Z0-9]*){2,}$")


def _is_api_path_to_id(value: str) -> bool:
    """True for a REST path to one object by its id, no part of it saying secret."""
    match = _API_PATH_TO_ID.match(value)
    return match is not None and SECRET_PATH_WORD.search(match.group("words")) is None


def is_dashed_code(value: str) -> bool:
    """True for a code of capitals and numbers in dashed parts, each part one or the other (an
    option's symbol ``BTC-241227-41000-C``), or a name of capital words (an SNMP module's
    ``HH3C-ENTITY-EXT-MIB``); a drawn key mixes letters and digits within its groups.

    Example:
        >>> is_dashed_code("BTC-241227-41000-C"), is_dashed_code("X7K2-M9P4-Q8R1")
        (True, False)
        >>> is_dashed_code("HH3C-ENTITY-EXT-MIB"), is_dashed_code("KZ8P-WRTX-4827-QM7D")
        (True, False)
    """
    if _DASHED_CODE.match(value) is not None and any(c.isdigit() for c in value):
        return True
    # A module's name in capital words (SNMP's `HH3C-ENTITY-EXT-MIB`): two words of three letters
    # or more among its parts, which a drawn key in dashed groups never spells.
    parts = value.split("-")
    return _CAPITAL_PARTS.match(value) is not None and sum(part.isalpha() and len(part) >= 3 for part in parts) >= 2


# Parts joined by `_`, each in one case or none, capitals before lower case or capitalised words
# (`_mul_1x1_mmx`, `OPENSSL_ia32cap_P`, `bn_GF2m_mul_2x2`, `NID_id_GostR3410_2001`): a symbol of code.
_SYMBOL_PART = r"(?:[a-z0-9]+|[A-Z0-9]+|[A-Z]+[0-9]*[a-z]+[0-9]*|(?:[A-Z][a-z]+)+[A-Z0-9]*)"
_SYMBOL_NAME = re.compile(rf"^_*{_SYMBOL_PART}(?:_{_SYMBOL_PART}){{2,}}$")


def is_symbol_name(value: str) -> bool:
    """True for a symbol of code in snake case with three parts or more, each part in one case,
    capitals before lower case or capitalised words (a function ``_mul_1x1_mmx`` or
    ``bn_GF2m_mul_2x2``, a variable ``OPENSSL_ia32cap_P``): where no name says secret, a string
    holding one names a function or a variable. A drawn value that holds two ``_`` by chance
    mixes cases within its parts.

    Example:
        >>> is_symbol_name("_mul_1x1_mmx"), is_symbol_name("OPENSSL_ia32cap_P"), is_symbol_name("q8Zt_3kPx0w_Lm9Rv2")
        (True, True, False)
    """
    return _SYMBOL_NAME.match(value) is not None and re.search(r"[A-Za-z]{2}", value) is not None


# A troff escape of a manual page: a font change (`\fIDUMP\fR`) or the zero-width `\&`.
_TROFF_ESCAPE = re.compile(r"\\f[BIRP]|\\&|\\e")  # a font change, a zero-width break, a printed backslash


def has_troff_escape(value: str) -> bool:
    r"""True for a value holding a manual page's font change or zero-width escape: the value is
    a word of the page's text.

    Example:
        >>> has_troff_escape(r"\fIDUMP\fR_\fIVHOSTS"), has_troff_escape(r"types\&"), has_troff_escape("Zq8x\\P1sV")
        (True, True, False)
        >>> has_troff_escape(r"1084839148.1212\en")  # `\e` prints the backslash of `\n`
        True
    """
    return _TROFF_ESCAPE.search(value) is not None


def is_character_list(value: str) -> bool:
    """True for letters listed in alphabetical order (strftime's ``aAbBcdHIjm...``, a character set,
    a typed counting pattern such as ``A1bC2dE3fG4h...``): ten or more letters, six of them
    different, each no earlier than the one before; a drawn value falls in order about once in 10!
    times.

    Example:
        >>> is_character_list("aAbBcdHIjmMpSUwWxXyYZ%"), is_character_list("Zq8xP1sV9kL2mN4bW7cR")
        (True, False)
    """
    letters = [c.lower() for c in value if c.isalpha()]
    return len(letters) >= 10 and len(set(letters)) >= 6 and all(a <= b for a, b in zip(letters, letters[1:]))


def is_character_set(value: str) -> bool:
    """True for a set of characters listed once each in any order (an alphabet, an ASCII-art
    ramp ``tfjrxnuvczXYUJCLQ0OZmwqpdbkhao``): 26 or more characters, none repeated. A drawn key of
    26 characters from 62 repeats one in all but about one draw in 500, and a longer one more; a
    key a person types often repeats none, so the judgement asks this of runs cut out of a longer
    string only.

    Example:
        >>> is_character_set("tfjrxnuvczXYUJCLQ0OZmwqpdbkhao"), is_character_set("Zq8xP1sV9kL2mN4bW7cRq8Zt3kPx")
        (True, False)
    """
    return len(value) >= 26 and len(set(value)) == len(value)


# Names of cryptographic algorithms as SSH, TLS and JOSE write them (RFC 4253, 5656, 8446, 7518):
# lower-case parts joined by `-`, one part a primitive's family with its size or variant
# (`ecdsa-sha2-nistp256`, `diffie-hellman-group14-sha256`, `hmac-sha2-512-etm@openssh.com`,
# `aes128-gcm`). A passphrase is made of dictionary words, never of these.
_PRIMITIVE = (
    r"(?:ssh|sha\d*|md5|hmac|aes\d*|rsa|dsa|dss|ecdsa|ecdh|ed25519|ed448|curve25519|curve448|nistp\d+|"
    r"chacha20|poly1305|diffie|hellman|umac|blake2[bs]?|pbkdf2|hkdf|gcm|cbc|ctr|ccm|etm|"
    # DES and its triple form as OpenSSL and PKCS #5 name them (`des-ede3-cbc`)
    r"des|ede\d?|"
    r"kex|gss|gex|group\d+|scram|ntlm|"
    # SASL's challenge-response mechanisms (`CRAM-MD5`, `DIGEST-MD5`, RFC 2195 and 2831)
    r"cram|digest|"
    # post-quantum and hybrid key exchanges (`sntrup761x25519-sha512`, `mlkem768x25519-sha256`)
    r"(?:sntrup\d+|mlkem\d+|kyber\d+)(?:x(?:25519|448))?|x25519|x448|"
    # key encodings (`pkcs8-pem`, `pkcs1-der`, `openssh-pem`)
    r"pkcs\d+|pem|der|openssh)"
)
# A named elliptic curve (SEC 2, X9.62, RFC 5639): `secp384r1`, `sect571k1`, `prime256v1`, `brainpoolP512t1`.
# Written in capitals too, as constants are (`BRAINPOOLP256r1`).
_CURVE_NAME = re.compile(
    r"^(?:sec[pt]\d{3}[rk]\d|prime\d{3}v\d|brainpoolP\d{3}[rt]\d|(?:ed|x|curve)(?:25519|448))$", re.IGNORECASE
)
# RFC 4462 names a GSS-API key exchange by its method and the base64 of its mechanism's MD5
# (`gss-group14-sha256-<24 characters ending in ==>`): a padded base64 part may end the name.
_ALGORITHM_NAME = re.compile(
    r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?:@[a-z0-9]+(?:[.\-][a-z0-9]+)*|-[A-Za-z0-9+/]{6,}={1,2})?$"
)
_ALGORITHM_PART = re.compile(rf"^{_PRIMITIVE}$")
# Primitives glued with no separator, as libsodium names its constructions (`hmacsha512256`, `x25519blake2b`).
_GLUED_PRIMITIVES = re.compile(rf"^{_PRIMITIVE}{{2,}}$")


def is_algorithm_name(value: str) -> bool:
    """True for the name of a cryptographic algorithm: lower-case parts joined by ``-`` (an
    ``@vendor`` may end it), at least two of them a primitive's family (``sha2``, ``nistp384``,
    ``hmac``, ``aes256``, ``gcm``), or a named elliptic curve (``secp384r1``).

    Example:
        >>> is_algorithm_name("diffie-hellman-group-exchange-sha256"), is_algorithm_name("aes128-gcm@openssh.com")
        (True, True)
        >>> is_algorithm_name("gss-group14-sha256-" + "q8Zt3kPx0wLm9Rv2aY7nBA=="), is_algorithm_name("sha2-Zq8xP1sV")
        (True, False)
        >>> is_algorithm_name("sunny-meadow-42"), is_algorithm_name("meadow-sha2-Zq8xP1sV==")
        (False, False)
        >>> is_algorithm_name("scram-sha-256"), is_algorithm_name("secp384r1"), is_algorithm_name("hmacsha512256")
        (True, True, True)
        >>> is_algorithm_name("Ed25519"), is_algorithm_name("X448"), is_algorithm_name("Ed25519x")
        (True, True, False)
        >>> is_algorithm_name("CRAM-MD5"), is_algorithm_name("digest-Zq8xP1sV")
        (True, False)
        >>> is_algorithm_name("des-EDE3-CBC"), is_algorithm_name("Zq8x-EDE3-CBC"), is_algorithm_name("sunny-MEADOW-cbc")
        (True, False, False)
    """
    # The same names in capitals (`GOOG4-RSA-SHA256`, `AWS4-HMAC-SHA256`), or with some parts in
    # capitals as OpenSSL's cipher lists write them (`des-EDE3-CBC`, `aes128-CBC`); a part that
    # mixes cases (`Zq8x-EDE3-CBC`) is no name's.
    if all(part.isupper() or part.islower() or part.isdigit() for part in value.split("@", 1)[0].split("-")):
        value = value.lower()
    if _CURVE_NAME.match(value) or _GLUED_PRIMITIVES.match(value):
        return True
    if not _ALGORITHM_NAME.match(value):
        return False
    parts = value.split("@", 1)[0].rstrip("=").split("-")
    return sum(bool(_ALGORITHM_PART.match(part)) for part in parts) >= 2


def is_percent_encoded_words(value: str) -> bool:
    """True for words written percent-encoded, as in a URL's query (``El+Ni%C3%B1o``): decoded,
    they are letters between spaces, hyphens or apostrophes, with a space or a letter beyond
    ASCII that only the encoding could carry. A password keeps its digits and symbols decoded.

    Example:
        >>> is_percent_encoded_words("El+Ni%C3%B1o"), is_percent_encoded_words("p%40ssw0rd"), is_percent_encoded_words("Zq8xP1sV")
        (True, False, False)
    """
    if not _PERCENT_ESCAPE.search(value):
        return False
    decoded = unquote_plus(value)
    return bool(_DECODED_WORDS.match(decoded)) and (" " in decoded or not decoded.isascii())


def is_format_picture(value: str) -> bool:
    """True for a date or time picture: two runs of letters or more, each one letter repeated,
    with brackets, separators and spaces between them and no digit.

    Example:
        >>> is_format_picture("YYYY-MM-DD"), is_format_picture("[[HH:]MM:]ss[.uuuuuu]"), is_format_picture("Zq8x-P1sV")
        (True, True, False)
        >>> is_format_picture("aaBB"), is_format_picture("ss")
        (False, False)
    """
    if not _PICTURE_CHARS.match(value):
        return False
    runs = _PICTURE_RUN.findall(value)
    return len(runs) >= 2 and all(len(set(run)) == 1 for run in runs) and any(len(run) >= 2 for run in runs)


def is_dotted_name(value: str) -> bool:
    """True for a file name, host name or ``*.ext`` glob: shapes that random passwords drawn
    from letters, digits and ``.-_*`` take by chance (``jMH3WyojU.Kr``, ``Lu4-VCD.ofnXn``).

    Example:
        >>> is_dotted_name("jMH3WyojU.Kr"), is_dotted_name("report-2024.pdf"), is_dotted_name("env.API_SECRET")
        (True, True, False)
    """
    return is_other_identifier(value) and not is_other_identifier(value, dotted_names=False)


def is_chance_name(value: str) -> bool:
    """True for a shape a password takes: one drawn with ``.``, ``-``, ``*``, ``/`` and ``@`` by
    chance (a file, host or glob name, a relative path: :func:`is_dotted_name`; an email address,
    ``name@version``, ``owner/repo@ref``), or one a person chose of two words (``sunny-meadow``).

    Example:
        >>> is_chance_name("Kp4TxQ8m@7.VbnRw"), is_chance_name("jMH3WyojU.Kr"), is_chance_name("v1.2.3")
        (True, True, False)
        >>> is_chance_name("ab/cd9X.key"), is_chance_name("sunny-meadow"), is_chance_name("--shared")
        (True, True, False)
    """
    return is_other_identifier(value) and not is_other_identifier(
        value, dotted_names=False, addresses=False, words=False
    )


def character_classes(value: str) -> int:
    return (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
        + any(not c.isalnum() for c in value)
    )


# The base64 of an OpenSSH public key starts with its type's length and name (ssh-rsa,
# ssh-ed25519, ecdsa-sha2-...): `AAAAB3NzaC1yc2E...` is a public key, never a secret.
_SSH_PUBLIC_BLOB = ("AAAAB3NzaC1", "AAAAC3NzaC1", "AAAAE2VjZHNh", "AAAAB3NzaC1kc3M")


def is_ssh_public_key(value: str) -> bool:
    """True for the base64 body of an OpenSSH public key (``ssh-rsa AAAAB3NzaC1yc2E...``)."""
    return value.startswith(_SSH_PUBLIC_BLOB)


# DER's tags: a SEQUENCE, an OBJECT IDENTIFIER, a BIT STRING.
_DER_SEQUENCE, _DER_OID, _DER_BIT_STRING = 0x30, 0x06, 0x03
_DER_HEAD_CHARS = 64  # base64 enough for the outer header and the algorithm's identifier


def is_der_public_key(value: str) -> bool:
    """True for the base64 of a DER public key (X.509's SubjectPublicKeyInfo: ``MFkwEwYHKoZIzj0CAQYI...``,
    ``MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A...``): a SEQUENCE of an algorithm (a SEQUENCE opening with
    its OBJECT IDENTIFIER) and the key as a BIT STRING. Private keys open with a version INTEGER
    (PKCS#1, PKCS#8, SEC 1), and an encrypted PKCS#8 key holds an OCTET STRING where the BIT
    STRING would be, so neither is read as public. PKCS#1's ``RSA PUBLIC KEY`` (a bare SEQUENCE of
    two INTEGERs) and keys whose algorithm parameters run past the first 48 bytes (DSA) are not
    recognised: they stay candidates, judged as any value is.

    Example:
        >>> spki = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE" + "q8xP1sV9kL2mN4bW7cRtY5" * 3
        >>> is_der_public_key(spki), is_der_public_key("MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg")
        (True, False)
    """
    if not value.startswith("M") or len(value) < 32:
        return False
    head = value[:_DER_HEAD_CHARS]
    head = head[: len(head) // 4 * 4]
    try:
        der = base64.b64decode(head, validate=True)
    except (binascii.Error, ValueError):
        return False
    outer = _der_element(der, 0)  # the key's outer SEQUENCE
    algorithm = _der_element(der, outer[1]) if outer is not None and outer[0] == _DER_SEQUENCE else None
    if algorithm is None or algorithm[0] != _DER_SEQUENCE or algorithm[1] >= len(der) or der[algorithm[1]] != _DER_OID:
        return False
    return algorithm[2] < len(der) and der[algorithm[2]] == _DER_BIT_STRING


def _der_element(der: bytes, position: int) -> tuple[int, int, int] | None:
    """The element at ``position``: its tag, where its content starts and where it ends (None
    when its header is cut off or malformed)."""
    if position + 2 > len(der):
        return None
    first = der[position + 1]
    if first < 0x80:
        return der[position], position + 2, position + 2 + first
    count = first & 0x7F
    if not 1 <= count <= 3 or position + 2 + count > len(der):
        return None
    start = position + 2 + count
    return der[position], start, start + int.from_bytes(der[position + 2 : start], "big")


# A line that only carries base64 on: a quoted piece (`b"..."`, `"..."`), or a bare run ending
# in a line continuation, with the brackets, commas and `+` that join pieces.
_BASE64_PIECE_LINE = re.compile(r"""[\s(+]*(?:[bBuUrR]?["'])?(?:[\w-]+ )?([A-Za-z0-9+/]+={0,2})["']?[\s,)+\\]*$""")
# How many lines back a key's wrapped base64 is followed: a 4096-bit key is about 12 lines of 60.
_WRAPPED_LINES = 16


def continues_ssh_public_key(text: str, start: int) -> bool:
    r"""True when the value at ``start`` is a later piece of an OpenSSH public key's base64 that
    code wraps over lines (adjacent string literals, ``\`` continuations): each line back to
    the one that starts the key carries base64 alone.

    Example:
        >>> text = 'data = (\n    b"AAAAB3NzaC1yc2EAAAADAQABAAAAgQ"\n    b"Czq8xP1sV9kL2mN4bW7cRtY5"\n)\n'
        >>> continues_ssh_public_key(text, text.index("Czq8"))
        True
        >>> text = 'a = "Zq8xP1sV9kL2"\nb = "Czq8xP1sV9kL2mN4bW7cRtY5"\n'
        >>> continues_ssh_public_key(text, text.index("Czq8"))
        False
    """
    line_start = text.rfind("\n", 0, start) + 1
    for _ in range(_WRAPPED_LINES):
        if line_start == 0:
            return False
        previous_start = text.rfind("\n", 0, line_start - 1) + 1
        piece = _BASE64_PIECE_LINE.match(text, previous_start, line_start - 1)
        if piece is None:
            return False
        if piece.group(1).startswith(_SSH_PUBLIC_BLOB):
            return True
        line_start = previous_start
    return False


def is_uuid(value: str) -> bool:
    """True for an RFC 4122 UUID (``5f0c2a9e-6a47-4b8e-9d7a-3c2f1e0b9a88``), also in the braces
    Microsoft's formats write a GUID in (``{3e2802c4-a4d2-4d8b-9148-e3be6c30e623}``).

    Example:
        >>> is_uuid("{3e2802c4-a4d2-4d8b-9148-e3be6c30e623}"), is_uuid('68D230F3-CF80-4859-8CE7-A43EE81993B5}"')
        (True, True)
    """
    return bool(_UUID.match(value.strip("{}\"'")))


def is_hex(value: str) -> bool:
    return bool(_HEX.match(value))


def has_digest_name_before(before: str) -> bool:
    """True when the text just before a value names a digest algorithm (``sha256:``, ``h1:``)."""
    return bool(_DIGEST_BEFORE.search(before))


# Names of things: models, products, packages, fonts (`SmolLM2-135M-Instruct`, `Noto-Sans-CJK`,
# `Qwen2.5-Coder-7B`): segments joined by `-`, `_` or `/`, each a capitalised or lower-case word
# with an optional version number, an acronym, or a number with a unit letter (`135M`, `7B`).
# Each run of capitals is read one way (an acronym, or an acronym and a capitalised word: `LMHead`);
# splitting a run of capitals two ways made `AAAA...A1!` try every split.
_THING_SEGMENT = (
    r"(?:(?:[a-z]{2,}|[A-Z][a-z]{2,}|[A-Z]{3,}[a-z]+)(?:[A-Z]{3,}[a-z]+|[A-Z][a-z]+)*(?:[A-Z]{2,})?|[A-Z]{2,})"
    r"\d*(?:\.\d+)?|v?\d+(?:\.\d+)*[A-Za-z]{0,2}"
    r"|[A-Z]\d{1,4}|[a-z]\d{1,4}"  # a letter and a number: `L6`, `B16`, `H100`, a split's `s63`
)
_NAME_OF_THING = re.compile(rf"^(?:{_THING_SEGMENT})(?:[-_/](?:{_THING_SEGMENT}))+$")
# Container images: `python:3.12-slim-bookworm`, `ghcr.io/astral-sh/uv:0.4.18-python3.12-slim`.
# Repository names are lower case (a registry host and port may lead); the tag starts with a
# version and goes on in lower-case words, so `admin:Zq8xP1sV` is no image. Words are read one way:
# a separator is written, or letters and digits run on (`3.12a1`, `rc1beta2`).
_IMAGE_REFERENCE = re.compile(
    r"^(?:[a-z0-9][a-z0-9.\-]*(?::\d+)?/)*[a-z0-9][a-z0-9._\-]*:v?\d+(?:\.\d+)*"
    r"(?:[a-z][a-z0-9]*(?:\.\d[a-z0-9]*)*)?(?:[-_.][a-z][a-z0-9]*(?:\.\d[a-z0-9]*)*)*$"
)
# A model named by its provider and a variant word (`zai-coding-cn/glm-5.2:high`,
# `meta-llama/llama-3.1-8b-instruct:free`): a lower-case path, then `:` and a word.
_MODEL_REFERENCE = re.compile(r"^[a-z0-9][a-z0-9.\-]*(?:/[a-z0-9][a-z0-9._\-]*)+:[a-z]{2,}(?:[-_.][a-z0-9]+)*$")
# Settings and build ids of words with numbers: `ctx512-stride384-fp32`, `py312-cp312`.
_NUMBERED_WORDS = re.compile(r"^(?=.*[a-z]{4})[a-z]{2,}\d{1,4}(?:-[a-z]{2,}\d{1,4})+$")
# A regular expression's group of alternatives, capturing or not (`(?:rF|FR|fr)`).
_REGEX_GROUP = re.compile(r"\((?:\?:)?(?P<inside>[^()]*\|[^()]*)\)")
# Lists of names joined by commas or `+`.
_NAME_LIST = re.compile(r"^[^,+\s]+(?:(?:,\s*|\+)[^,+\s]+)+$")
_NAME_ITEM = re.compile(r"[a-z][a-z0-9_\-]*|[A-Z][A-Z0-9]*|[A-Z][a-z]+")
# CSS selectors of a class or id: `.btn-outline-primary`, `#main-nav`, `.col-md-6`.
_CSS_SELECTOR = re.compile(r"^[.#][a-z]+(?:-[a-z]+\d*|-\d+)*$")
_PLAIN_WORD = re.compile(r"[A-Za-z]{4,}")
# A mark of a name: a size (`135M`), a version (`2.5`), an acronym (`LM`), or a short code of a
# letter or two and a number (`s63`, `v2`, `r17`: a split, a release, a round).
_NAME_MARK = re.compile(r"^\d+[A-Za-z]{1,2}$|^v?\d+\.\d+|[A-Z]{2,}|^[a-z]{1,2}\d{1,3}$")
_WORD_PIECES = re.compile(r"^(?:[a-z]+|[A-Z][a-z]+|[A-Z]+)?\d*(?:[-_](?:[a-z]+|[A-Z][a-z]+|[A-Z]+)?\d*)*$")


def is_list_of_names(value: str) -> bool:
    """True for alternatives or items joined by ``|``, ``,`` or ``^`` that are each a name or plain
    words with numbers at their ends (``Default_0|JPype``, ``debug,info,warn``, a DICOM person's
    name ``Last^First^mid^pre``), one of them a word, or four or more such items of any length (a
    linter's ``good-names = "i,j,k,ex,Run,_,f,fh"``).

    Example:
        >>> is_list_of_names("Default_0|JPype"), is_list_of_names("Xk9|Qw7"), is_list_of_names("Zq8xP1|sV9kL2")
        (True, False, False)
        >>> is_list_of_names("i,j,k,ex,Run,_,f,fh")
        True
    """
    # a regular expression's group of alternatives (`(?:rF|FR|fr|f)`) lists its names as well
    group = _REGEX_GROUP.fullmatch(value)
    if group is not None:
        value = group.group("inside")
    # DTD's `#PCDATA|b|it`; PROJ's grid files `@conus,@ntv2_0.gsb` (`@`: optional)
    parts = [part.removeprefix("#").removeprefix("@") for part in re.split(r"[|,^]", value)]
    return (
        len(parts) >= 2
        and all(part and (_IDENTIFIER.match(part) or _WORD_PIECES.match(part) or _FILE_NAME.match(part)) for part in parts)
        and (len(parts) >= 4 or any(_PLAIN_WORD.search(part) for part in parts))
    )


# RFC 6381's `codecs` parameter of a media type: each codec a sample entry's code and its dotted
# profile and level (`avc1.42E01E`, `mp4a.40.2`, `av01.0.01M.08`, `vp09.00.50.08`, `hvc1.1.6.L93.B0`).
_CODEC = r"(?:avc[13]|hvc1|hev1|mp4a|mp4v|av01|vp0[89]|dvh[1e]|dva[1v]|ac-3|ec-3|stpp|wvtt)(?:\.[0-9A-Za-z]{1,8})+"
_CODEC_LIST = re.compile(rf"{_CODEC}(?:\s*,\s*{_CODEC})*")


def is_codec_list(value: str) -> bool:
    """True when ``value`` names media codecs as a browser's ``canPlayType`` takes them.

    Example:
        >>> is_codec_list("avc1.42E01E,mp4a.40.2"), is_codec_list("av01.0.01M.08"), is_codec_list("avc1.Zq8xP1sV9kL2mN4b")
        (True, True, False)
    """
    return _CODEC_LIST.fullmatch(value) is not None


# Short items in a comma-separated list (`18g,ca,368,1kz`: numbers in base 36, a font parser's
# packed Unicode table; `2+4,5+c`): data written compactly; a key has no comma every few characters.
_SHORT_ITEM_LIST = re.compile(r"[0-9a-z]{1,4}(?:\+[0-9a-z]{1,4})*(?:,[0-9a-z]{1,4}(?:\+[0-9a-z]{1,4})*){3,}")


def is_short_item_list(value: str) -> bool:
    """True for four or more comma-separated items of at most four lower-case letters or digits.

    Example:
        >>> is_short_item_list("18g,ca,368,1kz"), is_short_item_list("2+4,5+c,2+6,2+1"), is_short_item_list("alpha,beta,gamma,delta")
        (True, True, False)
    """
    return _SHORT_ITEM_LIST.fullmatch(value) is not None


# A number written out with marks is this long at most (a phone number, a date, a numeric spec);
# a licence key's digit groups are longer (`83920-17391-84729-38473-92017`).
_MAX_NUMBER_CHARS = 16


def is_short_number(value: str) -> bool:
    """True for a short value of digits and marks with a letter at most: a number or a numeric
    spec written out (``(10)-00-843-32``, ImageMagick's kernel ``3x1-0-0:1,1,0``).

    Example:
        >>> is_short_number("(10)-00-843-32"), is_short_number("3x1-0-0:1,1,0"), is_short_number("83920-17391-84729-38473")
        (True, True, False)
    """
    return len(value) <= _MAX_NUMBER_CHARS and sum(char.isalpha() for char in value) <= 1


# A BlurHash (a blurred image's placeholder, base 83): its first character says how many colour
# components follow, so its length is fixed by it (4 + 2 per component); base 83's signs that no
# token alphabet holds (`:`, `|`, `^`, ...; not the dots and commas of JWTs and lists) mark it.
_BASE83 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~"
_BASE83_CHARS = frozenset(_BASE83)
_BASE83_ONLY = frozenset("#$%*:;?@[]^{|}~")
_RGB_VALUES = 1 << 24


def is_blurhash(value: str) -> bool:
    """True for a BlurHash: base 83, as long as its first character says, holding a sign base64 lacks.

    Example:
        >>> is_blurhash("UBL_:rOpGG-oBUNG,qRj2so|=eE1w^n4S5NH"), is_blurhash("UBL_:rOpGG-oBUNG,qRj2so|=eE1w^n4S5N")
        (True, False)
        >>> is_blurhash("pk.eyJ1" + "a" * 81)  # a dotted token of the length `p` says: no sign of base 83's own
        False
    """
    if len(value) < 6 or not _BASE83_CHARS.issuperset(value) or _BASE83_ONLY.isdisjoint(value):
        return False
    size = _BASE83.index(value[0])
    # the average colour after the size and the largest AC value: 24 bits of RGB in four digits
    colour = 0
    for char in value[2:6]:
        colour = colour * 83 + _BASE83.index(char)
    return len(value) == 4 + 2 * (size % 9 + 1) * (size // 9 + 1) and colour < _RGB_VALUES


# Google's encoded polyline: each character is 63 plus five bits, a set 0x20 bit continuing a number.
_POLYLINE_FIRST, _POLYLINE_LAST = 63, 126
_POLYLINE_MORE = 0x20
# The characters of a polyline's alphabet that neither base64 nor a typed password holds often.
_POLYLINE_MARKS = frozenset("~|`")
_POLYLINE_MIN_MARKS = 2
_POLYLINE_MIN_LENGTH = 16
_POLYLINE_MAX_SHIFT = 35


def is_encoded_polyline(value: str) -> bool:
    """True for a Google encoded polyline (``_p~iF~ps|U_ulLnnqC_mqNvxq`@``): every character
    in ``?``..``~``, at least two of ``~``, ``|`` and the backtick, and the whole value decoding to
    whole numbers that pair into points, every point (the running sum of the pairs, at 5 or 6
    decimals) a latitude and longitude on Earth.

    Example:
        >>> is_encoded_polyline("_p~iF~ps|U_ulLnnqC_mqNvxq`@"), is_encoded_polyline("Zq8~xP1|sV9kL2mN4b")
        (True, False)
    """
    if len(value) < _POLYLINE_MIN_LENGTH or any(not _POLYLINE_FIRST <= ord(c) <= _POLYLINE_LAST for c in value):
        return False
    if sum(c in _POLYLINE_MARKS for c in value) < _POLYLINE_MIN_MARKS:
        return False
    numbers: list[int] = []
    shift = result = 0
    for char in value:
        chunk = ord(char) - _POLYLINE_FIRST
        result |= (chunk & 0x1F) << shift
        shift += 5
        if shift > _POLYLINE_MAX_SHIFT:
            return False  # no coordinate needs more than seven chunks; a long run would grow one number without end
        if not chunk & _POLYLINE_MORE:
            numbers.append(~(result >> 1) if result & 1 else result >> 1)
            shift = result = 0
    if shift or not numbers or len(numbers) % 2:
        return False  # a number left unfinished, or a latitude without its longitude
    latitudes = list(accumulate(numbers[0::2]))
    longitudes = list(accumulate(numbers[1::2]))
    return any(
        all(abs(lat) <= 90 * scale for lat in latitudes) and all(abs(lng) <= 180 * scale for lng in longitudes)
        for scale in (10**5, 10**6)
    )


def is_words_in_mixed_case(value: str) -> bool:
    """True for words written in a random mix of cases, with no digit (``_FrIeNdLy-._.-bArD``, a
    normaliser's test input): lower-cased, every run of letters reads plainly as words (common
    letter pairs only, a stricter level than :func:`reads_as_word`'s), as a drawn key's runs do not.

    Example:
        >>> is_words_in_mixed_case("_FrIeNdLy-._.-bArD"), is_words_in_mixed_case("yqDVtkqPECriaLRi")
        (True, False)
        >>> is_words_in_mixed_case("Friendly-Bard"), is_words_in_mixed_case("FrIeNdLy9bArD")
        (False, False)
    """
    if any(c.isdigit() for c in value):
        return False
    runs = _LETTER_RUN.findall(value)
    letters = sum(len(run) for run in runs)
    # a switch of case inside a run after its first letter: `FrIeNdLy`, not `Friendly` or `HTTPServer`
    switches = sum(1 for run in runs for a, b in zip(run[1:], run[2:]) if a.islower() != b.islower())
    return (
        letters >= _MIN_MIXED_CASE_LETTERS and switches >= _MIN_CASE_SWITCHES
        and all(len(run) < 3 or pair_level(run.lower()) >= _MIXED_CASE_WORD_LEVEL for run in runs)
    )


_LETTER_RUN = re.compile(r"[A-Za-z]+")
_MIN_MIXED_CASE_LETTERS = 8
_MIN_CASE_SWITCHES = 4
# `friendly` 7.0, `bard` 6.7; random letters reach 6.0 about one run of twelve in fifty.
_MIXED_CASE_WORD_LEVEL = 6.0


def is_json_literal(value: str) -> bool:
    """True for an object or array written in JSON whose strings are all short (``{"UA":"UKR"}``,
    a README's example): structure holding codes and words. One holding a longer string is
    judged whole, as the string that may be a token.

    Example:
        >>> is_json_literal('{"UA":"UKR"}'), is_json_literal('["a1", "b2"]'), is_json_literal('{"token":"Zq8xP1sV9kL2"}')
        (True, True, False)
    """
    if len(value) < 4 or value[0] + value[-1] not in ("{}", "[]") or '"' not in value:
        return False
    try:
        parsed = json.loads(value)
    except ValueError:
        return False
    strings = list(_json_strings(parsed))
    return bool(strings) and all(len(string) < _JSON_SHORT_STRING for string in strings)


_JSON_SHORT_STRING = 8


def _json_strings(parsed: object) -> Iterator[str]:
    """The keys and string values of parsed JSON, at any depth."""
    if isinstance(parsed, str):
        yield parsed
    elif isinstance(parsed, dict):
        for key, item in parsed.items():
            yield key
            yield from _json_strings(item)
    elif isinstance(parsed, list):
        for item in parsed:
            yield from _json_strings(item)


def is_name_of_thing(value: str) -> bool:
    """True for the name of a model, product, package or font: words and numbers with units.

    Random keys mix classes inside one segment (``Zq8x``); names keep words whole and put
    numbers at a segment's end, and hold at least one plain word of four letters.

    Example:
        >>> is_name_of_thing("SmolLM2-135M-Instruct"), is_name_of_thing("Qwen2.5-Coder-7B"), is_name_of_thing("Zq8x-P1sV-9kL2")
        (True, True, False)
    """
    if _IMAGE_REFERENCE.match(value) or _MODEL_REFERENCE.match(value) or _CSS_SELECTOR.match(value) or _NUMBERED_WORDS.match(value):
        return True
    if _NAME_LIST.match(value):
        # `fp32,bf16,autocast`, `ECDHE+AESGCM`, `secevent+jwt`: each item a name or a word.
        return all(_NAME_ITEM.fullmatch(item) for item in re.split(r"[,+]\s*", value))
    if _NAME_OF_THING.match(value):
        segments = re.split(r"[-_/]", value)
        # A name carries a mark of one: a size or version (`135M`, `7B`, `2.5`) or an acronym
        # (`LM`, `CJK`); words and a number alone (`lantern-phoenix-glacier83`) are a passphrase.
        return any(_PLAIN_WORD.fullmatch(part) for part in segments) and any(
            _NAME_MARK.search(part) for part in segments
        )
    # A path or file name made of such names: `models/SmolLM2-135M-Instruct/tokenizer.json`,
    # `SmolLM2-135M-Instruct.Q4_1.gguf`. Each part is a name or plain words, never a mix of
    # cases and digits inside one word (`K7MDENG`, `bPxRfiCY` in a base64 key).
    parts = [part for part in re.split(r"[/.]", value) if part]
    return (
        len(parts) >= 2
        and ("/" in value or bool(re.fullmatch(r"[a-z][a-z0-9]{0,4}", parts[-1])))
        and all(_NAME_OF_THING.match(part) or _WORD_PIECES.match(part) for part in parts)
        and any(_PLAIN_WORD.search(part) for part in parts)
    )


# An identifier of code with a number in it: camelCase or snake_case, letters first, perhaps a
# dotted path of them (`sqlalchemy.exc.MovedIn20Warning`).
# Windows' Hungarian notation types a field by its prefix (`pwszAppId`, `lpszName`, `cbData`).
_HUNGARIAN_PREFIX = re.compile(r"^(?:lpsz|lpwsz|pwsz|psz|wsz|lp|dw|cb|pb|pv)(?=[A-Z])")
_CODE_NAME_SHAPE = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:[._][A-Za-z0-9]+)*$")
# Its words: an acronym before a version's `v` (`IPv4`), a capitalised or lower-case word, an
# acronym, a number.
_CODE_NAME_WORD = re.compile(r"[A-Z]+(?=v[0-9])|[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_MAX_ACRONYM = 6  # `VLANID`, `IPv4` -> `IP`; a longer run of capitals is a code or a key
_MAX_CODE_NAME_DIGITS = 4  # `pcels8021Hdr`, `MovedIn20`; a key's digits are many and spread


# A PowerShell command: an approved verb, a dash, a noun (`Get-AnsibleParam`, `ConvertTo-SecureString`).
_COMMAND_NAME = re.compile(
    r"^(?:Add|Clear|Close|Compare|Convert|ConvertFrom|ConvertTo|Copy|Disable|Enable|Enter|Exit|Export|Find|Format|Get"
    r"|Grant|Import|Initialize|Install|Invoke|Join|Move|New|Open|Out|Protect|Read|Register|Remove|Rename|Reset|Resolve"
    r"|Restart|Revoke|Select|Send|Set|Show|Split|Start|Stop|Test|Unprotect|Unregister|Update|Use|Wait|Write)"
    r"-[A-Z][A-Za-z0-9]*$"
)


def is_command_name(value: str) -> bool:
    """True for a PowerShell command's name (``Get-AnsibleParam``): after ``$password =`` in a
    script it is the call that fetches the password, not the password.

    Example:
        >>> is_command_name("Get-AnsibleParam"), is_command_name("ConvertTo-SecureString"), is_command_name("Sunny-Meadow7")
        (True, True, False)
    """
    return _COMMAND_NAME.match(value) is not None


def is_code_name(value: str) -> bool:
    """True for an identifier of code that holds a number (``pcels8021HdrDestMACMask``,
    ``uddiv3TmodelKey``, ``str50subclass``, ``exc.MovedIn20Warning``): every word of it a word.

    A key drawn from letters and digits breaks, at its case changes and digits, into runs of one
    or two letters and pairs no word holds (``Zq8xP1sV9kL2`` -> Zq, x, P, s, V, k, L); a name's
    words are whole: lower-case runs that pair as words do (:func:`reads_as_word`), short
    acronyms and a few digits. Only the first word may be a single letter (``vPIMMailbox2``), or
    a version's ``v`` before its number (``pcelsIPv4AddrList``).

    Example:
        >>> is_code_name("pcels8021HdrDestMACMask"), is_code_name("str50subclass"), is_code_name("Zq8xP1sV9kL2")
        (True, True, False)
        >>> is_code_name("a9d1ca15768811d1aded"), is_code_name("MovedIn20Warning"), is_code_name("subclass")
        (False, True, False)
        >>> is_code_name("pwszU2fAppId"), is_code_name("cbP2pFrame"), is_code_name("pbZq8xP1sV9k")
        (True, True, False)
        >>> is_code_name("HmacAuthV1Handler"), is_code_name("ZqAuthV1xP")
        (True, False)
    """
    if not _CODE_NAME_SHAPE.match(value) or not any(c.isdigit() for c in value):
        return False
    parts = re.split(r"[._]", value)
    # A one-letter suffix after `_` marks a kind of thing (a type's `uint8_t`, a view's `fts5tablename_v`).
    if len(parts) > 1 and len(parts[-1]) == 1 and parts[-1].isalpha():
        parts = parts[:-1]
    parts[0] = _HUNGARIAN_PREFIX.sub("", parts[0])
    words = _glue_acronym([word for part in parts for word in _CODE_NAME_WORD.findall(part)])
    if len(words) < 2 or sum(len(word) for word in words if word.isdigit()) > _MAX_CODE_NAME_DIGITS:
        return False
    for index, word in enumerate(words):
        if word.isdigit():
            continue
        if word.isupper():
            if len(word) > _MAX_ACRONYM or (
                len(word) == 1 and index > 0 and not words[index - 1].isdigit() and not _is_version_mark(words, index)
            ):
                return False
        elif len(word) < 2 and index > 0 and not _is_version_mark(words, index) or not reads_as_word(word):
            return False
    return True


def _glue_acronym(words: list[str]) -> list[str]:
    """The words with their first capital, digit, letter run made one acronym (FIDO's ``U2f``,
    ``P2P``, ``M2M``): a name may hold one such; a drawn key's other runs stay apart after it."""
    for index in range(len(words) - 2):
        letter, digit, last = words[index:index + 3]
        if len(letter) == 1 and letter.isupper() and len(digit) == 1 and digit.isdigit() and len(last) == 1 and last.isalpha():
            return words[:index] + [(letter + digit + last).upper()] + words[index + 3:]
    return words


def _is_version_mark(words: list[str], index: int) -> bool:
    """True for a ``v`` before a number among a name's words (``IPv4`` -> IP, v, 4;
    ``HmacAuthV1Handler`` -> ..., V, 1, ...)."""
    return words[index] in ("v", "V") and index + 1 < len(words) and words[index + 1].isdigit()
