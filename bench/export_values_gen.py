#!/usr/bin/env python3
"""A development set for value-aware masked exports: private identities planted in real files.

    python -m bench.export_values_gen --shared SHARED/bench --out /tmp/h-export/values [--seed 0]

Host files are real files of pinned packages (``bench/export_values_packages.txt``), fetched with
the ordinary clients by the shared secrets generator's helpers (``pip download`` sdists, ``npm
pack``; cached under ``~/.cache/steering-bench``). Each package is one repository. Per
repository a handful of identities is drawn (a username, an email, an account id, a workspace
id, a recovery code) and each is planted two to four times across the repository's files, in a
place its file type would hold it (a Python constant, a JS ``const``, a YAML/INI/.env setting, a
comment, a log call, a Markdown sentence). A repeat is exactly the same string, so duplicate
propagation within a repository (``--group-by group``) can find it.

The split is by repository, from the package list: ``dev`` packages (tune and validate on them)
and ``heldout`` packages (measure once, never tune). Written: ``DIR/dev.jsonl`` and
``DIR/heldout.jsonl``, label rows ``{"text", "spans": [{"start", "end", "category"}], "group",
"name"}`` that ``smscan calibrate --kind surprise --labels`` and ``export --labels`` read, and
``DIR/manifest.json`` (packages, seed, counts).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import string
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
PACKAGES = HERE / "export_values_packages.txt"
FILES_PER_REPOSITORY = 14
MAX_LINES = 70  # a host is cut to its first lines: scoring stays a few CPU minutes
CLASSES = ("py", "js", "ts", "yaml", "ini", "toml", "env", "md", "rst", "sh", "json")

_FIRST = ["anna", "marek", "olga", "tomas", "ines", "rafael", "keiko", "dmitri", "lucia", "pavel", "noor", "emeka", "sigrid", "tariq"]
_LAST = ["kowalski", "novak", "lindqvist", "okafor", "haddad", "brandt", "moreau", "tanaka", "petrov", "alvarez", "sato", "quinn"]
_DOMAINS = ("northwind-labs.io", "corp.example.net", "kestrel.dev", "fjordsoft.com", "mailbox.org")


def load_shared(path: Path) -> ModuleType:
    """The shared secrets generator as a module (its fetch and host helpers are meant to be imported)."""
    spec = importlib.util.spec_from_file_location("secrets_gen", path / "secrets_gen.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"{path}: no secrets_gen.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["secrets_gen"] = module
    spec.loader.exec_module(module)
    return module


def read_packages(path: Path) -> dict[str, list[tuple[str, str, str]]]:
    """``split ecosystem name version`` lines -> packages per split."""
    out: dict[str, list[tuple[str, str, str]]] = {"dev": [], "heldout": []}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            split, eco, name, version = line.split()
            out[split].append((eco, name, version))
    return out


def identities(rng: random.Random) -> list[tuple[str, str]]:
    """(category, value) of one repository's private identities."""
    first, last = rng.choice(_FIRST), rng.choice(_LAST)
    digits = lambda n: "".join(rng.choice(string.digits) for _ in range(n))
    alnum = lambda n: "".join(rng.choice(string.ascii_lowercase + string.digits) for _ in range(n))
    upper = lambda n: "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(n))
    username = rng.choice([f"{first[0]}{last}{digits(2)}", f"{first}.{last}", f"{first}_{last[:3]}{digits(3)}"])
    return [
        ("username", username),
        ("email", f"{first}.{last}{rng.choice(['', digits(2)])}@{rng.choice(_DOMAINS)}"),
        ("account_id", rng.choice([f"acct_{digits(10)}", f"AC-{digits(5)}-{digits(4)}", digits(12)])),
        ("workspace_id", rng.choice([f"ws-{alnum(10)}", f"W{upper(9)}", f"team-{alnum(6)}-{digits(4)}"])),
        ("recovery_code", "-".join(upper(4) for _ in range(4))),
    ]


_NAMES = {
    "username": ("OWNER", "owner", "admin_user", "username", "deploy_user"),
    "email": ("CONTACT_EMAIL", "maintainer_email", "notify", "reply_to", "email"),
    "account_id": ("ACCOUNT_ID", "account_id", "billing_account", "customer"),
    "workspace_id": ("WORKSPACE_ID", "workspace", "team_id", "org_workspace"),
    "recovery_code": ("RECOVERY_CODE", "backup_code", "recovery_code", "mfa_backup"),
}
_PROSE = {
    "username": ("ask {v} for access", "maintained by {v}", "reviewed by {v} before release"),
    "email": ("questions go to {v}", "contact {v} for the staging keys", "report issues to {v}"),
    "account_id": ("billed to account {v}", "migrated from account {v}", "see account {v}"),
    "workspace_id": ("runs in workspace {v}", "shared workspace {v}", "moved to {v} last year"),
    "recovery_code": ("emergency recovery code {v}", "backup code {v} (rotate!)", "MFA fallback {v}"),
}


def planted_line(cls: str, category: str, value: str, indent: str, rng: random.Random) -> tuple[str, int]:
    """A line holding ``value`` in a form a file of class ``cls`` would hold it, and the value's
    offset in the line."""
    name = rng.choice(_NAMES[category])
    prose = rng.choice(_PROSE[category])
    if cls == "py":
        forms = [f'{name.upper()} = "{value}"', f"# {prose.format(v=value)}", f'log.info("{prose.format(v=value)}")',
                 f'{name} = "{value}"  # do not share']
    elif cls in ("js", "ts"):
        forms = [f"const {name.upper()} = '{value}';", f"// {prose.format(v=value)}", f"console.log('{prose.format(v=value)}');"]
    elif cls == "yaml":
        forms = [f"{name}: {value}", f"# {prose.format(v=value)}", f'{name}: "{value}"']
    elif cls in ("ini", "toml"):
        forms = [f"{name} = {value}" if cls == "ini" else f'{name} = "{value}"', f"# {prose.format(v=value)}"]
    elif cls in ("env", "sh"):
        forms = [f"{name.upper()}={value}", f"# {prose.format(v=value)}", f'export {name.upper()}="{value}"']
    elif cls == "json":
        forms = [f'"{name}": "{value}",']
    else:  # md, rst: prose
        text = prose.format(v=value)
        forms = [text[0].upper() + text[1:] + ".", f"Note: {text}."]
    line = indent + rng.choice(forms)
    return line, line.index(value)


def plant(hosts: list[Any], rng: random.Random) -> list[dict[str, Any]]:
    """Plant one repository's identities in its hosts; label rows with the planted spans."""
    lines_of = [host.text.split("\n")[:MAX_LINES] for host in hosts]
    planted: list[list[tuple[int, str, str]]] = [[] for _ in hosts]  # (line number, category, value)
    for category, value in identities(rng):
        for index in rng.sample(range(len(hosts)), k=min(len(hosts), rng.randint(2, 4))):
            planted[index].append((rng.randrange(len(lines_of[index]) + 1), category, value))
    rows = []
    for host, lines, here in zip(hosts, lines_of, planted):
        out: list[str] = []
        spans: list[dict[str, Any]] = []
        inserts = sorted(here)
        for number in range(len(lines) + 1):
            for at, category, value in inserts:
                if at == number:
                    following = lines[number] if number < len(lines) else ""
                    indent = following[: len(following) - len(following.lstrip())] if host.cls in ("py", "js", "ts", "yaml") else ""
                    line, column = planted_line(host.cls, category, value, indent, rng)
                    start = sum(len(x) + 1 for x in out) + column
                    spans.append({"start": start, "end": start + len(value), "category": category})
                    out.append(line)
            if number < len(lines):
                out.append(lines[number])
        rows.append({"name": host.rel, "group": host.pkg, "text": "\n".join(out) + "\n", "spans": spans})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shared", type=Path, required=True, help="the shared bench folder (secrets_gen.py)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--packages", type=Path, default=PACKAGES)
    args = parser.parse_args(argv)
    shared = load_shared(args.shared)
    splits = read_packages(args.packages)
    pkg_dir = shared.CACHE / "secrets" / "pkgs"
    args.out.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {"seed": args.seed, "packages": {}, "rows": {}, "private_chars": {}}
    for split, packages in splits.items():
        archives = shared.fetch_packages(packages, pkg_dir)
        rows: list[dict[str, Any]] = []
        for package in packages:
            rng = random.Random(f"{args.seed}:{package}")
            hosts = [h for h in shared.collect_hosts([package], archives) if h.cls in CLASSES]
            hosts = sorted(hosts, key=lambda h: h.rel)
            rng.shuffle(hosts)
            rows.extend(plant(hosts[:FILES_PER_REPOSITORY], rng))
        with (args.out / f"{split}.jsonl").open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row) + "\n")
        manifest["packages"][split] = [" ".join(p) for p in packages]
        manifest["rows"][split] = len(rows)
        manifest["private_chars"][split] = sum(s["end"] - s["start"] for r in rows for s in r["spans"])
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(json.dumps(manifest["rows"]), json.dumps(manifest["private_chars"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
