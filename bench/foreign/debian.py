"""Debian source packages for the noise rounds: C, shell, config files and man pages, not Python or npm.

A list line ``deb NAME VERSION`` names a source package of Debian's stable suite (``VERSION`` as the
archive writes it, epoch included: ``1:9.2p1-2+deb12u10``). The suite's ``Sources`` index gives the
package's tarballs and their SHA-256; each is downloaded from the pool, checked, and the upstream
tarball(s) and the ``debian/`` tarball are packed into one archive with one top folder, so the noise
round reads it as it reads an sdist. Point releases replace a version in the pool: a list pins the
version it was scanned with, and a fetch of a replaced one fails with a clear message.
"""

from __future__ import annotations

import hashlib
import io
import lzma
import re
import shutil
import tarfile
import urllib.request
from pathlib import Path, PurePosixPath

MIRROR = "http://deb.debian.org/debian"
SUITE = "bookworm"
_INDEX = f"{MIRROR}/dists/{SUITE}/main/source/Sources.xz"

# upstream tarball (`openssh_9.2p1.orig.tar.gz`), an extra upstream component (`.orig-doc.tar.xz`),
# the packaging (`.debian.tar.xz`) or a native package's only tarball (`ca-certificates_20230311.tar.xz`)
_TARBALL = re.compile(r"\.(?:orig(?:-(?P<component>[A-Za-z0-9-]+))?\.|debian\.)?tar\.(?:gz|xz|bz2)$")


class DebianFetchError(Exception):
    """The pinned source package is not in the suite's index, or a download failed its checksum."""


def _stanzas(index: str) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    fields: dict[str, str] = {}
    key = ""
    for line in index.splitlines():
        if not line.strip():
            if fields:
                out.append(fields)
            fields, key = {}, ""
        elif line[0] in " \t" and key:
            fields[key] += "\n" + line.strip()
        elif ":" in line:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    if fields:
        out.append(fields)
    return out


def tarballs(index: str, name: str, version: str) -> tuple[str, list[tuple[str, str]]]:
    """The pool folder of name=version and its tarballs as (file name, SHA-256)."""
    for st in _stanzas(index):
        if st.get("Package") == name and st.get("Version") == version:
            files = [line.split() for line in st.get("Checksums-Sha256", "").splitlines() if line.strip()]
            return st["Directory"], [(f[2], f[0]) for f in files if len(f) == 3 and _TARBALL.search(f[2])]
    raise DebianFetchError(f"{name} {version} is not in Debian {SUITE}'s source index (a point release may have "
                           "replaced it; pin the version the index names now)")


def _download(url: str) -> bytes:
    try:
        with urllib.request.urlopen(url, timeout=120) as r:
            return bytes(r.read())
    except OSError as exc:
        raise DebianFetchError(f"cannot download {url}: {exc}") from exc


def _index(cache: Path) -> str:
    path = cache / f"debian-{SUITE}-Sources"
    if not path.exists():
        partial = path.with_suffix(".partial")
        partial.write_bytes(lzma.decompress(_download(_INDEX)))
        partial.replace(path)
    return path.read_text(encoding="utf-8", errors="replace")


def _members(raw: bytes) -> list[tuple[PurePosixPath, bytes]]:
    """Regular files of a tarball as (path, bytes); links and devices are left out."""
    out = []
    with tarfile.open(fileobj=io.BytesIO(raw)) as tf:
        for m in tf.getmembers():
            f = tf.extractfile(m) if m.isfile() else None
            if f is not None:
                out.append((PurePosixPath(m.name), f.read()))
    return out


def _without_top(members: list[tuple[PurePosixPath, bytes]]) -> list[tuple[PurePosixPath, bytes]]:
    tops = {p.parts[0] for p, _ in members if len(p.parts) > 1}
    if len(tops) == 1 and all(len(p.parts) > 1 for p, _ in members):
        return [(PurePosixPath(*p.parts[1:]), b) for p, b in members]
    return members


def fetch_debian_source(name: str, version: str, into: Path, stem: str) -> Path:
    """One ``stem.tar.gz`` in ``into`` holding the package's upstream files and its ``debian/`` folder
    below a top folder ``stem``, built the first time from the checked pool tarballs."""
    into.mkdir(parents=True, exist_ok=True)
    target = into / f"{stem}.tar.gz"
    if target.exists():
        return target
    directory, files = tarballs(_index(into), name, version)
    packed: dict[PurePosixPath, bytes] = {}
    # The `debian/` tarball goes last: its folder replaces any `debian/` upstream shipped.
    for file_name, sha256 in sorted(files, key=lambda f: ".debian.tar." in f[0]):
        raw = _download(f"{MIRROR}/{directory}/{file_name}")
        if hashlib.sha256(raw).hexdigest() != sha256:
            raise DebianFetchError(f"{file_name} does not match the SHA-256 of Debian's index")
        found = _TARBALL.search(file_name)
        component = found.group("component") if found else None
        members = _members(raw)
        if ".debian.tar." in file_name:  # its top folder is `debian/`, which is where it belongs
            packed.update(members)
        else:
            prefix = PurePosixPath(component) if component else PurePosixPath()
            packed.update((prefix / p, b) for p, b in _without_top(members))
    partial = target.with_suffix(".partial")
    with tarfile.open(partial, "w:gz") as out:
        for path, data in sorted(packed.items()):
            info = tarfile.TarInfo(str(PurePosixPath(stem) / path))
            info.size = len(data)
            out.addfile(info, io.BytesIO(data))
    shutil.move(partial, target)
    return target
