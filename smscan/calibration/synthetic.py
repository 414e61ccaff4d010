"""Labelled validation data made from a team's own files, in memory, for any model.

``smscan calibrate --synthetic PATH`` reads the text files under PATH and plants, in copies held in
memory (never written anywhere), either synthetic credentials (random values of many shapes, bound
to names in the file's own syntax) or dead Python lines (statements that can never run or never
matter, with random names and constants) into some of them. The planted values or lines are the
targets; everything else in the files is non-target, so the threshold is chosen against the code
the scanner will actually guard.
"""

from __future__ import annotations

import ast
import base64
import random
import string
from collections.abc import Callable
from pathlib import Path

from smscan.calibration.label_groups import label_shape
from smscan.sources.labels import LabelledText
from smscan.errors import SmscanError
from smscan.kinds import CREDENTIAL, DEAD_CODE

_MAX_FILES = 400
_MAX_CHARS = 100_000
_ALNUM = string.ascii_letters + string.digits
_SYMBOLS = "!#%*+-.:=?@^_~"
_WORDS = (
    "amber anchor arrow basil birch cedar cobalt comet coral delta ember falcon fern garnet harbor "
    "indigo juniper kestrel lantern maple meadow nimbus onyx orchid pepper quartz raven saffron "
    "sierra tango thistle umber velvet willow yarrow zephyr"
).split()
_SECRET_NAMES = (
    "api_key apiKey API_TOKEN auth_token access_token secret client_secret SECRET_KEY password "
    "db_password PASSWD private_token service_key signing_secret webhook_secret"
).split()
_NEUTRAL_NAMES = "value setting config_value default DATA option param1 item_value".split()


def synthetic_documents(kind: str, root: Path, *, seed: int = 0) -> list[LabelledText]:
    """Labelled copies of the files under ``root``, with targets planted in some of them.

    Args:
        kind: ``credential`` or ``dead-code``.
        root: a folder (its git-ignored files are left out).
        seed: the random seed; the same files and seed give the same data.

    Returns:
        The labelled documents (planted and untouched ones), at most 400 files.

    Raises:
        SmscanError: no usable file under ``root``, or nothing could be planted.
    """
    from smscan.records import Document
    from smscan.sources.worktree import iter_worktree

    rng = random.Random(seed)
    texts = [
        (item.path, item.text)
        for item in iter_worktree(root, max_file_bytes=_MAX_CHARS)
        if isinstance(item, Document) and item.text.strip()
    ]
    rng.shuffle(texts)
    texts = texts[:_MAX_FILES]
    if not texts:
        raise SmscanError(f"{root}: no text file to build synthetic validation data from")
    plant = _planter(kind)
    documents = []
    for index, (path, text) in enumerate(sorted(texts)):
        planted = plant(path, text, rng) if index % 2 == 0 else None
        documents.append(planted or LabelledText(name=path, text=text, group=path, shape=label_shape(kind)))
    if not any(d.spans or d.lines for d in documents):
        raise SmscanError(f"{root}: nowhere to plant synthetic {kind} examples (for dead code: Python functions)")
    return documents


def _planter(kind: str) -> Callable[[str, str, random.Random], LabelledText | None]:
    planters = {CREDENTIAL: _plant_credentials, DEAD_CODE: _plant_dead_line}
    if kind not in planters:
        raise SmscanError(f"no synthetic {kind} examples: label real ones (--labels)")
    return planters[kind]


# Credentials -------------------------------------------------------------------------------


def _random_token(rng: random.Random) -> str:
    prefix = "".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, 5))) + rng.choice("_-")
    body = "".join(rng.choices(_ALNUM, k=rng.randint(20, 44)))
    return (prefix if rng.random() < 0.6 else "") + body


def _hex(rng: random.Random) -> str:
    return "".join(rng.choices("0123456789abcdef", k=rng.choice((32, 40, 64))))


def _base64(rng: random.Random) -> str:
    return base64.b64encode(rng.randbytes(rng.choice((18, 24, 32, 48)))).decode()


def _password(rng: random.Random) -> str:
    return "".join(rng.choices(_ALNUM + _SYMBOLS, k=rng.randint(10, 22)))


def _passphrase(rng: random.Random) -> str:
    words = rng.sample(_WORDS, rng.randint(2, 3))
    return rng.choice("-_.") .join(w.capitalize() if rng.random() < 0.5 else w for w in words) + str(rng.randint(10, 9999))


def _jwt_like(rng: random.Random) -> str:
    def part(n: int) -> str:
        return base64.urlsafe_b64encode(rng.randbytes(n)).decode().rstrip("=")

    return "eyJ" + part(24) + "." + part(rng.randint(40, 90)) + "." + part(32)


def _pem(rng: random.Random) -> str:
    body = base64.b64encode(rng.randbytes(rng.choice((120, 240, 400)))).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    label = rng.choice(("RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY"))
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----"


_VALUES: list[Callable[[random.Random], str]] = [_random_token, _hex, _base64, _password, _passphrase, _jwt_like]


def _credential_line(path: str, rng: random.Random) -> tuple[str, int, int]:
    """A line binding a random value in the file's syntax, and the value's span in it."""
    name = rng.choice(_SECRET_NAMES if rng.random() < 0.7 else _NEUTRAL_NAMES)
    value = rng.choice(_VALUES)(rng)
    suffix = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    form = rng.random()
    if form < 0.1:
        user = rng.choice(_WORDS)
        value = _password(rng).replace("@", "").replace(":", "").replace("/", "")
        line = f'DATABASE_URL = "postgres://{user}:{value}@db.internal:5432/app"'
    elif form < 0.18:
        line = f'headers = {{"Authorization": "Bearer {value}"}}'
    elif suffix in ("py", "pyi"):
        line = f'{name} = "{value}"'
    elif suffix in ("js", "mjs", "cjs", "ts", "tsx", "jsx"):
        line = f"const {name} = '{value}';"
    elif suffix in ("yaml", "yml"):
        line = f"{name}: {value}"
    elif suffix == "json":
        line = f'  "{name}": "{value}",'
    elif suffix in ("md", "rst", "txt"):
        line = f"    export {name.upper()}={value}"
    else:
        line = f"{name}={value}"
    start = line.index(value)
    return line, start, start + len(value)


def _plant_credentials(path: str, text: str, rng: random.Random) -> LabelledText | None:
    # Each line with the spans of planted values in it (none for the file's own lines).
    lines: list[tuple[str, list[tuple[int, int]]]] = [(line, []) for line in text.split("\n")]
    for at in sorted(rng.sample(range(len(lines) + 1), min(rng.randint(1, 2), len(lines) + 1)), reverse=True):
        if rng.random() < 0.08:
            pem = _pem(rng)
            block = ('key = """' + pem + '"""').split("\n")
            # The block spans its lines: first line from BEGIN, last line up to the END marker.
            first = block[0].index("-----BEGIN")
            planted = [(block[0], [(first, len(block[0]))])]
            planted += [(line, [(0, len(line))]) for line in block[1:-1]]
            planted.append((block[-1], [(0, block[-1].rindex("-----") + 5)]))
            lines[at:at] = planted
        else:
            line, start, end = _credential_line(path, rng)
            lines[at:at] = [(line, [(start, end)])]
    spans: list[tuple[int, int]] = []
    offset = 0
    for line, planted_spans in lines:
        for start, end in planted_spans:
            # Consecutive lines of one PEM block join into one span across their newlines.
            if spans and spans[-1][1] == offset - 1 and start == 0:
                spans[-1] = (spans[-1][0], offset + end)
            else:
                spans.append((offset + start, offset + end))
        offset += len(line) + 1
    new_text = "\n".join(line for line, _ in lines)
    return LabelledText(
        name=path, text=new_text, spans=tuple(spans), categories=("synthetic",) * len(spans), group=path
    )


# Dead code ---------------------------------------------------------------------------------


def _name(rng: random.Random) -> str:
    return "".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 7))) + "_" + "".join(rng.choices(string.ascii_lowercase + string.digits, k=3))


def _dead_statement(rng: random.Random) -> str:
    a, b = rng.randint(-500, 500), rng.randint(501, 999)
    choice = rng.randrange(5)
    if choice == 0:
        return f"if {a} > {b}: {_name(rng)} = {rng.randint(0, 99999)}"
    if choice == 1:
        return f"while {b} < {a}: break"
    if choice == 2:
        return f"for {_name(rng)} in range(0): print({rng.randint(0, 999)})"
    if choice == 3:
        return f"{_name(rng)} = {rng.randint(0, 99999)}"
    return f'if len("{_name(rng)}") < 0: raise ValueError("{_name(rng)}")'


def _plant_dead_line(path: str, text: str, rng: random.Random) -> LabelledText | None:
    if not path.endswith(".py"):
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    sites = [
        statement
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        for statement in node.body[1:]
        if not isinstance(statement, ast.Expr)
    ]
    if not sites:
        return None
    site = rng.choice(sites)
    lines = text.split("\n")
    indent = lines[site.lineno - 1][: site.col_offset]
    lines.insert(site.lineno - 1, indent + _dead_statement(rng))
    return LabelledText(name=path, text="\n".join(lines), lines=(site.lineno,), group=path, shape="lines")
