"""Values that stand in for a credential without being one: placeholders, references, examples.

These are never reported, however surprising they are: ``changeme``, ``<YOUR_KEY>``, ``${VAR}``,
``xxxxxxxx``, ``os.environ["X"]``, ``{{ secrets.TOKEN }}``, keys from vendors' documentation
(``...EXAMPLE``). The judgement is about the value's form, not about any vendor's format.
"""

from __future__ import annotations

import base64
import binascii
import json
import re

from smscan.detectors.secret_names import name_words

# References to a value stored elsewhere: shell/compose/CI/template interpolation, env lookups.
_REFERENCE = re.compile(
    r"""^(?:
        \$\{[^}]*\}                        # ${VAR}, ${VAR:-x}
      | \$\([^)]*\)                        # $(command)
      | \$[A-Za-z_][A-Za-z0-9_]*           # $VAR
      | %[A-Za-z_][A-Za-z0-9_]*%           # %VAR% (Windows)
      | %\([A-Za-z_][A-Za-z0-9_]*\)[sdr]   # %(name)s
      | \{\{.*\}\}                         # {{ var }}  (Jinja, Helm, Actions)
      | \{%.*%\}
      | <%.*%>
      | \#\{[^}]*\}                        # #{var} (Ruby)
      | \{[$\#][A-Z][A-Z0-9_.]*(?::[^}]*)?\}  # {$MACRO}, {#MACRO} (Zabbix's macros)
      | \{[A-Za-z_][\w.\-]*\}              # {name} (format strings)
      | \{[A-Za-z_][\w.]*\([\w.,\ '"]*\)\}   # {get_token(name)} (an f-string's field calling a function)
      | @[A-Za-z_][\w.]*\(.*\)             # @Microsoft.KeyVault(...)
      | (?:env|vault|secret|secrets|ssm|awssm|op|keyring):[\w/.\-:]+   # scheme references
      | \$\{?[A-Z_][A-Z0-9_]{2,}\}?/\S*     # $BASE_URL/path: a variable's value and a path
    )$""",
    re.VERBOSE,
)
_REFERENCE_CALL = re.compile(
    r"(?:\benviron\b|\bgetenv\b|process\.env|\bENV\[|System\.getenv|os\.Getenv|Environment\.|"
    r"\bsecrets\.[A-Za-z_]|\bvars\.[A-Za-z_]|\bsettings\.[A-Za-z_]|\bconfig\.[A-Za-z_])"
)
# A printf conversion (`%s`, `%d`, `%(user)s`, `%08x`): the value is a template filled in later.
_PRINTF_FIELD = r"%(?:\([A-Za-z_]\w*\))?[-#0 +]?\d*(?:\.\d+)?[sdixXfr]"
# Braced expansions inside a value (`bob:${env:API_KEY}`, `${PYBIN}/pip`, `{{ .Values.x }}-ro`)
# and format fields (`{i}<{kc}>{v}</{kc}>`, `{0}:{1}`, `__omit_place_holder__%s`). A bare `$name`
# is left out, random passwords hold `$` before letters, but for a shell's upper-case variable
# of four characters or more, whole (`":zle:$WIDGET"`): a password's `$` rarely starts such a run.
_EMBEDDED_REFERENCE = re.compile(
    r"\$[A-Z][A-Z0-9_]{3,}(?![A-Za-z0-9_])|\$\{[^{}]*\}|\$\([^()]*\)|\{\{[^{}]*\}\}|#\{[^{}]*\}|\{[$#][A-Z][A-Z0-9_.]*\}|\{[A-Za-z_][\w.]*\}|\{\d*\}|"
    r"(?<![^/])@[A-Za-z_]{3,}@(?![^/])|"
    + _PRINTF_FIELD
)
# A value shown cut short (`123e4567-...`, `q8Zt…`, `...~-L=?3T...`, `q8Zt…[24 chars]`,
# `suppress(...)`, `Stopping ${NAME}... `) is an excerpt in prose: cut at either end, maybe with
# a note of what was cut or the brackets, quotes and spaces that close it. Dots inside a value
# (`XyZ...q8Zt3kPx0wLm`) are its own.
_ELIDED = re.compile(
    r"^[\s(\['\"`]*(?:\.\.\.|…)|(?:\.\.\.|…)(?:\s*[\[(][^\[\]()]*[\])]?)?[\s)\]}'\"`]*$"
)
# A short head and tail around an ellipsis is a value shown with its middle cut out
# (`gfj9Xq...Rg85nM`, `MIIDnzC...Ia2qKQ==`, `Qh...wwI`); a longer part is a password's own dots
# (`XyZ...q8Zt3kPx0wLm`).
_ELIDED_MIDDLE = re.compile(r"^[A-Za-z0-9+/_\-]{2,8}(?:\.\.\.|…)[A-Za-z0-9+/_\-]{2,8}={0,2}$")
# What an expansion holds when it points elsewhere (the inside of `${...}`, `#{...}`, `$(...)`,
# `{...}`): a variable with its shell modifiers (`${DB_HOST}`, `${TOKEN:-x}`, `${env:API_KEY}`),
# a command (`$(cat key)`), a lower-case format field (`{user}`, `{db_host}`, `{user.pk}`). Any other inside
# is part of the value: random passwords hold braces around random characters (`a{bcdefg}Q7!`
# is judged by its letters around them, `L])11O${}Sa0)` and `${xrU^z}` by all of them).
# A variable, maybe subscripted (`${src[t.LONETILDE]}`), maybe with a default or an error after it.
_VARIABLE = re.compile(r"[A-Za-z_][\w.]*(?:\[[\w.'\"]+\])*(?:(?::?[-=?+]|:)[^{}]*)?")
_COMMAND = re.compile(r"[a-z][\w.\-]*(?: [^()]*)?")
_FORMAT_FIELD = re.compile(r"[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*|[A-Z_][A-Z0-9_]*")
# Letters and digits a value keeps beside its expansions and still points elsewhere: a user name,
# a tool (`pip`), a suffix. A key written around an expansion keeps more.
_AROUND_REFERENCE_MAX = 7
# Words around expansions are a template's own text, however long (`__omit_place_holder__%s`,
# `{%s}UsernameToken`, `user=%s\1auth=Bearer %s\1`): lower-case runs and capitalised words of
# three letters or more, with punctuation and escapes; a random mix of cases or any digit is a
# value's own (possessive, so a long run is tried once).
_TEMPLATE_WORDS = re.compile(r"(?:[a-z]++|[A-Z][a-z]{2,}+|[_\-./:= {}\[\],]|\\\d)*+")
# Angle-, square- or curly-bracketed names: <YOUR_KEY>, [api-key], {token}; angle brackets as
# HTML writes them in markup and escaped config (`&lt;YOURPASSWORD&gt;`).
_BRACKETED = re.compile(r"^(?:<[^<>]+>|&lt;(?:(?!&gt;).)+&gt;|\[[A-Za-z _\-]+\]|\{[A-Za-z _\-]+\})$")
# Words that mark a value as a stand-in when the value is made of words.
_STAND_IN_WORDS = frozenset(
    """
    changeme changeit change replaceme replace me your yours my placeholder dummy fake sample example examples
    todo fixme tbd redacted hidden masked obfuscated removed insert enter put here goes foo bar baz qux
    none null nil undefined empty default mock test testing tests demo xxx xxxx secret password
    passwd token apikey key value string mysecret mypassword mytoken pass pwd user username
    unset notset
    """.split()
)
# A snake_case name whose last word is a secret's kind (`aws_token`, `db_password`).
_NAMED_KIND = re.compile(r"^[a-z]+(?:_[a-z]+)*_(?:token|key|secret|password|passwd|pass|pwd|apikey)$")
# Words a negated stand-in holds after its `not` (`not-set`, `not-a-valid-key`, `not_configured`).
_NEGATED_WORDS = _STAND_IN_WORDS | frozenset("a an set valid real used configured provided available".split())
# Words a real key never holds as a whole word of its own (`-`, `_` or case-separated).
_SELF_DESCRIBED = frozenset("placeholder dummy fake mock redacted obfuscated invalid revoked sample example".split())
# Words a value spells out, glued or not, to say it is no real key (`glsa_iNValIdinValiD...`,
# `dummytokenvalue`): seven letters or more of one case-folded word are no chance in a random key
# (26^-7 a position), so only longer words are read inside others.
_SELF_DESCRIBED_INSIDE = re.compile(r"invalid|placeholder|redacted|dummy(?:key|token|value|secret)|notreal|changeme|replaceme|replace_?with", re.IGNORECASE)
_SEQUENCE = "0123456789abcdefghijklmnopqrstuvwxyz"
# A counting run this long is typed, never drawn: the odds of 9 characters each one after the
# other in a random key are about 36^-8 a position (16^-8 in hex), read straight or interleaved.
_LONG_COUNT = 9
# The share of a value's letters and digits that patterns (counting, repeating, interleaved
# counting) must cover before the whole value is a pattern typed as a stand-in.
_PATTERNED_SHARE = 0.85
_MASK_CHARS = frozenset("xX*#•.-_0")
# A letter swapped for the digit or sign that looks like it, inside a word: `C0mpl3x`, `P@ss`.
_SWAPPED_LETTER = re.compile(r"[A-Za-z][013457@$][A-Za-z]")
# A value shown with one end masked by a run of mask characters and a few characters left
# (`---wXyZ`, `****1a2b`, `sk_live_xxxx`): what a reader is shown of a key, not the key.
_PARTLY_MASKED = re.compile(r"^(?:[*•#\-xX]{3,}[^*•#\s]{1,8}|[^*•#\s]{1,8}[*•#\-xX]{3,})$")
# A key with its end masked for a reader (`AIzaSyHqGowa85aImLDP7-sd7gcGlgKnuxxxxxx`, `sk-...Fxxxxxxx`):
# a run of five x of one case, or four stars, bullets or hashes, closing a longer value. A drawn
# alphanumeric key ends in five x of one case about once in a billion; never in a star or a hash.
_MASK_END_RUNS = {"x": 5, "X": 5, "*": 4, "•": 4, "#": 4}
# The start of AWS's documented secret access key and access key id: copies edit the end with
# a word that says what they are (`...bPxRfiCYSAMPLEKEY`, `AKIAIOSFODNN7TESTING`); an edit
# with no such word (`...bPxRfiCYSECRETSKEY`) is judged as any value is.
_DOCUMENTED_STARTS = ("wJalrXUtnFEMI/K7MDENG/bPxRfiCY", "AKIAIOSFODNN7")
_EDITED_END = re.compile(r"SAMPLE|TEST|FAKE|DUMMY|MOCK", re.IGNORECASE)
# Keys published in vendors' documentation as examples; they appear in countless repositories.
_DOCUMENTED_EXAMPLES = frozenset(
    {
        # jwt.io's sample token (HS256, "John Doe").
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwi"
        "aWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
        # OAuth 2.0's examples (RFC 6749, 6750, 7662): an access token, a refresh token, an
        # authorization code, a client's secret and its Basic credentials, a bearer token.
        "2YotnFZFEjr1zCsicMWpAA",
        "tGzv3JOkF0XG5Qx2TlKWIA",
        "SplxlOBeZQQYbYS6WxSbIA",
        "gX1fBat3bV",
        "czZCaGRSa3F0MzpnWDFmQmF0M2JW",
        "mF_9.B5f-4.1JqM",
        # OpenID Connect Core 1.0's examples: an access token and a refresh token.
        "SlAV32hkKG",
        "8xLOxBtZp8",
        # OAuth 1.0a as X (Twitter) documents it ("Creating a signature"): a consumer key and
        # secret, an access token and its secret, in the tests of OAuth libraries of every language.
        "xvz1evFS4wEEPTGEFPHBog",
        "kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw",
        "370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb",
        "LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE",
        # The TOTP secret of Google Authenticator's documentation (base32 of "Hello!" and DEADBEEF).
        "JBSWY3DPEHPK3PXP",
        # Stripe's documented test keys.
        "sk_test_4eC39HqLyjWDarjtT1zdp7dc",
        "pk_test_TYooMQauvdEDq54NiTphI7jx",
        # Google's reCAPTCHA test keys.
        "6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI",
        "6LeIxAcTAAAAAGG-vFI1TnRWxMZNFuojJ4WifJWe",
        # Constants a specification publishes, random-looking and known to all: the WebSocket
        # handshake's GUID (RFC 6455) and the CACHEDIR.TAG signature (the MD5 of ".IsCacheDirectory").
        "258EAFA5-E914-47DA-95CA-C5AB0DC85B11",
        "8a477f597d28d172789f06886806bc55",
        # The storage account key of Microsoft's Azurite emulator (devstoreaccount1), the same in
        # every installation.
        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
        # GitHub's fixed password word for a token sent as the user (`login <token>`, `password
        # x-oauth-basic` in a `.netrc`): the same in every file, documented by GitHub.
        "x-oauth-basic",
        # The access key pair of MinIO's public playground server (play.min.io), printed in
        # MinIO's README and every example of its SDKs.
        "Q3AM3UQ867SPQQA43P2F",
        "zuf+tfteSlswRu7BJ86wekitnifILbZam1KYY3TG",
    }
)
# The domain parameters of the curves every cryptography library writes out in hex: secp256k1's
# (Bitcoin's, Ethereum's) and NIST P-256's base point and order, and P-256's constant b (SEC 2).
_CURVE_CONSTANTS = frozenset(
    {
        "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798",
        "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8",
        "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141",
        "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296",
        "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5",
        "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551",
        "5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b",
    }
)
_BASE64_BODY = re.compile(r"^(?:[A-Za-z0-9+/]+|[A-Za-z0-9_\-]+)={0,2}$")
# What may come before a value's first word: `--my-flag`, `${MY_VAR}`, `<your key>`.
_BEFORE_FIRST_WORD = "-_${}()[]<>%@#:/.'\"` "


def is_reference(value: str) -> bool:
    """True for a value that points at a secret stored elsewhere (``${X}``, ``$X``, ``{{ x }}``).

    Example:
        >>> is_reference("${DB_PASSWORD}"), is_reference("os.environ['X']"), is_reference("a1b2")
        (True, True, False)
        >>> is_reference("bob:${env:API_KEY}"), is_reference("Zq8xP1sV9kL2${SUFFIX}")
        (True, False)
        >>> is_reference(":zle:$WIDGET"), is_reference("Xk9$ABCD"), is_reference("Pa$$word")
        (True, False, False)
    """
    stripped = value.strip()
    if _REFERENCE.match(stripped) or _REFERENCE_CALL.search(stripped):
        return True
    # `user:${PASSWORD}`, `${BIN}/pip`: an expansion with little of the value's own around it,
    # and that little not a random mix of cases and digits (`a{bcdefg}Q7!` is a password), or
    # with lower-case words around it.
    rest, expansions = _outside_expansions(stripped)
    return expansions > 0 and (
        _TEMPLATE_WORDS.fullmatch(rest) is not None
        or sum(c.isalnum() for c in rest) <= _AROUND_REFERENCE_MAX
        and not (any(c.islower() for c in rest) and any(c.isupper() for c in rest) and any(c.isdigit() for c in rest))
    )


def _outside_expansions(value: str) -> tuple[str, int]:
    """The value without its expansions that point elsewhere, and how many there were."""
    kept = []
    expansions = 0
    last = 0
    for match in _EMBEDDED_REFERENCE.finditer(value):
        if not _points_elsewhere(match.group()):
            continue
        kept.append(value[last : match.start()])
        last = match.end()
        expansions += 1
    kept.append(value[last:])
    return "".join(kept), expansions


def _points_elsewhere(expansion: str) -> bool:
    if expansion.startswith("{{"):
        return True  # a template expression (`{{ .Values.x }}`): random passwords hold no `{{ }}`
    if expansion.startswith("$("):
        return bool(_COMMAND.fullmatch(expansion[2:-1]))
    if expansion.startswith(("${", "#{")):
        return bool(_VARIABLE.fullmatch(expansion[2:-1]))
    if expansion.startswith(("%", "{$", "{#")):
        return True  # a printf conversion, a Zabbix macro (`vfs.fs.size[{#FSNAME},used]`)
    if expansion.startswith("$") and expansion[1:2].isupper():
        return True  # a shell variable (`$WIDGET`)
    if expansion.startswith("@"):
        # a substitution configure or CMake fills in, a whole segment of a path (`@UNBOUND_SHARE_DIR@/x.py`,
        # `@prefix@`); one inside a word is a password's own `@` signs
        return True
    inside = expansion[1:-1]
    return inside == "" or inside.isdigit() or bool(_FORMAT_FIELD.fullmatch(inside))


def is_placeholder(value: str) -> bool:
    """True for a stand-in: masked (``xxxx``, ``****``), bracketed, or made of stand-in words.

    A value counts as made of words when every letter run is a stand-in word, or it is one
    bracketed name, or it spells ``your ...``/``... here``.

    Example:
        >>> [is_placeholder(v) for v in ("changeme", "<YOUR_API_KEY>", "xxxxxxxx", "Zq8xP1sV9", "AIzaSyHq7-sd7gcGlgKnuxxxxxx")]
        [True, True, True, False, True]
    """
    stripped = value.strip().strip("'\"`")
    if not stripped:
        return True
    if _BRACKETED.match(stripped):
        return True
    masked = sum(1 for char in stripped if char in _MASK_CHARS)
    if (
        len(set(stripped)) <= 2 or (masked >= 4 and masked / len(stripped) >= 0.6) or _PARTLY_MASKED.match(stripped)
        or _has_masked_end(stripped)
    ):
        return True
    if is_counting_run(stripped) or is_patterned(stripped) or _SELF_DESCRIBED_INSIDE.search(stripped):
        return True
    words = [word for word in name_words(stripped) if not word.isdigit()]
    if not words:
        return False
    if all(word in _STAND_IN_WORDS for word in words):
        return True
    # A snake_case name of what the value is (`aws_token`, `db_password`): a stand-in, as `token` is.
    if _NAMED_KIND.match(stripped):
        return True
    if len(words) >= 2 and words[0] == "not" and all(word in _NEGATED_WORDS for word in words[1:]):
        return True
    # A value that says what it is: `xoxb-not-a-real-token`, `p@ssw0rd-placeholder`.
    if any(word in _SELF_DESCRIBED for word in words) or " not real " in f" {' '.join(w for w in words if w != 'a')} ":
        return True
    # `your_key`, `--my-flag`, `${MY_VAR}`: the first word opens the value after any punctuation
    # (in `3MY8N-...`, a licence key, a digit comes first). A person's own password disguised by
    # letters swapped for digits or signs (`myC0mpl3xPwd`, `myR3alP@ssw0rd`) is one they chose.
    opens = stripped.lstrip(_BEFORE_FIRST_WORD).lower().startswith(words[0])
    if opens and words[0] == "my" and _SWAPPED_LETTER.search(stripped):
        return False
    return (opens and words[0] in ("your", "my", "insert", "enter", "replace", "put")) or words[-1] == "here"


def _has_masked_end(value: str) -> bool:
    """True when ``value`` ends in a run of one mask character long enough to mean masking."""
    last = value[-1:]
    run = _MASK_END_RUNS.get(last)
    return run is not None and len(value) - len(value.rstrip(last)) >= run


def is_counting_run(value: str) -> bool:
    """True for a value typed by counting (``0123456789abcdef0123...``, ``abcdefgh12345678``):
    four in five neighbouring characters follow each other in ``0-9a-z``.

    Example:
        >>> is_counting_run("0123456789abcdef0123456789abcdef"), is_counting_run("q8Zt3kPx0wLm9Rv2")
        (True, False)
    """
    lowered = value.lower()
    if len(lowered) < 8:
        return False
    steps = sum(
        1 for a, b in zip(lowered, lowered[1:])
        if a in _SEQUENCE and b in _SEQUENCE and _SEQUENCE.index(b) == _SEQUENCE.index(a) + 1
    )
    return steps >= 0.8 * (len(lowered) - 1)


def is_patterned(value: str) -> bool:
    """True for a body typed as a pattern rather than drawn at random: ``a1b2c3d4e5f6...``,
    ``abcd-1234``, ``abc123``, ``X9y8Z7a6B5...``, ``AAAABBBBCCCC1111``, ``ZYXWV9876543210``, or
    any value holding a counting run of nine (``...tmtnZ1234567890``, ``-ABCDEFGHIJKL-``).

    Only letters and digits are read (case folded); a pattern is a run of three or more that
    count up or down by one (``abc``, ``987``, letters wrapping ``z`` to ``a``) or repeat
    (``aaa``), in the value or in every other character of it (``a1b2c3`` is ``abc`` and
    ``123`` interleaved). Random keys are covered a few percent by such runs; a value is
    patterned when they cover 85% of it. Identical runs alone never make a value patterned by
    length, since encoded binary holds long runs of ``A`` (``AAAAAAAA`` in an OpenSSH key).

    Example:
        >>> [is_patterned(v) for v in ("a1b2c3d4e5f6g7h8", "abcd-1234", "abc123", "Zq8xP1sV9kL2", "pass123")]
        [True, True, True, False, False]
    """
    chars = [c for c in value.lower() if c.isascii() and c.isalnum()]
    if len(chars) < 6:
        return False
    # Ten digits count on by chance ten times as often as 36 letters and digits: a number is
    # patterned when counting or repeating makes all of it (`1234-1234-1234`, `9876543210`).
    digits = all(c.isdigit() for c in chars)
    long_count, share = (10, 1.0) if digits else (_LONG_COUNT, _PATTERNED_SHARE)
    covered = [False] * len(chars)
    for stride in (1, 2):
        for phase in range(stride):
            indexes = list(range(phase, len(chars), stride))
            for start, end, step in _runs([chars[i] for i in indexes]):
                if end - start >= 3:
                    for k in range(start, end):
                        covered[indexes[k]] = True
                if step != 0 and end - start >= long_count:
                    return True
    return sum(covered) >= share * len(chars)


def _runs(chars: list[str]) -> list[tuple[int, int, int]]:
    """Maximal runs of ``chars`` with one step between neighbours (+1, -1 or 0): (start, end, step)."""
    runs = []
    start = 0
    step = None
    for k in range(1, len(chars) + 1):
        this = _step(chars[k - 1], chars[k]) if k < len(chars) else None
        if this is not None and (step is None or this == step):
            step = this
            continue
        runs.append((start, k, step or 0))
        # The pair that broke the run may open the next one.
        start, step = (k - 1, this) if this is not None else (k, None)
    return runs


def _step(a: str, b: str) -> int | None:
    """+1 or -1 when ``b`` counts on from ``a`` (digits and letters each wrap round), 0 when it repeats."""
    if a == b:
        return 0
    if a.isdigit() and b.isdigit():
        diff = (int(b) - int(a)) % 10
    elif a.isalpha() and b.isalpha():
        diff = (ord(b) - ord(a)) % 26
    else:
        return 1 if (a, b) == ("9", "a") else -1 if (a, b) == ("a", "9") else None
    modulus = 10 if a.isdigit() else 26
    return 1 if diff == 1 else -1 if diff == modulus - 1 else None


_JWT_HEADER_START = "eyJ"


def is_hollow_jwt(value: str) -> bool:
    """True for a JWT-shaped value that is no one's token: a header alone
    (``eyJhbGciOiJIUzI1NiJ9``, which decodes to ``{"alg":"HS256"}``, the same in every token of
    that algorithm), or a signature that is a plain word (``...eyJpc3MiOiJ4In0.signature``).

    Example:
        >>> is_hollow_jwt("eyJhbGciOiJIUzI1NiJ9"), is_hollow_jwt("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.signature")
        (True, True)
        >>> is_hollow_jwt("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.Zq8xP1sV9kL2mN4bT7wRaaQ3")
        False

    So is a token whose claims name no one (``{"foo":"bar"}``: :func:`_are_example_claims`),
    signed or not: the token of a library's tests and docs.

        >>> is_hollow_jwt("eyJhbGciOiJIUzI1NiJ9.eyJmb28iOiJiYXIifQ.Zq8xP1sV9kL2mN4bT7wRaaQ3")
        True
    """
    if not value.startswith(_JWT_HEADER_START):
        return False
    parts = value.split(".")
    header = _json_object(parts[0])
    if header is None or not ({"alg", "typ", "enc", "kid"} & set(header)):
        return False
    if len(parts) == 1:
        return True
    if len(parts) != 3:
        return False  # a JWE has five parts; its second is an encrypted key, not JSON
    signature = parts[2]
    if bool(signature) and signature.isalpha() and signature.islower() and len(signature) <= 16:
        return True
    claims = _json_object(parts[1])
    return claims is not None and bool(claims) and _are_example_claims(claims)


# Claims every token may carry (RFC 7519), whose names say nothing of whom it is for.
_REGISTERED_CLAIMS = frozenset(["iss", "sub", "aud", "exp", "nbf", "iat", "jti"])
# The domains kept for examples (RFC 2606): `user@example.com`, `http://example.org/x`, `host.example`.
_EXAMPLE_DOMAIN = re.compile(r"\bexample\.(?:com|org|net)\b|\.example\b", re.IGNORECASE)
# RFC 7519's example issuer, beside the stand-in words.
_EXAMPLE_CLAIM_WORDS = _STAND_IN_WORDS | frozenset(["joe", "quux"])


def _are_example_claims(claims: object) -> bool:
    """True when a token's claims name no one: every word in them a stand-in (`{"foo":"bar"}`,
    `{"aud":["test",1]}`), an example domain's URL or address (RFC 7519's `{"iss":"joe",
    "http://example.com/is_root":true}`), a registered claim's name, a number or a truth value."""
    if isinstance(claims, dict):
        return all(
            (key in _REGISTERED_CLAIMS or _is_example_word(key)) and _are_example_claims(value)
            for key, value in claims.items()
        )
    if isinstance(claims, list):
        return all(_are_example_claims(item) for item in claims)
    if isinstance(claims, str):
        return _is_example_word(claims)
    return True  # a number, a truth value, null


def _is_example_word(text: str) -> bool:
    return text.lower() in _EXAMPLE_CLAIM_WORDS or _EXAMPLE_DOMAIN.search(text) is not None


def _json_object(part: str) -> dict[str, object] | None:
    """The JSON object a base64url part decodes to, or None."""
    try:
        decoded = base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
        loaded = json.loads(decoded.decode("utf-8"))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None
    return loaded if isinstance(loaded, dict) else None


def is_documented_example(value: str) -> bool:
    """True for keys that vendors publish as examples (AWS's ``...EXAMPLE``, jwt.io's token), edits
    of AWS's that keep its start and say so at the end (``...bPxRfiCYSAMPLEKEY``, ``...TESTKEY``),
    and the published constants of common elliptic curves.

    Example:
        >>> is_documented_example("AKIAIOSFODNN7EXAMPLE"), is_documented_example("AKIAZQ3P8V")
        (True, False)
    """
    return (
        "EXAMPLE" in value.upper() or value in _DOCUMENTED_EXAMPLES or "EXAMPLE" in _decoded(value).upper()
        or value.lower().removeprefix("0x") in _CURVE_CONSTANTS
        or any(value.startswith(start) and _EDITED_END.search(value, len(start)) for start in _DOCUMENTED_STARTS)
    )


def _decoded(value: str) -> str:
    """The text a base64 value decodes to (a documented example wrapped once more:
    ``eyJrIjoiRVhBTVBMRS...`` is ``{"k":"EXAMPLE..."}``), or ``""``."""
    if len(value) < 12 or not _BASE64_BODY.match(value):
        return ""
    try:
        return base64.b64decode(value + "=" * (-len(value) % 4), altchars=b"-_" if ("-" in value or "_" in value) else None).decode("ascii")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return ""


def is_encoded_stand_in(value: str) -> bool:
    """True for base64 of a stand-in: ``dXNlcjpwYXNzd29yZA==`` is ``user:password``,
    ``YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXo=`` the alphabet. A drawn secret encoded stays drawn.

    Example:
        >>> is_encoded_stand_in("dXNlcjpwYXNzd29yZA=="), is_encoded_stand_in("WnE4clQybVg5dkw0a1A3d04zYlk=")
        (True, False)
    """
    decoded = _decoded(value)
    return decoded.isprintable() and is_placeholder(decoded) if decoded else False


# What follows a value its slot cut short at a blank or a mask: the rest of a bracketed phrase
# (`<Openverse API token>`), or a run of mask characters (`xoxp-5723...-####################`).
_BRACKET_WORDS_AFTER = re.compile(r"(?:[ \t]+[\w.-]+)+>")
_MASK_RUN_AFTER = re.compile(r"[#*•]{4,}")


def is_cut_stand_in(text: str, start: int, end: int) -> bool:
    """True when the value at ``start:end`` of ``text`` opens a stand-in that goes on past it: the
    first word of a bracketed phrase, or a value a run of mask characters continues.

    Example:
        >>> text = 'curl -H "Authorization: Bearer <Openverse API token>"; token4: xoxp-5723-####'
        >>> is_cut_stand_in(text, text.index("<Op"), text.index(" API")), is_cut_stand_in(text, text.index("xoxp"), text.index("#"))
        (True, True)
        >>> is_cut_stand_in("k = <Zq8xP1sV9kL2mN4b> x", 4, 20)
        False
    """
    if text.startswith("<", start) and _BRACKET_WORDS_AFTER.match(text, end):
        return True
    return _MASK_RUN_AFTER.match(text, end) is not None


def is_stand_in(value: str) -> bool:
    """A value never reported as a credential: a reference, placeholder, documented example or
    an excerpt cut short with an ellipsis, or one of them encoded."""
    return (
        is_reference(value) or is_placeholder(value) or is_documented_example(value) or bool(_ELIDED.search(value))
        or bool(_ELIDED_MIDDLE.match(value))
        or is_hollow_jwt(value)
        or is_encoded_stand_in(value)
    )
