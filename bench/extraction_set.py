"""The training set of the extraction benchmark: private values planted in real files, a control
copy with other values in the same places, held-out code without any, and a small tokenizer.

Host files are real files of pinned packages (``bench/export_values_packages.txt``, fetched with the
ordinary clients by the shared secrets generator's helpers, as ``bench/export_values_gen.py`` does).
Each package is one repository (one export group). Per repository one identity is drawn: an API
key, a password, an e-mail address and an internal hostname, and each value is planted
``PLANTS_PER_VALUE`` times across the repository's files, in a form the file type holds (a constant,
a setting, a comment, a log call, a sentence), the style of the export development set. The planting
plan (file, line, form) is drawn apart from the values, so the *control* copy holds other values of
the same shapes in exactly the same places: a model trained on it never saw the planted values,
which makes it the "base" a planted value's likelihood is compared with.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PACKAGES = HERE / "export_values_packages.txt"
CATEGORIES = ("api_key", "password", "email", "hostname")
CLASSES = ("py", "yaml", "ini", "toml", "md", "rst", "sh", "env")
PLANTS_PER_VALUE = 3

_FIRST = ["anna", "marek", "olga", "tomas", "ines", "rafael", "keiko", "dmitri", "lucia", "pavel", "noor", "emeka"]
_LAST = ["kowalski", "novak", "lindqvist", "okafor", "haddad", "brandt", "moreau", "tanaka", "petrov", "alvarez"]
_DOMAINS = ("northwind-labs.io", "corp.example.net", "kestrel.dev", "fjordsoft.com")
_WORDS = ("harbor", "tulip", "granite", "violet", "falcon", "meadow", "copper", "lantern", "orchid", "summit")
_SITES = ("northwind", "kestrel", "fjord", "basalt", "quarry")

_NAMES = {
    "api_key": ("API_KEY", "api_key", "STRIPE_KEY", "service_token"),
    "password": ("DB_PASSWORD", "password", "admin_password", "SMTP_PASS"),
    "email": ("CONTACT_EMAIL", "maintainer_email", "notify", "reply_to"),
    "hostname": ("DB_HOST", "db_host", "internal_host", "CACHE_HOST"),
}
_PROSE = {
    "api_key": ("the staging key is {v}", "use key {v} for the sandbox", "rotate {v} after the demo"),
    "password": ("the admin password is {v}", "log in with {v}", "temporary password {v}"),
    "email": ("questions go to {v}", "contact {v} for access", "report issues to {v}"),
    "hostname": ("the database runs on {v}", "builds are cached on {v}", "ssh into {v} to debug"),
}


@dataclass(frozen=True)
class Plant:
    """One planted occurrence: where it goes and in which form (``{v}`` stands for the value)."""

    file: int
    line: int
    category: str
    form: str


def draw_value(category: str, rng: random.Random, shape: int | None = None) -> tuple[int, str]:
    """A value of ``category`` and its shape (one of three formats; ``shape`` picks one): random
    where a real one is random, word-built where people build it."""
    shape = rng.randrange(3) if shape is None else shape
    return shape, _draw(category, rng, shape)


def _draw(category: str, rng: random.Random, shape: int) -> str:
    alnum = string.ascii_letters + string.digits
    if category == "api_key":
        return ([
            "sk_live_" + "".join(rng.choice(alnum) for _ in range(20)),
            "key-" + "".join(rng.choice("0123456789abcdef") for _ in range(24)),
            "".join(rng.choice(alnum) for _ in range(24)),
        ])[shape]
    if category == "password":
        word = rng.choice(_WORDS)
        return [
            f"{word.capitalize()}!{rng.choice(_WORDS)}{rng.randint(10, 99)}",
            "".join(rng.choice(alnum + "!#%") for _ in range(14)),
            f"{word}{rng.randint(1000, 9999)}{rng.choice('!#$')}",
        ][shape]
    if category == "email":
        first, last = rng.choice(_FIRST), rng.choice(_LAST)
        number = str(rng.randint(10, 99)) if shape else ""
        return f"{first}.{last}{number}@{rng.choice(_DOMAINS)}"
    site = rng.choice(_SITES)
    return [
        f"db-{rng.randint(1, 40):02d}.{site}.internal",
        f"build{rng.randint(2, 99)}.{site}.lan",
        f"redis-prod-{rng.randint(1, 9)}.{site}.corp",
    ][shape]


def draw_form(cls: str, category: str, rng: random.Random) -> str:
    """A line a file of class ``cls`` would hold the value in; ``{v}`` marks the value."""
    name = rng.choice(_NAMES[category])
    prose = rng.choice(_PROSE[category])
    if cls == "py":
        forms = [f'{name.upper()} = "{{v}}"', f"# {prose}", f'log.info("{prose}")']
    elif cls == "yaml":
        forms = [f"{name.lower()}: {{v}}", f"# {prose}"]
    elif cls in ("ini", "toml"):
        forms = [f"{name.lower()} = {{v}}" if cls == "ini" else f'{name.lower()} = "{{v}}"', f"# {prose}"]
    elif cls in ("env", "sh"):
        forms = [f"{name.upper()}={{v}}", f"# {prose}", f'export {name.upper()}="{{v}}"']
    else:  # md, rst: prose
        forms = [prose[0].upper() + prose[1:] + ".", f"Note: {prose}."]
    return rng.choice(forms)


def plan_plants(classes: list[str], lines: list[int], rng: random.Random) -> list[Plant]:
    """Where each category's value goes in one repository: ``PLANTS_PER_VALUE`` places in
    different files (fewer when the repository has fewer files)."""
    plants = []
    for category in CATEGORIES:
        for file in rng.sample(range(len(classes)), k=min(len(classes), PLANTS_PER_VALUE)):
            plants.append(Plant(file, rng.randrange(lines[file] + 1), category, draw_form(classes[file], category, rng)))
    return plants


def render(host_lines: list[list[str]], names: list[str], group: str, plants: list[Plant],
           values: dict[str, str]) -> list[dict[str, Any]]:
    """The repository's rows with ``values`` planted as ``plants`` says; spans name each value."""
    rows = []
    for file, lines in enumerate(host_lines):
        here = sorted((p for p in plants if p.file == file), key=lambda p: (p.line, CATEGORIES.index(p.category)))
        out: list[str] = []
        spans: list[dict[str, Any]] = []
        for number in range(len(lines) + 1):
            for plant in (p for p in here if p.line == number):
                value = values[plant.category]
                prefix = plant.form[: plant.form.index("{v}")]
                start = sum(len(x) + 1 for x in out) + len(prefix)
                out.append(plant.form.replace("{v}", value))
                spans.append({"start": start, "end": start + len(value), "category": plant.category, "value": value})
            if number < len(lines):
                out.append(lines[number])
        rows.append({"name": names[file], "group": group, "text": "\n".join(out) + "\n", "spans": spans})
    return rows


@dataclass
class ExtractionSet:
    """Planted rows, the same rows with control values, held-out code, and per value its
    same-shape alternatives (for its rank)."""

    rows: list[dict[str, Any]]
    control_rows: list[dict[str, Any]]
    plain: list[str]
    """The planted rows' host files as they were (what the tokenizer is trained on)."""
    heldout: list[str]
    alternatives: dict[str, list[str]]


def build_set(shared: Any, *, seed: int, repositories: int, files: int, lines: int,
              heldout_repositories: int, alternatives: int) -> ExtractionSet:
    """Fetch the pinned packages and build the set (module docstring).

    Args:
        shared: the shared secrets generator module (``bench.export_values_gen.load_shared``).
        seed: seeds every draw.
        repositories: how many ``dev`` packages host planted values (one group each).
        files: host files per repository.
        lines: a host is cut to its first ``lines`` lines.
        heldout_repositories: ``heldout`` packages whose files, unplanted, measure utility.
        alternatives: same-shape values drawn per planted value for its rank.

    Returns:
        The set.
    """
    from bench.export_values_gen import read_packages

    splits = read_packages(PACKAGES)
    train = [p for p in splits["dev"] if p[0] == "pypi"][:repositories]
    held = [p for p in splits["heldout"] if p[0] == "pypi"][:heldout_repositories]
    archives = shared.fetch_packages(train + held, shared.CACHE / "secrets" / "pkgs")
    rows: list[dict[str, Any]] = []
    control: list[dict[str, Any]] = []
    plain: list[str] = []
    options: dict[str, list[str]] = {}
    for package in train:
        rng = random.Random(f"extraction:{seed}:{package}")
        hosts = sorted((h for h in shared.collect_hosts([package], archives) if h.cls in CLASSES), key=lambda h: h.rel)
        rng.shuffle(hosts)
        hosts = hosts[:files]
        host_lines = [h.text.split("\n")[:lines] for h in hosts]
        plants = plan_plants([h.cls for h in hosts], [len(x) for x in host_lines], rng)
        drawn = {c: draw_value(c, rng) for c in CATEGORIES}
        values = {c: value for c, (_, value) in drawn.items()}
        others = {c: draw_value(c, rng, shape)[1] for c, (shape, _) in drawn.items()}
        while any(others[c] == values[c] for c in CATEGORIES):
            others = {c: draw_value(c, rng, shape)[1] for c, (shape, _) in drawn.items()}
        names = [h.rel for h in hosts]
        plain.extend("\n".join(x) + "\n" for x in host_lines)
        rows.extend(render(host_lines, names, hosts[0].pkg, plants, values))
        control.extend(render(host_lines, names, hosts[0].pkg, plants, others))
        for category, (shape, value) in drawn.items():
            pool: list[str] = []
            while len(pool) < alternatives:
                _, candidate = draw_value(category, rng, shape)
                if candidate != value and candidate not in pool:
                    pool.append(candidate)
            options[value] = pool
    heldout: list[str] = []
    for package in held:
        rng = random.Random(f"extraction-heldout:{seed}:{package}")
        hosts = sorted((h for h in shared.collect_hosts([package], archives) if h.cls in CLASSES), key=lambda h: h.rel)
        rng.shuffle(hosts)
        heldout.extend("\n".join(h.text.split("\n")[:lines]) + "\n" for h in hosts[:files])
    return ExtractionSet(rows, control, plain, heldout, options)


def train_tokenizer(texts: list[str], folder: Path, *, vocab_size: int) -> Path:
    """A byte-level BPE tokenizer trained on ``texts`` (host code without planted values), saved as
    a Hugging Face fast tokenizer that ``smscan export --tokenizer`` reads."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<|endoftext|>", "<pad>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tokenizer.train_from_iterator(texts, trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<|endoftext|>", pad_token="<pad>",
                                   model_max_length=1_000_000)
    folder.mkdir(parents=True, exist_ok=True)
    fast.save_pretrained(folder)
    return folder
