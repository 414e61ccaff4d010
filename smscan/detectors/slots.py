"""Where a credential can live: value slots found in any text, whatever its language.

A slot (:mod:`smscan.detectors.slot_kinds`) is the character span of one *value* (never its
key, quotes or scheme word) together with the name it is bound to, if any, and what kind of
place it is. This module gathers the finders, each in a module of its own, and resolves their
overlaps:

- multi-line blocks: private keys (PEM and PuTTY), certificates, encoded data
  (:mod:`~smscan.detectors.blocks`);
- the places of classic credential files (``.pgpass``, ``.htpasswd``, ``.npmrc``, FileZilla,
  Jenkins, Oracle logins, key files) (:mod:`~smscan.detectors.credential_files`);
- URL passwords and ``Authorization`` values (:mod:`~smscan.detectors.secret_places`);
- vendor-format tokens (:mod:`~smscan.detectors.vendor_prefixes`);
- per line: option values and command forms (:mod:`~smscan.detectors.command_forms`), query
  parameters (:mod:`~smscan.detectors.query_strings`), prose labels and tables
  (:mod:`~smscan.detectors.prose_labels`), user/password pairs written in notes
  (:mod:`~smscan.detectors.written_pairs`), quoted strings and unquoted assignments (here, cut
  into values by :mod:`~smscan.detectors.literal_values`), XML elements, and long token runs
  (:mod:`~smscan.detectors.token_runs`);
- values sealed by encryption (``ENC(...)``, a ``SealedSecret``'s data) are no slots
  (:mod:`~smscan.detectors.sealed_values`), nor are a JSON Web Key's public members (the RSA
  modulus ``n``, exponent ``e``, curve point ``x``/``y``: :mod:`~smscan.detectors.jwk_members`),
  nor what a docstring's field list says of a parameter (``:param password: OPTIONAL: ...``)
  unless it is a private key or a vendor's token;
- in a JSON document, the secret name of an enclosing object or array for a value whose own
  name says nothing (:mod:`~smscan.detectors.enclosing_names`).

The finder is lexical, not a parser: it reads lines the way a person skims a file for secrets,
so it works on code, config, shell, Markdown and logs alike. Overlapping slots are resolved by the
kinds' priority (a PEM block swallows everything in it; a password inside a URL beats the URL
string). Judging whether a slot's value is a credential is :mod:`smscan.detectors.credential`'s job.
"""

from __future__ import annotations

import re
import sys
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from functools import lru_cache
from itertools import accumulate

from smscan.detectors.bindings import LEFT_CHARS, binding_before
from smscan.detectors.blocks import data_blocks, embedded_data, pem_blocks, putty_blocks
from smscan.detectors.credential_files import credential_file_slots
from smscan.detectors.doctest_output import name_doctest_outputs
from smscan.detectors.pair_names import name_pair_values
from smscan.detectors.command_forms import (
    docker_env_value,
    glued_passwords,
    option_values,
)
from smscan.detectors.enclosing_names import share_enclosing_names
from smscan.detectors.expansion_defaults import expansion_defaults
from smscan.detectors.jwk_members import jwk_public_spans
from smscan.detectors.literal_values import literal_values
from smscan.detectors.named_tokens import name_bare_tokens
from smscan.detectors.prose_labels import described_parameter_spans, is_hex_literal, label_values, table_values
from smscan.detectors.query_strings import query_values
from smscan.detectors.sealed_values import sealed_spans
from smscan.detectors.secret_names import is_secret_name
from smscan.detectors.secret_places import header_values, url_passwords
from smscan.detectors.slot_kinds import (
    ARGUMENT,
    ASSIGNMENT,
    LABEL,
    PEM,
    PRIORITY,
    PUBLIC_BLOCK,
    QUERY,
    STRING,
    VENDOR,
    Slot,
)
from smscan.detectors.token_runs import has_path_token, token_runs
from smscan.detectors.vendor_prefixes import find_vendor_tokens
from smscan.detectors.yaml_lists import yaml_list_slots
from smscan.detectors.written_pairs import paired_passwords

__all__ = ["PUBLIC_BLOCK", "Slot", "find_slots"]

# A quoted string on one line: "...", '...' or `...`, with backslash escapes. An escaped quote
# opens none: in an unclosed `"a\"a\"a...` each would read the rest of the line again.
_QUOTED = re.compile(r"""(?<!\\)(?P<q>["'`])(?P<body>(?:\\.|(?!(?P=q))[^\\\n])*)(?P=q)""")
# An unquoted value bound to a name: key = value, key: value, KEY=value, export KEY=value. A
# closing tag ends it (`<conn>Data Source=db; Password=...</conn>`).
# `==` compares or pins (`detect-secrets==1.5.0`): no assignment. A key is read from the start of
# its run of name characters (digits, dots or dashes may lead), so a long run without `=` is
# scanned once, not once from each of its characters.
_ASSIGNED = re.compile(
    r"(?<![\w.\-$@])(?:(?![A-Za-z_$@])[\w.\-])*(?P<key>[A-Za-z_$@][\w.\-$@]*)[\"']?[ \t]*(?::=|=>|=(?!=)|:(?=[ \t]))[ \t]*(?P<value>(?:(?!</)[^\s'\"`,;])+)"
)
# Blanks around an element's text are layout (Maven's `<password>  ...  </password>`; readers trim them).
_XML_ELEMENT = re.compile(r"<(?P<tag>[A-Za-z_][\w:.\-]*)(?P<attributes>\s[^<>]*)?>[ \t]*(?P<value>[^<>\s]+)[ \t]*</(?P=tag)>")
# A generic element keyed by an attribute names its text by it: Java's properties XML
# (`<entry key="db.password">...</entry>`), nmap's output (`<elem key="filename">...</elem>`).
# A tag that says secret keeps its own name (`<password name="main">`).
_KEYING_ATTRIBUTE = re.compile(r"""\b(?:key|name)[ \t]*=[ \t]*["'](?P<name>[^"'<>]+)["']""")
# HTML's elements of presentation hold a page's text, not a setting their tag names: generated API
# docs put every identifier in a `<span>`, `<code>` or `<a>` (`<span class="n">str50subclass</span>`).
# DocBook's inline elements do the same in manuals (systemd's `<varname>MIIMonitorSec=</varname>`,
# `<literal>` around a documented id). `token` is left out: a config's `<token>` holds one.
_MARKUP_TAGS = frozenset(
    """
    a abbr b bdi big cite code dd del dfn div dt em font h1 h2 h3 h4 h5 h6 i ins kbd label li mark
    option p pre q s samp small span strike strong sub sup td th title tt u var
    acronym application citerefentry citetitle classname command computeroutput constant emphasis
    envar errorcode errorname filename firstterm function glossterm keycap literal manvolnum
    methodname para parameter phrase productname refentrytitle replaceable returnvalue simpara
    structfield structname systemitem term type userinput varname
    """.split()
)
# Separators of a name's parts: a path, a dotted or dashed name, words.
_NAME_PARTS = re.compile(r"[/.\- :]")
# Strings that are names, not values: the first argument of a lookup, or a subscript (a `[`
# after a name or a closing bracket: `os.environ["HOME"]`, `f()["key"]`). A `[` after `=`, `:`,
# `,` or `(` opens a list, whose first string is an item like the rest (`["DB_PASSWORD=..."]`).
_LOOKUP_CALL = re.compile(
    r"(?:\b(?:getenv|environ|env|get|fetch|getattr|hasattr|setdefault|pop|getProperty|"
    r"GetEnvironmentVariable|Getenv|LookupEnv|require|import|include|ENV)\s*[\(\[]|[\w)\]]\s*\[)\s*$"
)
# Strings that are patterns or placeholders, not values: a regular expression's source
# (`re.compile(r"...")`, `new RegExp("...")`) and a command-line metavar (`metavar="FILE[:LINE]"`).
_PATTERN_OR_METAVAR = re.compile(
    r"(?:\b(?:re|regex)\.(?:compile|search|match|fullmatch|sub|subn|findall|finditer|split)\(\s*[rRbB]{0,2}"
    r"|\bRegExp\(\s*|\bRegex\(\s*@?|\bmetavar\s*=\s*)$"
)
# Matched at the end of a string (no `^`: a slice per string would make a minified line quadratic).
_KEY_AFTER = re.compile(r"\s*(?:[\"'`]\s*)?(?::(?!:)|=>)")
# A string after `==` or `!=` is compared, so a colon after it ends a Python condition
# (`if password == "...":`), it does not make the string a mapping's key.
_COMPARED = re.compile(r"[=!]==?\s*$")
# A string inside a type's subscript is a forward reference to a class
# (`token: typing.Union["KerberosV5Msg", "PAETypeInfo2"]`).
_TYPE_SUBSCRIPT = re.compile(
    r"\b(?:Union|Optional|List|Dict|Tuple|Set|FrozenSet|Type|Sequence|Iterable|Iterator|Mapping|Callable|ClassVar|Final)"
    r"\[[^\[\]\n]*$"
)
# A reST role before a back-quoted target (`:data:`~flask.session``, `:ref:`config``): a reference.
_REST_ROLE = re.compile(r":[\w+\-]+(?::[\w+\-]+)?:$")
# HTML attributes that hold link targets, names and text, never a secret (`href="#x.y"`, `title="..."`).
_MARKUP_NAME_ATTRIBUTE = re.compile(r"(?<![\w\-])(?:href|src|class|title|rel|for|action|alt|lang)=$")
# Lines that are code statements rather than `key = value` settings: a value that calls,
# indexes or combines things is an expression, not a literal.
_EXPRESSION_CHARS = re.compile(r"[()\[\]{}]")


def find_slots(text: str) -> list[Slot]:
    """Every value slot of ``text``, sorted by position, with overlaps resolved.

    Args:
        text: a whole document.

    Returns:
        Disjoint slots sorted by ``start``.

    Example:
        >>> [(text[s.start:s.end], s.key, s.where) for text in ['db = "postgres://u:hunter2@h/x"']
        ...  for s in find_slots(text)]
        [('hunter2', 'url', 'url-userinfo')]
    """
    return list(_slots_of(text))


# A scan asks twice per document (what to score, then what to judge): remember the last few.
@lru_cache(maxsize=32)
def _slots_of(text: str) -> tuple[Slot, ...]:
    found: list[Slot] = []
    found.extend(pem_blocks(text))
    found.extend(putty_blocks(text))
    found.extend(credential_file_slots(text))
    found.extend(url_passwords(text))
    found.extend(header_values(text))
    defaulted = dict(expansion_defaults(text))
    found.extend(defaulted.values())
    lines = text.split("\n")
    line_starts = []
    offset = 0
    for line in lines:
        line_starts.append(offset)
        found.extend(line_slots(line, offset))
        offset += len(line) + 1
    found.extend(data_blocks(lines, line_starts))
    found.extend(embedded_data(text))
    for index, start, end, column in table_values(lines):
        found.append(Slot(line_starts[index] + start, line_starts[index] + end, column, LABEL))
    found.extend(Slot(start, end, "", VENDOR) for start, end, _ in find_vendor_tokens(text))
    # A string or a value that is one whole expansion with a default holds the default's slot.
    if defaulted:
        found = [s for s in found if (s.start, s.end) not in defaulted]
    found = _drop_within(found, sealed_spans(text) + jwk_public_spans(text))
    # A private key or a vendor's token stays what it is inside a parameter's description (an
    # "e.g." in a docstring); any other value there is the description's prose.
    described = described_parameter_spans(text)
    if described:
        kept = set(_drop_within(found, described))
        found = [s for s in found if s in kept or s.where in (PEM, VENDOR)]
    found = name_bare_tokens(text, name_doctest_outputs(text, yaml_list_slots(text, found)))
    found = name_pair_values(text, found)
    found = _without_emphasis(text, found)
    return tuple(_resolve(share_enclosing_names(text, _drop_inside_secret_labels(_share_secret_names(found)))))


def _without_emphasis(text: str, slots: list[Slot]) -> list[Slot]:
    """Cut Markdown's emphasis off a value written in it: notes set a password in bold
    (``Password: **<value>**``) as often as in a code span, and the stars are not the password's.
    Only stars that open and close the value alike and leave a value without a star at either end.

    Example:
        >>> text = "Password: **Zq8xP1sV9kL2**"
        >>> [text[s.start:s.end] for s in _without_emphasis(text, [Slot(10, 26, "Password", LABEL)])]
        ['Zq8xP1sV9kL2']
    """
    out = []
    for slot in slots:
        value = text[slot.start:slot.end]
        marks = len(value) - len(value.lstrip("*"))
        if 1 <= marks <= 2 and len(value) - len(value.rstrip("*")) == marks and len(value) > 2 * marks:
            slot = Slot(slot.start + marks, slot.end - marks, slot.key, slot.where, slot.inherited)
        out.append(slot)
    return out


def _drop_within(slots: list[Slot], spans: list[tuple[int, int]]) -> list[Slot]:
    """Drop every slot that overlaps one of ``spans``: values sealed for a key not in the file
    (:mod:`smscan.detectors.sealed_values`: ciphertext, or a run of it, is no credential) and a
    JSON Web Key's public members (:mod:`smscan.detectors.jwk_members`), or what a docstring's
    field list says of a parameter (:func:`~smscan.detectors.prose_labels.described_parameter_spans`)."""
    if not spans:
        return slots
    ordered = sorted(spans)
    starts = [start for start, _ in ordered]
    furthest = list(accumulate((end for _, end in ordered), max))

    def overlaps(slot: Slot) -> bool:
        before = bisect_left(starts, slot.end)
        return before > 0 and furthest[before - 1] > slot.start

    return [s for s in slots if not overlaps(s)]


def _share_secret_names(slots: list[Slot]) -> list[Slot]:
    """Give every slot the secret-saying name another finder read for exactly its span.

    ``Activation key : X`` is an assignment to ``key`` and a value labelled ``Activation key``;
    a vendor token is also a string bound to ``api_key``. Whichever slot the overlap order
    keeps, it keeps the name that says secret.
    """
    secret = {(s.start, s.end): s.key for s in slots if s.key and s.where != PEM and is_secret_name(s.key)}
    return [
        Slot(s.start, s.end, secret[(s.start, s.end)], s.where)
        if (s.start, s.end) in secret and not is_secret_name(s.key) else s
        for s in slots
    ]


def _drop_inside_secret_labels(slots: list[Slot]) -> list[Slot]:
    """Drop an assignment or option value that lies inside the value of a secret-named label.

    In ``PW:Vw=^ub6M2EOi`` the label's value holds ``=``, which the assignment finder reads as
    ``Vw = ^ub6M2EOi``; in ``mysql -u etl -pWc2=yUq`` the glued password reads as the option
    ``-pWc2`` with the value ``yUq``. Either slot outranks the label's and would cut the password
    in two. Other places inside a label's value (a URL's password, a header) keep their rank.
    """
    labels = sorted((s.start, s.end) for s in slots if s.where == LABEL and s.key and is_secret_name(s.key))
    if not labels:
        return slots
    # Labels sorted by start, with the furthest end reached so far: the labels that start before
    # a slot are a prefix, and one of them holds the slot when that prefix reaches its end.
    starts = [start for start, _ in labels]
    furthest = list(accumulate((end for _, end in labels), max))

    def inside_label(slot: Slot) -> bool:
        before = bisect_left(starts, slot.start)
        return before > 0 and slot.end <= furthest[before - 1]

    return [s for s in slots if s.where not in (ASSIGNMENT, ARGUMENT) or not inside_label(s)]


def _resolve(slots: list[Slot]) -> list[Slot]:
    """Keep slots by priority, dropping any that overlaps one already kept."""
    # Kept slots never overlap, so their starts and ends are sorted alike: one binary search
    # finds the only kept slot that could overlap a new one from the left.
    starts: list[int] = []
    ends: list[int] = []
    kept: list[Slot] = []
    for slot in sorted(slots, key=lambda s: (PRIORITY[s.where], s.start, -(s.end - s.start))):
        if slot.end <= slot.start:
            continue
        index = bisect_right(starts, slot.start)
        if index > 0 and ends[index - 1] > slot.start:
            continue
        if index < len(starts) and starts[index] < slot.end:
            continue
        starts.insert(index, slot.start)
        ends.insert(index, slot.end)
        kept.insert(index, slot)
    return kept


# The per-line finders are most of a document's slot search, and a hook scans the same files
# again and again with a few lines changed: a line's slots are remembered by its text, at offset 0.
# Lines longer than this (minified code) are searched each time and not kept: at most ~32 MB.
LINE_MEMO_CHARS = 1000
LINE_MEMO_LINES = 1 << 15


def line_slots(line: str, offset: int) -> list[Slot] | tuple[Slot, ...]:
    """The per-line slots of ``line`` (one line of a text, at ``offset`` in it), spans in the text.

    What the finders below give for ``line`` at ``offset``, found once per line text: every
    finder is a function of the line alone whose spans are shifted by ``offset``.
    """
    if len(line) > LINE_MEMO_CHARS:
        return list(_line_slots(line, offset))
    found = _line_slots_at_zero(line)
    if not offset or not found:
        return found
    return [Slot(s.start + offset, s.end + offset, s.key, s.where, s.inherited) for s in found]


@lru_cache(maxsize=LINE_MEMO_LINES)
def _line_slots_at_zero(line: str) -> tuple[Slot, ...]:
    return tuple(_line_slots(line, 0))


def _line_slots(line: str, offset: int) -> Iterator[Slot]:
    for start, end, name in option_values(line):
        yield Slot(offset + start, offset + end, name, ARGUMENT)
    for start, end, name in query_values(line):
        yield Slot(offset + start, offset + end, name, QUERY)
    for start, end, label in label_values(line):
        yield Slot(offset + start, offset + end, label, LABEL)
    for start, end in glued_passwords(line):
        yield Slot(offset + start, offset + end, "password", LABEL)
    pairs = list(paired_passwords(line))
    for start, end, label in pairs:
        yield Slot(offset + start, offset + end, label, LABEL)
    docker = docker_env_value(line)
    if docker:
        yield Slot(offset + docker[0], offset + docker[1], docker[2], ASSIGNMENT)
    quoted_spans: list[tuple[int, int]] = []
    key_spans: list[tuple[int, int]] = []
    markup = "<" in line
    for match in _QUOTED.finditer(line):
        quoted_spans.append((match.start(), match.end()))
        if _is_name_position(line, match.start(), match.end(), markup=markup):
            # A key in parts (`"org/model-8b-chat": {`) names a thing; one unbroken run may be
            # a secret a mapping is keyed by (`API_KEYS = {"<key>": "service-a"}`).
            if _is_mapping_key(line, match.start(), match.end()) and _NAME_PARTS.search(match.group("body")):
                key_spans.append((match.start(), match.end()))
            continue
        if has_path_token(match.group("body")):
            continue  # a URL: the token in its path is a slot of its own (`token_runs`)
        key = binding_before(line, match.start())
        yield from literal_values(line, match.start("body"), match.end("body"), key, offset, STRING)
    element_spans: list[tuple[int, int]] = []
    for match in _XML_ELEMENT.finditer(line):
        if match.group("tag").lower() in _MARKUP_TAGS:
            continue
        # An element's text is a literal as a string's body is (`<conn>Server=db;Password=...</conn>`,
        # `<env>DB_PASSWORD=...</env>`): its values come out with their own names.
        element_spans.append((match.start("value"), match.end("value")))
        keyed = _KEYING_ATTRIBUTE.search(match.group("attributes") or "")
        name = keyed.group("name") if keyed and not is_secret_name(match.group("tag")) else match.group("tag")
        yield from literal_values(line, match.start("value"), match.end("value"), name, offset, ASSIGNMENT)
    for match in _ASSIGNED.finditer(line):
        if _inside(match.start("value"), quoted_spans) or _inside(match.start("value"), element_spans):
            continue
        if has_path_token(match.group("value")):
            continue
        if any(match.start("value") <= start < match.end("value") for start, _, _ in pairs):
            continue  # `ID/Password=name/value`: the password alone is the slot
        value_end = _inside_brackets_end(line, match.start("value"), match.end("value"))
        value_end = _unquoted_attribute_end(line, match.start("key"), match.start("value"), value_end)
        if value_end == match.start("value"):
            continue
        value = line[match.start("value") : value_end]
        rest = line[value_end:].lstrip()
        if _EXPRESSION_CHARS.search(value) or rest.startswith(("(", "[", ".")):
            continue
        if is_hex_literal(value):
            continue
        yield from literal_values(line, match.start("value"), value_end, match.group("key"), offset, ASSIGNMENT)
    # A run inside a mapping's key of several parts is part of a name (a model catalog's
    # `"org/model-8b-chat": {`); vendors' tokens are found apart, wherever they are written.
    for run in token_runs(line, offset):
        if not _inside(run.start - offset, key_spans):
            yield run


_LONGEST_TAG = 2000


def _unquoted_attribute_end(line: str, key_start: int, start: int, end: int) -> int:
    """Where an unquoted value ends when its name is an attribute inside a tag that opened on its
    line (``<p class=tiny>Vorbisfile``): at the tag's ``>`` (or ``/>``), as HTML reads it. A
    value outside a tag keeps its ``>`` (a password may hold one).

    Example:
        >>> line = "<td><p class=tiny>Vorbisfile documentation</p>"
        >>> start = line.index("tiny"); line[start : _unquoted_attribute_end(line, line.index("class"), start, start + 15)]
        'tiny'
    """
    close = line.find(">", start, end + 1)  # `width=10/>`: the bracket may already be cut off
    if close < 0:
        return end
    # A tag's attributes fit in a bounded look back: a minified line holds thousands of `a=b>`.
    reach = max(key_start - _LONGEST_TAG, 0)
    opened = line.rfind("<", reach, key_start)
    if opened < 0 or line.rfind(">", reach, key_start) > opened or not line[opened + 1 : opened + 2].isalpha():
        return end
    return close - 1 if close > start and line[close - 1] == "/" else close


def _inside_brackets_end(line: str, start: int, end: int) -> int:
    """Where an unquoted value that runs to a closing angle bracket ends: before the brackets
    that opened earlier on its line and close on it (a link in markup, ``<https://host/watch?v=ID>`_``).
    Round and square brackets are left to the expression check (``m: bcrypt::Version::TwoA)`` is
    code, not a value that ends before its bracket).

    Example:
        >>> line = "  <https://www.example.com/watch?v=7KgihdKTWY4>`_."
        >>> start = line.index("7K"); line[start : _inside_brackets_end(line, start, line.index("`"))]
        '7KgihdKTWY4'
    """
    # Brackets are counted only for a value that ends in one: a minified line holds thousands of values.
    if end - start < 2 or line[end - 1] != ">" or line.count("<", 0, start) <= line.count(">", 0, start):
        return end
    while end > start + 1 and line[end - 1] == ">" and "<" not in line[start : end - 1]:
        end -= 1
    return end


def _is_mapping_key(line: str, quote_start: int, quote_end: int) -> bool:
    """A string followed by ``:`` or ``=>`` that no comparison opens: a mapping's key (``"k": v``)."""
    # (`"a" :: b` is no key: `:(?!:)` after the spaces refuses it.)
    return bool(_KEY_AFTER.match(line, quote_end)) and not _COMPARED.search(line, max(quote_start - 8, 0), quote_start)


def _is_name_position(line: str, quote_start: int, quote_end: int, *, markup: bool) -> bool:
    """A string used as a name: a mapping key (``"k": v``), the first argument of a lookup, a
    regular expression's source, a metavar, a reST role's target, an HTML attribute that holds
    a link target or a name (`id` is left to its name), or a class named in a type's subscript."""
    if _is_mapping_key(line, quote_start, quote_end):
        return True
    before = line[max(quote_start - 24, 0) : quote_start]
    if _PATTERN_OR_METAVAR.search(before):
        return True
    if line[quote_start] == "`" and _REST_ROLE.search(before):
        return True
    if markup and _MARKUP_NAME_ATTRIBUTE.search(before):
        return True
    left = line[max(quote_start - LEFT_CHARS, 0) : quote_start]
    return bool(_LOOKUP_CALL.search(left) or _TYPE_SUBSCRIPT.search(left))


def _inside(position: int, spans: list[tuple[int, int]]) -> bool:
    """True when ``position`` lies in one of ``spans`` (sorted and disjoint: the quoted strings of a line)."""
    # One binary search, not a look at every string: a minified line holds thousands.
    index = bisect_right(spans, (position, sys.maxsize)) - 1
    return index >= 0 and position < spans[index][1]
