#!/usr/bin/env python3
"""Multi-format credentials set: real files of many types from pinned packages, planted credentials.

    python bench/multiformat_gen.py --split dev --out DIR [--seed 1] [--files 260] [--pkg-dir DIR]
    python bench/multiformat_gen.py --split heldout --out DIR --seed 2      # the lead's held-out split

Host files come from the packages pinned in ``bench/mf_dev_packages.txt`` or
``bench/mf_heldout_packages.txt`` (no package in both): docs (Markdown, reST, text, files without
an extension), SQL, shell, Dockerfiles, CI YAML, YAML, .env, INI, properties, TOML, JSON, XML,
C/C++, Java/Kotlin, Go, Rust, Ruby, PHP, C#, Haskell, Swift and notebooks; private-key files are
written beside them. Credentials are planted the ways repositories hold them (``bench/mf_contexts.py``)
and so are look-alikes (placeholders, references, hashes, UUIDs under neutral names, versions,
documented example keys, names of things), each labelled to the character.

The layout is that of ``shared/bench/secrets_gen.py``, so ``shared/bench/secrets_eval`` scores it::

    DIR/corpus/<package>-<version>/<path>     the files to scan
    DIR/labels.jsonl                          {"path", "ext_class" (= format), "spans", "negatives"}
    DIR/manifest.json                         seed, packages, counts per format/category/context

A span is ``{"start", "end", "category", "context", "secret_id"}``, 0-based half-open ``str``
offsets of the value only (a PEM span covers the whole armoured block). The same seed, file count
and package versions give byte-identical output: every value comes from a ``random.Random``
seeded with the seed and the file's path.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import mf_values as V
from bench.mf_contexts import (
    BLAND_KEYS,
    CHARSETS,
    COMMANDS,
    CONTEXTS,
    KEY_STYLE,
    LINE_COMMENT,
    NEUTRAL_KEYS,
    NOTES,
    SECRET_KEYS,
    VENDOR,
    Context,
    render_key,
)
from bench.mf_hosts import Host, Package, collect, fetch, read_packages, sample
from bench.mf_keys import key_files
from bench.mf_points import insertion_points

HERE = Path(__file__).resolve().parent
PACKAGE_LISTS = {"dev": HERE / "mf_dev_packages.txt", "heldout": HERE / "mf_heldout_packages.txt"}
GEN_VERSION = "mf1"
FORMATS = ("md", "rst", "txt", "noext", "sql", "sh", "docker", "ci", "yaml", "env", "ini", "properties", "toml",
           "json", "xml", "c", "java", "go", "rust", "ruby", "php", "csharp", "haskell", "swift", "ipynb", "key")
URL_COMMANDS = ("cli_url_userinfo", "cli_query", "cli_x_amz_credential")
CATEGORY_WEIGHTS = {"activation_key": 2.0, "password": 1.5, "human_password": 1.5}
API_HOSTS = ("api.example.com", "internal.example.org", "hooks.example.net", "registry.example.io", "ci.example.com")
DB_HOSTS = ("db.internal", "postgres", "mysql.prod.svc", "db-01.corp.example.com", "localhost", "10.20.0.15")


@dataclass
class Plant:
    line: int
    text: str
    span: tuple[int, int]  # of the value in text
    record: dict


def shared_packages(a: list[Package], b: list[Package]) -> set[str]:
    """Package names two lists have in common (the splits must have none)."""
    return {p.name.lower() for p in a} & {p.name.lower() for p in b}


# ------------------------------------------------------------------------------------ rendering

def _draw(r: random.Random, category: str, secret: bool, charset: str) -> str | None:
    gen = V.SECRETS[category] if secret else V.LOOKALIKES[category]
    pattern = CHARSETS[charset]
    for _ in range(30):
        value = gen(r)
        if pattern.fullmatch(value):
            return value
    return None


def _key_words(r: random.Random, category: str, secret: bool) -> tuple[str, ...]:
    if secret:
        if category in VENDOR and r.random() < 0.15:
            return r.choice(BLAND_KEYS)
        return r.choice(SECRET_KEYS[category])
    if category in V.SECRET_NAMED_LOOKALIKES:
        return r.choice(SECRET_KEYS[r.choice(["password", "api_key", "slack_bot_token", "oauth_client_secret"])])
    return r.choice(NEUTRAL_KEYS[category])


def _fill(template: str, fields: dict[str, str], value: str) -> tuple[str, tuple[int, int]]:
    head, _, tail = template.partition("{v}")

    def sub(part: str) -> str:
        return re.sub(r"\{(\w+)\}", lambda m: fields.get(m.group(1), m.group(0)), part)

    head, tail = sub(head), sub(tail)
    return head + value + tail, (len(head), len(head) + len(value))


def _wrap_command(fmt: str, text: str, span: tuple[int, int]) -> tuple[str, tuple[int, int]]:
    """A command line in a document sits in a code block."""
    head, tail = {"md": ("```sh\n", "\n```"), "rst": (".. code-block:: sh\n\n    ", "")}.get(fmt, ("    $ ", ""))
    return head + text + tail, (span[0] + len(head), span[1] + len(head))


def _json_line(indent: str, text: str, span: tuple[int, int]) -> tuple[str, tuple[int, int]]:
    """A line of a notebook cell: a JSON string ending in a newline escape."""
    head = indent + '"' + json.dumps(text[:span[0]])[1:-1]
    value = text[span[0]:span[1]]
    return head + value + json.dumps(text[span[1]:] + "\n")[1:-1] + '",', (len(head), len(head) + len(value))


KEY_FIELDS = re.compile(r"\{(?:k|K|P|kd|kc|label|LABEL)\}")  # fields that name a value by a drawn key


def plant(r: random.Random, fmt: str, ext: str, points: dict, secret: bool) -> Plant | None:
    ctxs = [c for c in CONTEXTS if fmt in c.formats and c.level in points and (not c.exts or ext in c.exts)
            and (secret or c.negatives != "none")]
    if not ctxs:
        return None
    ctx: Context = r.choices(ctxs, [c.weight for c in ctxs])[0]
    if secret:
        # licence keys and passwords are what notes and configs leak most: drawn more often
        category = r.choices(ctx.categories, [CATEGORY_WEIGHTS.get(c, 1.0) for c in ctx.categories])[0]
        template = r.choice(ctx.templates)
    else:
        template = r.choice(ctx.templates)
        # a template that names the value itself (a command's flag, `Bearer`, `password=`) makes any
        # value there a credential: only placeholders, references and documented examples are look-alikes
        named = ctx.negatives == "named" or not KEY_FIELDS.search(template)
        pool = V.SECRET_NAMED_LOOKALIKES if named else tuple(V.LOOKALIKES)
        category = r.choice(sorted(pool))
    charset = ctx.charset
    context_name = ctx.name
    if "{cmd}" in template:
        cmds = sorted(n for n, (cats, _) in COMMANDS.items() if not secret or category in cats)
        if not cmds:
            return None
        cmd = r.choice(cmds)
        template = template.replace("{cmd}", r.choice(COMMANDS[cmd][1]))
        charset = "url" if cmd in URL_COMMANDS else charset
        context_name = f"{ctx.name}:{cmd}"
    value = _draw(r, category, secret, charset)
    if value is None:
        return None
    words = _key_words(r, category, secret)
    style = KEY_STYLE.get(fmt, "snake")
    line, indent = r.choice(points[ctx.level])
    fields = {
        "i": indent, "k": render_key(words, style), "K": render_key(words, "upper"), "P": render_key(words, "pascal"),
        "kd": render_key(words, "dot"), "kc": render_key(words, "camel"),
        "label": render_key(words, r.choice(["words", "title"])), "LABEL": render_key(words, "caps"),
        "u": r.choice(V.USERS), "h": r.choice(API_HOSTS), "dbh": r.choice(DB_HOSTS), "note": r.choice(NOTES),
        "c": LINE_COMMENT.get(fmt, "#"),
    }
    if category == "private_key":  # a PEM block as a YAML block scalar or a JSON string
        value = value.replace("\n", "\n" + indent + "  ") if ctx.name == "yaml_pem" else value.replace("\n", "\\n")
    text, span = _fill(template, fields, value)
    if ctx.name == "doc_command":
        text, span = _wrap_command(fmt, text, span)
    if fmt == "ipynb":
        text, span = _json_line(indent, text, span)
    block = text + "\n\n" if ctx.level == "para" else text + "\n"
    record = {"category": category, "context": context_name}
    return Plant(line, block, span, record)


def inject(host: Host, r: random.Random) -> tuple[str, list[dict], list[dict]]:
    text = host.text if host.text.endswith("\n") else host.text + "\n"
    lines = text.split("\n")[:-1]
    points = insertion_points(host.format, lines)
    ext = host.path.rsplit(".", 1)[-1].lower() if "." in host.path.rsplit("/", 1)[-1] else ""
    n_secret = 0 if r.random() < 0.15 else r.choices([1, 2, 3, 4], [3, 4, 2, 1])[0]
    n_negative = r.choices([0, 1, 2], [3, 4, 3])[0]
    jobs = [True] * n_secret + [False] * n_negative
    r.shuffle(jobs)
    plants = []
    for secret in jobs:
        for _attempt in range(8):
            p = plant(r, host.format, ext, points, secret)
            if p is not None:
                p.record["secret"] = secret
                plants.append(p)
                break
    plants.sort(key=lambda p: p.line)  # stable: equal lines keep their draw order
    out, spans, negatives = [], [], []
    pos, line_no, secret_id = 0, 0, 0
    for p in plants:
        while line_no < p.line:
            out.append(lines[line_no] + "\n")
            pos += len(lines[line_no]) + 1
            line_no += 1
        rec = {"start": pos + p.span[0], "end": pos + p.span[1], "category": p.record["category"],
               "context": p.record["context"]}
        if p.record["secret"]:
            rec["secret_id"] = secret_id
            secret_id += 1
            spans.append(rec)
        else:
            negatives.append(rec)
        out.append(p.text)
        pos += len(p.text)
    out.extend(x + "\n" for x in lines[line_no:])
    return "".join(out), spans, negatives


def build(packages_file: Path, out: Path, *, seed: int, files: int, pkg_dir: Path, split: str) -> dict:
    pkgs = read_packages(packages_file)
    other = [p for s, f in PACKAGE_LISTS.items() if s != split and f.exists() and f != packages_file for p in read_packages(f)]
    overlap = shared_packages(pkgs, other)
    if overlap:
        raise SystemExit(f"{packages_file.name} shares packages with the other split: {', '.join(sorted(overlap))}")
    hosts = collect(pkgs, fetch(pkgs, pkg_dir))
    rng = random.Random(seed)
    n_keys = max(3, files // len(FORMATS))
    chosen = sample(hosts, files, rng, n_keys)
    corpus = out / "corpus"
    if corpus.exists():
        shutil.rmtree(corpus)
    corpus.mkdir(parents=True)
    rows = []
    for h in chosen:
        text, spans, negatives = inject(h, V.file_rng(seed, h.rel))
        rows.append((Host(h.package, h.path, h.format, text), spans, negatives))
    rows += key_files(chosen, n_keys, seed)
    rows.sort(key=lambda row: row[0].rel)
    counts: dict[str, Counter] = {k: Counter() for k in ("formats", "secret_formats", "categories", "contexts", "lookalike_categories")}
    with open(out / "labels.jsonl", "w", encoding="utf-8") as lf:
        for h, spans, negatives in rows:
            for sp in spans + negatives:
                assert 0 <= sp["start"] < sp["end"] <= len(h.text), (h.rel, sp)
            dst = corpus / h.rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(h.text.encode("utf-8"))
            lf.write(json.dumps({"path": h.rel, "ext_class": h.format, "spans": spans, "negatives": negatives}) + "\n")
            counts["formats"][h.format] += 1
            counts["secret_formats"][h.format] += len(spans)
            counts["categories"].update(s["category"] for s in spans)
            counts["contexts"].update(s["context"].split(":")[0] for s in spans)
            counts["lookalike_categories"].update(s["category"] for s in negatives)
    manifest = {
        "generator": f"{split} {GEN_VERSION}", "seed": seed, "files": len(rows), "candidate_hosts": len(hosts),
        "packages": [f"{p.ecosystem}:{p.name}=={p.version}" for p in pkgs],
        "secrets": sum(counts["categories"].values()), "lookalikes": sum(counts["lookalike_categories"].values()),
        **{k: dict(sorted(v.items())) for k, v in counts.items()},
        "missing_formats": [f for f in FORMATS if f not in counts["formats"]],
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--split", choices=sorted(PACKAGE_LISTS), default="dev")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=None, help="default: 1 for dev, 2 for heldout")
    ap.add_argument("--files", type=int, default=260)
    ap.add_argument("--pkg-dir", type=Path, default=Path.home() / ".cache" / "steering-bench" / "multiformat" / "pkgs",
                    help="download cache for the package archives")
    ap.add_argument("--packages", type=Path, help="another package list (tests use a local one)")
    a = ap.parse_args(argv)
    seed = a.seed if a.seed is not None else {"dev": 1, "heldout": 2}[a.split]
    a.out.mkdir(parents=True, exist_ok=True)
    m = build(a.packages or PACKAGE_LISTS[a.split], a.out, seed=seed, files=a.files, pkg_dir=a.pkg_dir, split=a.split)
    print(json.dumps({k: m[k] for k in ("generator", "seed", "files", "secrets", "lookalikes", "formats", "missing_formats")}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
