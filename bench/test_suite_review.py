"""Reviewer's call on each credential finding of a scan of four packages' test folders (issue #15).

    python bench/test_suite_review.py OUT SDIST

SDIST holds the unpacked sdists; OUT/{before,after}/PKG.json are `smscan files $(find tests -type
f) --kinds credential --format json --no-redact -o ...` reports run in each SDIST/PKG, and
OUT/before/PKG.files the scanned paths (docs/BENCHMARKS.md, "Made-up values in test files").
Labels were set by hand, by value, after reading each finding in its file:

H1 invented credential (mash, hunter2, password variants, user:pass in base64)  -> false alarm
H2 readable payload in base64 (JWT header or claims, 'hello world', data URI)    -> false alarm
N  other non-secret (parser input, digest/nonce vectors, public keys, certs, ids) -> false alarm
K  random key material made for the tests (private keys, signatures, signed tokens, cookies)
"""

from __future__ import annotations

import base64
import binascii
import collections
import json
import re
import sys
from pathlib import Path

OUT, SDIST = sys.argv[1], sys.argv[2]
PACKAGES = ["python-dotenv-1.0.1", "requests-2.32.3", "PyJWT-2.8.0", "httpx-0.27.0"]
PRIVATE = {"d", "k", "p", "q", "dp", "dq", "qi", "private_key", "secret", "password"}
PUBLIC = {"x", "y", "n", "e", "x5c", "x5t", "kid", "typ", "cty", "nonce", "realm", "opaque", "cnonce", "response"}
H1 = ["=@asdfasf", "hunter2", "pa%20ssword", "p%40ssword", "abc123%40%20%25"]
H1_DECODED = ("user:", "username:", "example-username:", "test:test", "имя:", "ůsername:")
N = ['a=b\\nd="${a}"', "\\xc5\\xafsername", "magnet:", "secevent+jwt", "sig_ed448_01", "MIIC", "MIID",
     "aW4Cca79xReLWUz0aE2H6kD0O3cXBVtC", ".q1bKSM3JyVeyUlAqzy", "f2/wE4q74E6zIJEtWaHKaf5wv"]
# Pieces of RFC 7520's readable example payload and headers, split over lines in PyJWT's tests.
H2_PREFIX = [".aeyJoZWxsbyI6ICJ3b3JsZCJ9", "aeyJhbGciOiAiSFMyNTYiLCAidHlwIjogIkpXVCJ9",
             "eyJhbGciOiAiSFMyNTbpIiwgInR5cCI6ICJKV1QifQ", "XBsZSJ9.SXTig", "3V0IHlvdXIgZG9v", "Bkb24nd",
             "geW91IG1p", "gd2hlcm", "lmIHlvdSBk", "29pbmcgb3V0", "jMxNGJj", "eyJhbGciOiJFUzUxMiIsImtpZCI6ImJpbGJv",
             "eyJhbGciOiJIUzI1NiIsImtpZCI6IjAxOGMw", "eyJhbGciOiJQUzM4NCIsImtpZCI6ImJpbGJv",
             "eyJhbGciOiJSUzI1NiIsImtpZCI6ImJpbGJv"]


def decoded(value: str) -> str | None:
    value = value.strip('."').removeprefix("data:")
    try:
        text = base64.b64decode(value.replace("-", "+").replace("_", "/") + "=" * (-len(value) % 4)).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return text if text and text.isprintable() else None


def call(package: str, finding: dict) -> str:
    text = Path(f"{SDIST}/{package}/{finding['path']}").read_text(encoding="utf-8", errors="replace")
    value = text[finding["char_start"] : finding["char_end"]]
    before = text[text.rfind("\n", 0, finding["char_start"]) + 1 : finding["char_start"]]
    key_match = re.search(r"""["']?([\w-]+)["']?\s*[:=]\s*["']?$""", before)
    key = key_match.group(1).lower() if key_match else ""
    plain = decoded(value)
    if value in H1 or plain is not None and plain.startswith(H1_DECODED):
        return "H1"
    if any(value.startswith(p) or value.strip('"').startswith(p) for p in N):
        return "N"
    if plain is not None or any(value.startswith(p) for p in H2_PREFIX):
        return "H2"
    if finding["details"].get("place") == "pem" or key in PRIVATE:
        return "K"
    if key in PUBLIC or finding["path"].endswith("_pub.json") or re.fullmatch(r'"?[0-9a-f]{32,64}"?', value):
        return "N"
    return "K"


def false_alarms(counts: collections.Counter[str]) -> int:
    return counts["H1"] + counts["H2"] + counts["N"]


print("| package | files | lines | findings | H1 | H2 | N | false alarms | per 1,000 lines | K |")
print("|---|---|---|---|---|---|---|---|---|---|")
totals = {"before": collections.Counter(), "after": collections.Counter()}
all_files = all_lines = 0
for package in PACKAGES:
    files = Path(f"{OUT}/before/{package}.files").read_text().split()
    lines = sum(Path(f"{SDIST}/{package}/{path}").read_bytes().count(b"\n") for path in files)
    all_files, all_lines = all_files + len(files), all_lines + lines
    counts = {}
    for label in ("before", "after"):
        report = json.loads(Path(f"{OUT}/{label}/{package}.json").read_text())
        counts[label] = collections.Counter(call(package, finding) for finding in report["findings"])
        totals[label].update(counts[label])
    rows = [(package, len(files), lines, counts)]
    if package == PACKAGES[-1]:
        rows.append(("all four", all_files, all_lines, totals))
    for name, n_files, n_lines, c in rows:
        b, a = c["before"], c["after"]
        print(f"| {name} | {n_files} | {n_lines:,} | {sum(b.values())} → {sum(a.values())} | {b['H1']} → {a['H1']} | "
              f"{b['H2']} → {a['H2']} | {b['N']} → {a['N']} | {false_alarms(b)} → {false_alarms(a)} | "
              f"{1000 * false_alarms(b) / n_lines:.2f} → {1000 * false_alarms(a) / n_lines:.2f} | {b['K']} → {a['K']} |")
