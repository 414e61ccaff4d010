"""``noise``: false alarms per 1,000 lines on real code, docs and tests of pinned packages with no secrets.

The packages of ``noise_packages.txt`` (PyPI sdists, fetched with pip; npm tarballs, fetched with
``npm pack``; Debian source packages, see :mod:`bench.foreign.debian`) are downloaded once into ``--out`` and their text files
(UTF-8, at most 256 KB) copied into a split under ``--work`` with no credential labels, so every span
a tool reports is a false alarm. Each tool runs through the shared scorer's adapter in the same run;
the figure is distinct flagged spans (overlaps merged) per 1,000 lines of the files scanned.
``--max-lines N`` takes a fixed sample of each package's files (hash order) up to N lines: the model
is slow on a busy CPU, and the same sample is scanned by every tool.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import re
import subprocess
import sys
import tarfile
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

from bench.common.splits import find_shared, load_scorer
from bench.multiformat_eval import run_tool

from .debian import DebianFetchError, fetch_debian_source
from .evaluate import SMSCAN_CMD, TOOLS

PACKAGES = Path(__file__).with_name("noise_packages.txt")


class FetchError(Exception):
    """pip or npm could not give the archive of a pinned package."""
MAX_FILE_BYTES = 256 * 1024


def read_packages(path: Path = PACKAGES) -> list[tuple[str, str, str]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split("#", 1)[0].split()
        if parts:
            eco, name, version = parts
            out.append((eco, name, version))
    return out


_SEPARATORS = re.compile(r"[-_.]+")


def fetch_sdist(name: str, version: str, into: Path) -> Path:
    """The sdist of name==version in ``into``, downloaded with pip the first time."""
    into.mkdir(parents=True, exist_ok=True)
    def find() -> Path | None:
        # PEP 503 spells `keyrings.alt` as `keyrings-alt`; sdists are named `keyrings_alt-5.0.2.tar.gz`
        stem = _SEPARATORS.sub("-", f"{name}-{version}".lower())
        for p in sorted(into.iterdir()):
            if _SEPARATORS.sub("-", p.name.lower()).startswith(stem) and p.name.endswith((".tar.gz", ".zip")):
                return p
        return None
    found = find()
    if found is None:
        done = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                               f"{name}=={version}", "-d", str(into)], stdout=sys.stderr)
        found = find() if done.returncode == 0 else None
    if found is None:
        raise FetchError(f"pip gave no sdist of {name}=={version} (exit {done.returncode}); is PyPI reachable?")
    return found


def package_stem(name: str, version: str) -> str:
    """``name-version`` as a file or folder name: an npm scope's `@` dropped and its `/` made `-`
    (`@octokit/rest` 21.0.2 gives `octokit-rest-21.0.2`, as `npm pack` names its tarball), a Debian
    epoch dropped (`openssh` 1:9.2p1-2 gives `openssh-9.2p1-2`, as the pool names its files); a PyPI
    name is kept as it is."""
    return f"{name.lstrip('@').replace('/', '-')}-{version.split(':', 1)[-1]}"


def fetch_npm_tarball(name: str, version: str, into: Path) -> Path:
    """The registry tarball of name@version in ``into``, fetched with ``npm pack`` the first time.

    npm names the file :func:`package_stem` ``.tgz``; the archive holds one top folder,
    `package/`, as an sdist does.
    """
    into.mkdir(parents=True, exist_ok=True)
    target = into / f"{package_stem(name, version)}.tgz"
    if target.exists():
        return target
    done = subprocess.run(["npm", "pack", "--silent", f"{name}@{version}", "--pack-destination", str(into)],
                          stdout=subprocess.DEVNULL, stderr=sys.stderr)
    if done.returncode != 0 or not target.exists():
        raise FetchError(f"npm gave no tarball of {name}@{version} (exit {done.returncode}); is the npm registry reachable?")
    return target


def fetch_package(ecosystem: str, name: str, version: str, into: Path) -> Path:
    """The archive of a pinned package of a list: a PyPI sdist, an npm tarball or a Debian source package."""
    if ecosystem == "pypi":
        return fetch_sdist(name, version, into)
    if ecosystem == "npm":
        return fetch_npm_tarball(name, version, into)
    if ecosystem == "deb":
        try:
            return fetch_debian_source(name, version, into, package_stem(name, version))
        except DebianFetchError as exc:
            raise FetchError(str(exc)) from exc
    raise FetchError(f"unknown ecosystem {ecosystem!r} for {name} {version}: pypi, npm or deb")


def text_members(archive: Path) -> Iterator[tuple[str, str]]:
    """(path below the top folder, text) of every UTF-8 file of an sdist."""
    def keep(rel: str, raw: bytes) -> tuple[str, str] | None:
        if len(raw) > MAX_FILE_BYTES or b"\0" in raw:
            return None
        try:
            return rel, raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as zf:
            for info in sorted(zf.infolist(), key=lambda i: i.filename):
                parts = info.filename.split("/", 1)
                if not info.is_dir() and len(parts) == 2 and (kept := keep(parts[1], zf.read(info))):
                    yield kept
        return
    # Read in the archive's order and sort after: a compressed tar read out of order decompresses
    # from its start for every member (minutes on a JDK's tens of thousands of files).
    found = []
    with tarfile.open(archive) as tf:
        for m in tf:
            parts = m.name.split("/", 1)
            f = tf.extractfile(m) if m.isfile() else None
            if f is not None and len(parts) == 2 and (kept := keep(parts[1], f.read())):
                found.append(kept)
    yield from sorted(found)


def sample(files: list[tuple[str, str]], max_lines: int | None) -> list[tuple[str, str]]:
    if max_lines is None:
        return files
    out, lines = [], 0
    for rel, text in sorted(files, key=lambda f: hashlib.sha1(f[0].encode()).hexdigest()):
        if lines >= max_lines:
            break
        out.append((rel, text))
        lines += text.count("\n") + 1
    return sorted(out)


def write_noise_split(packages: dict[str, list[tuple[str, str]]], dst: Path) -> None:
    import shutil

    if dst.exists():
        shutil.rmtree(dst)
    rows = []
    for pkg, files in packages.items():
        for rel, text in files:
            target = dst / "corpus" / pkg / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode("utf-8"))
            rows.append({"path": f"{pkg}/{rel}", "source": pkg, "spans": [], "negatives": [], "ext_class": rel.rsplit(".", 1)[-1]})
    (dst / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def count_alarms(score: Any, split: Any, files: dict[str, list[list[int]]]) -> dict[str, dict[str, Any]]:
    """Per package: lines, files, distinct flagged spans, per 1,000 lines, and the file types they lie in."""
    out: dict[str, dict[str, Any]] = {}
    for r in split.rows:
        pkg = r["source"]
        o = out.setdefault(pkg, {"files": 0, "lines": 0, "alarms": 0, "by_type": Counter()})
        text = split.texts[r["path"]]
        o["files"] += 1
        o["lines"] += text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        n = len(score.merge([(s, e) for s, e in files.get(r["path"], [])]))
        o["alarms"] += n
        if n:
            name = r["path"].rsplit("/", 1)[-1]
            o["by_type"][("." + name.rsplit(".", 1)[-1]) if "." in name else name] += n
    total = {"files": 0, "lines": 0, "alarms": 0, "by_type": Counter()}
    for o in out.values():
        for k in ("files", "lines", "alarms"):
            total[k] += o[k]
        total["by_type"] += o["by_type"]
    out["all"] = total
    for o in out.values():
        o["per_1000_lines"] = round(1000 * o["alarms"] / o["lines"], 3) if o["lines"] else 0.0
        o["by_type"] = dict(o["by_type"].most_common())
    return out


def markdown(results: dict[str, dict[str, dict[str, Any]]]) -> str:
    tools = list(results)
    first = results[tools[0]]
    lines = ["False alarms per 1,000 lines (distinct flagged spans; every one is a false alarm).", "",
             "| package | files | lines | " + " | ".join(tools) + " |", "|---|---|---|" + "---|" * len(tools)]
    for pkg, o in first.items():
        cells = [f"{results[t][pkg]['per_1000_lines']:.2f} ({results[t][pkg]['alarms']})" for t in tools]
        lines.append(f"| {pkg} | {o['files']} | {o['lines']} | " + " | ".join(cells) + " |")
    lines += ["", "Where the alarms lie (file type: count), all packages:", ""]
    for t in tools:
        types = ", ".join(f"{k} {v}" for k, v in list(results[t]["all"]["by_type"].items())[:10])
        lines.append(f"- {t}: {types or 'none'}")
    return "\n".join(lines) + "\n"


def noise_cmd(a: argparse.Namespace) -> int:
    tools = [t for t in a.tools.split(",") if t]
    bad = [t for t in tools if t not in TOOLS]
    if bad or not tools:
        print(f"error: unknown tool(s) {', '.join(bad) or '(none)'}; choose from {', '.join(TOOLS)}", file=sys.stderr)
        return 2
    if any(t != "smscan" for t in tools) and not a.peers_python:
        print("error: the peers need --peers-python", file=sys.stderr)
        return 2
    shared = find_shared()
    if shared is None:
        print("error: shared/bench/secrets_eval not found beside the checkout", file=sys.stderr)
        return 2
    score = load_scorer(shared)
    data = a.work / "data"
    if not a.score_only:
        wanted = set(a.packages.split(",")) if a.packages else None
        packages = {}
        try:
            listed = read_packages(a.package_list) if a.package_list else read_packages()
        except (OSError, ValueError) as exc:
            print(f"error: cannot read the package list {a.package_list}: {exc}", file=sys.stderr)
            return 2
        for eco, name, version in listed:
            if wanted is None or name in wanted:
                files = list(text_members(fetch_package(eco, name, version, a.out / "sdists")))
                packages[package_stem(name, version)] = sample(files, a.max_lines)
        write_noise_split(packages, data)
        for tool in tools:
            run_tool(tool, data, shared=shared, work=a.work, peers_python=a.peers_python,
                     smscan_cmd=a.smscan_cmd or SMSCAN_CMD.format(python=sys.executable))
    missing = [t for t in tools if not (data / "preds" / f"{t}.json").exists()]
    if missing:
        print(f"error: no predictions of {', '.join(missing)} under {data / 'preds'}: run without --score-only",
              file=sys.stderr)
        return 2
    split = score.Split(data)
    results = {}
    for tool in tools:
        pred = json.loads((data / "preds" / f"{tool}.json").read_text())
        results[tool] = count_alarms(score, split, pred["files"])
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        a.json.write_text(json.dumps(results, indent=1) + "\n")
    print(markdown(results))
    return 0
