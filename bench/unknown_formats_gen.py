#!/usr/bin/env python3
"""A small probe set of credentials in formats no rule list knows, in languages the dev set lacks.

    python bench/unknown_formats_gen.py --out DIR [--seed 7] [--files 48]

Writes DIR/corpus/<name>.<ext>, DIR/labels.jsonl and DIR/manifest.json in the layout of
shared/bench/secrets_gen.py, so shared/bench/secrets_eval/run.py scores every tool on it. Each file
is a short program in Go, Java, Rust, Ruby, PHP, C#, Kotlin, Terraform, a Dockerfile, a
.properties file or a shell script, holding one credential of an invented vendor format
(`<random prefix>_<random body>`, dash-grouped licence keys, base32 seeds, url-safe random tokens,
storage-account keys inside connection strings, passwords passed positionally) and, in most files,
one hard negative (UUID, commit id, placeholder, checksum, version). Half the credentials sit where
no name says what they are (a positional argument, a generic `value`), so a rule keyed on names
cannot find them either. This tests generality, not the dev set's templates.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import string
import uuid
from pathlib import Path

ALNUM = string.ascii_letters + string.digits


def vendor_token(r: random.Random) -> str:
    prefix = "".join(r.choices(string.ascii_lowercase, k=r.randint(2, 4)))
    sep = r.choice(["_", "-", "_live_", "_prod_", "-tok-"])
    return prefix + sep + "".join(r.choices(ALNUM, k=r.randint(24, 40)))


def licence_key(r: random.Random) -> str:
    return "-".join("".join(r.choices(string.ascii_uppercase + string.digits, k=5)) for _ in range(5))


def base32_seed(r: random.Random) -> str:
    return base64.b32encode(r.randbytes(20)).decode().rstrip("=")


def urlsafe(r: random.Random) -> str:
    return base64.urlsafe_b64encode(r.randbytes(32)).decode().rstrip("=")


def account_key(r: random.Random) -> str:
    return base64.b64encode(r.randbytes(64)).decode()


def password(r: random.Random) -> str:
    return "".join(r.choices(ALNUM + "!#%+-.:=?@^_~", k=r.randint(12, 20)))


VALUES = [vendor_token, licence_key, base32_seed, urlsafe, account_key, password]

# (extension, template): {V} is the credential, {N} the negative, {F} a function name.
# A template whose credential sits under no telling name is marked with "anon".
TEMPLATES = [
    ("go", "named", 'package main\n\nimport "fmt"\n\nconst buildID = "{N}"\n\nfunc {F}() string {{\n\tsecretKey := "{V}"\n\treturn fmt.Sprintf("%s", secretKey)\n}}\n'),
    ("go", "anon", 'package main\n\nimport "example.com/acme"\n\nfunc {F}() *acme.Client {{\n\t// trace {N}\n\treturn acme.NewClient("{V}", acme.WithTimeout(30))\n}}\n'),
    ("java", "named", 'public class {F} {{\n    private static final String CHECKSUM = "{N}";\n    private static final String API_SECRET = "{V}";\n\n    public String get() {{ return API_SECRET; }}\n}}\n'),
    ("java", "anon", 'public class {F} {{\n    public Client build() {{\n        // see {N}\n        return Client.builder().endpoint("https://api.acme.io").credentials("{V}").build();\n    }}\n}}\n'),
    ("rs", "named", 'fn {F}() -> String {{\n    let request_id = "{N}";\n    let auth_token = "{V}";\n    format!("{{}}{{}}", request_id, auth_token)\n}}\n'),
    ("rb", "anon", "require 'acme'\n\n# release {N}\nAcme.configure do |config|\n  config.region = 'eu-west-1'\n  config.value = '{V}'\nend\n"),
    ("php", "named", "<?php\n$version = '{N}';\n$db_password = '{V}';\n$pdo = new PDO('mysql:host=db;dbname=app', 'app', $db_password);\n"),
    ("cs", "anon", 'public static class {F}\n{{\n    // {N}\n    public static AcmeClient Create() => new AcmeClient("{V}");\n}}\n'),
    ("kt", "named", 'object {F} {{\n    const val COMMIT = "{N}"\n    const val PRIVATE_TOKEN = "{V}"\n}}\n'),
    ("tf", "named", 'resource "acme_integration" "main" {{\n  name  = "{F}"\n  etag  = "{N}"\n  token = "{V}"\n}}\n'),
    ("Dockerfile", "anon", "FROM python:3.12-slim\n# base image digest {N}\nENV ACME_SETTING={V}\nCMD [\"python\", \"-m\", \"app\"]\n"),
    ("properties", "named", "app.name={F}\napp.build.uuid={N}\nacme.client.secret={V}\n"),
    ("sh", "anon", '#!/bin/sh\n# {N}\ncurl -s -H "X-Acme-Auth: {V}" https://api.acme.io/v2/status\n'),
    ("py", "anon", 'import acme\n\n# upstream fix in commit {N}\nclient = acme.Client("{V}", region="eu")\n'),
    ("yaml", "anon", "service: {F}\nrevision: {N}\nsettings:\n  value: {V}\n"),
    ("cfg", "named", "[acme]\nendpoint = https://api.acme.io\nfingerprint = {N}\nStorageConnection = DefaultEndpointsProtocol=https;AccountName=acmedata;AccountKey={V};EndpointSuffix=core.windows.net\n"),
]


def negative(r: random.Random) -> tuple[str, str]:
    kind = r.choice(["uuid", "git_sha", "placeholder", "checksum", "version"])
    if kind == "uuid":
        return kind, str(uuid.UUID(bytes=r.randbytes(16), version=4))
    if kind == "git_sha":
        return kind, "".join(r.choices("0123456789abcdef", k=40))
    if kind == "placeholder":
        return kind, r.choice(["<YOUR_ACME_KEY>", "changeme", "${ACME_TOKEN}", "xxxxxxxxxxxxxxxxxxxx"])
    if kind == "checksum":
        return kind, "".join(r.choices("0123456789abcdef", k=64))
    return kind, f"{r.randint(1, 9)}.{r.randint(0, 30)}.{r.randint(0, 99)}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--files", type=int, default=48)
    args = parser.parse_args()
    r = random.Random(args.seed)
    corpus = args.out / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    rows = []
    for index in range(args.files):
        ext, naming, template = TEMPLATES[index % len(TEMPLATES)]
        make = VALUES[(index // len(TEMPLATES) + index) % len(VALUES)]
        value = make(r)
        if template.count("{V}") and "AccountKey" in template:
            value = account_key(r)
        neg_kind, neg = negative(r)
        function = "Acme" + "".join(r.choices(string.ascii_lowercase, k=5)).capitalize()
        text = template.format(V=value, N=neg, F=function)
        name = f"probe{index:03d}/{'Dockerfile' if ext == 'Dockerfile' else 'main.' + ext}"
        (corpus / name).parent.mkdir(parents=True, exist_ok=True)
        (corpus / name).write_text(text, encoding="utf-8")
        start = text.index(value)
        spans = [{"start": start, "end": start + len(value), "category": f"{make.__name__}", "context": f"{ext}_{naming}", "secret_id": 0}]
        negatives = []
        if neg in text:
            n = text.index(neg)
            negatives.append({"start": n, "end": n + len(neg), "category": neg_kind, "context": ext})
        rows.append({"path": name, "ext_class": ext, "spans": spans, "negatives": negatives})
    (args.out / "labels.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    (args.out / "manifest.json").write_text(json.dumps({"generator": "unknown-formats v1", "seed": args.seed, "files": args.files}, indent=2) + "\n")
    print(f"wrote {len(rows)} files to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
