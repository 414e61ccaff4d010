"""Host files for the multi-format generator: pinned packages, their files, and where a line may go.

Packages are fetched once with the registries' ordinary clients (``pip download`` sdists, ``npm
pack`` tarballs) into a download folder; a package list line is ``ecosystem name version``. A
member file becomes a host when its type is known (:func:`classify`), it is UTF-8 text, not
minified, and holds nothing credential-like already (an unlabelled credential would count as a
false positive against every tool).
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
import tarfile
import zipfile
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

MAX_CHARS = 40_000  # larger files are left out: they add scan time, not kinds of context
MIN_CHARS = 80


@dataclass(frozen=True)
class Package:
    ecosystem: str
    name: str
    version: str

    @property
    def folder(self) -> str:
        return f"{self.name.lstrip('@').replace('/', '-')}-{self.version}"


@dataclass(frozen=True)
class Host:
    package: str  # folder name under corpus/
    path: str  # member path inside the package
    format: str
    text: str

    @property
    def rel(self) -> str:
        return f"{self.package}/{self.path}"


def read_packages(path: Path) -> list[Package]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            eco, name, version = line.split()
            if eco not in ("pypi", "npm"):
                raise SystemExit(f"{path}: unknown ecosystem {eco!r} (pypi or npm)")
            out.append(Package(eco, name, version))
    return out


def _norm(s: str) -> str:
    return re.sub(r"[-_.]+", "-", s).lower()


def find_archive(pkg: Package, folder: Path) -> Path | None:
    want = _norm(pkg.folder)
    for p in sorted(folder.iterdir()) if folder.exists() else []:
        for suffix in (".tar.gz", ".tgz", ".zip", ".tar.bz2"):
            if p.name.endswith(suffix) and _norm(p.name[: -len(suffix)]) == want:
                return p
    return None


def fetch(pkgs: list[Package], folder: Path) -> dict[Package, Path]:
    """The archive of each package, downloaded into ``folder`` unless it is there already."""
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for pkg in pkgs:
        archive = find_archive(pkg, folder)
        if archive is None:
            if pkg.ecosystem == "pypi":
                cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "--no-binary", ":all:",
                       "-d", str(folder), f"{pkg.name}=={pkg.version}"]
            else:
                cmd = ["npm", "pack", "-q", f"{pkg.name}@{pkg.version}", "--pack-destination", str(folder)]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            archive = find_archive(pkg, folder)
            if archive is None:
                raise SystemExit(f"could not fetch {pkg.ecosystem}:{pkg.name}=={pkg.version}")
        out[pkg] = archive
    return out


def iter_archive(path: Path) -> Iterator[tuple[str, bytes]]:
    """(member path without the top folder, bytes) of each regular file, in name order."""
    if path.name.endswith(".zip"):
        with zipfile.ZipFile(path) as zf:
            for info in sorted(zf.infolist(), key=lambda i: i.filename):
                parts = info.filename.split("/", 1)
                if not info.is_dir() and len(parts) == 2:
                    yield parts[1], zf.read(info)
        return
    with tarfile.open(path) as tf:
        for m in sorted(tf.getmembers(), key=lambda m: m.name):
            parts = m.name.split("/", 1)
            f = tf.extractfile(m) if m.isfile() else None
            if f is not None and len(parts) == 2:
                yield parts[1], f.read()


EXT_FORMAT = {
    "md": "md", "markdown": "md", "rst": "rst", "txt": "txt", "sql": "sql", "sh": "sh", "bash": "sh",
    "c": "c", "h": "c", "cc": "c", "cpp": "c", "cxx": "c", "hpp": "c", "hh": "c", "java": "java", "kt": "java",
    "go": "go", "rs": "rust", "rb": "ruby", "php": "php", "cs": "csharp", "hs": "haskell", "swift": "swift",
    "ipynb": "ipynb", "yml": "yaml", "yaml": "yaml", "toml": "toml", "ini": "ini", "cfg": "ini",
    "properties": "properties", "json": "json", "xml": "xml", "env": "env",
}
CI_NAMES = (".travis.yml", ".gitlab-ci.yml", "appveyor.yml", ".appveyor.yml", "azure-pipelines.yml", "codecov.yml")


def classify(path: str, text: str) -> str | None:
    """The format of a member file, or None when it is not a host we use."""
    name = path.rsplit("/", 1)[-1]
    low = name.lower()
    if "/examplefiles/" in f"/{path}" or "/snippets/" in f"/{path}":
        # a highlighter's samples: trust only the extensions of real languages
        ext = low.rsplit(".", 1)[-1] if "." in low else ""
        fmt = EXT_FORMAT.get(ext)
        return None if fmt in (None, "txt", "json") or low.endswith(".output") else fmt
    if low == "dockerfile" or low.startswith("dockerfile.") or low.endswith(".dockerfile"):
        return "docker"
    if low in CI_NAMES or re.search(r"(^|/)\.github/workflows/[^/]+\.ya?ml$", path) or path.endswith(".circleci/config.yml"):
        return "ci"
    if low == ".env" or low.startswith(".env.") or low.endswith(".env"):
        return "env"
    if low == ".gitignore":
        # it decides which files of the corpus a scanner walks (smscan honours it in a plain
        # folder): as a host it would hide others of its package (`*.egg-info/`), not hold a plant
        return None
    if "." not in low.lstrip("."):
        if text.startswith("#!"):
            return "sh" if re.match(r"#!.*\b(ba|z|da)?sh\b", text) else None
        if low in ("makefile", "license", "copying", "notice") or text.lstrip().startswith(("<", "{", "[")):
            return None
        return "noext"
    return EXT_FORMAT.get(low.rsplit(".", 1)[-1])


# credential-like material already in a file makes it an ambiguous host
PREEXISTING = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY|AKIA[0-9A-Z]{16}|\bgh[pousr]_[A-Za-z0-9]{30,}|xox[abposr]-[0-9A-Za-z]"
    r"|\b[rs]k_live_|glpat-|glrt-|NRJS-|ATATT|\bphr_|AIza[0-9A-Za-z_\-]{30,}|eyJ[A-Za-z0-9_\-]{8,}\.eyJ"
    r"|[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s/:@'\"<>]+:[^\s/@'\"<>]+@[\w.\-]"
    r"|IDENTIFIED\s+BY\s+['\"]|PASSWORD\s+['\"][^'\"]{6,}|CURLOPT_(USERPWD|PASSWORD)|\s-p[^\s-]{6,}|--password[ =][^\s$<]"
)


def host_text(data: bytes) -> str | None:
    if b"\x00" in data or len(data) > 4 * MAX_CHARS:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if not len(text.strip()) or len(text) > MAX_CHARS:
        return None
    lines = text.split("\n")
    if max(len(x) for x in lines) > 1000 or len(text) / len(lines) > 200:
        return None  # minified or generated
    if PREEXISTING.search(text):
        return None
    return text


def collect(pkgs: list[Package], archives: dict[Package, Path]) -> list[Host]:
    hosts = []
    for pkg in pkgs:
        for path, data in iter_archive(archives[pkg]):
            if "node_modules/" in path or path.startswith(".git/"):
                continue
            text = host_text(data)
            fmt = classify(path, text) if text is not None else None
            # .env files are short by nature; other hosts need some text around a plant
            if fmt is not None and text is not None and len(text) >= (10 if fmt == "env" else MIN_CHARS):
                hosts.append(Host(pkg.folder, path, fmt, text))
    return hosts


def copy_of(h: Host, k: int) -> Host:
    """The k-th copy of a host (another name in the same folder, its own plants): formats with few
    real files in the packages still get enough credentials to measure."""
    folder, _, name = h.path.rpartition("/")
    stem, dot, ext = name.rpartition(".") if "." in name.lstrip(".") else (name, "", "")
    new = f"{stem}_{k + 1}{dot}{ext}"
    return Host(h.package, f"{folder}/{new}" if folder else new, h.format, h.text)


def sample(hosts: list[Host], n: int, rng: random.Random, key_share: int, copies: int = 4) -> list[Host]:
    """About the same number of files of each format, round-robin over packages so that one big
    package does not fill a format; a format with too few files takes copies of them."""
    by_format: dict[str, list[Host]] = defaultdict(list)
    for h in sorted(hosts, key=lambda h: h.rel):
        by_format[h.format].append(h)
    formats = sorted(by_format)
    quota = {f: 0 for f in formats}
    left = n - key_share
    while left > 0:
        open_ = [f for f in formats if quota[f] < copies * len(by_format[f])]
        if not open_:
            break
        for f in open_:
            if left > 0:
                quota[f] += 1
                left -= 1
    picked = []
    for f in formats:
        per_package: dict[str, list[Host]] = defaultdict(list)
        for h in by_format[f]:
            per_package[h.package].append(h)
        queues = []
        for p in sorted(per_package):
            q = per_package[p][:]
            rng.shuffle(q)
            queues.append(q)
        rng.shuffle(queues)
        order: list[Host] = []
        while any(queues):
            for q in queues:
                if q:
                    order.append(q.pop())
        order += [copy_of(h, k) for k in range(1, copies) for h in order]
        picked.extend(order[:quota[f]])
    return sorted(picked, key=lambda h: h.rel)
