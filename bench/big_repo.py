"""Peak memory and progress of `smscan repo` over a big generated repository.

Run from the repository root::

    python3 bench/big_repo.py --out /tmp/big --files 5000 --mb 50 --scorer fake
    python3 bench/big_repo.py --out /tmp/small --files 500 --mb 5 --scorer real

The repository: ``--files`` Python files of about ``--mb`` MB together, cut at line boundaries
from this interpreter's standard library (real code; each file starts with its own header line,
so no two are the same blob), plus a planted credential in one file of 200, one line of base64
(0.99 MB by default, ``--blob-bytes``; under the default 1 MB ``max_file_bytes``, so scored) and
one 10 MB single-line minified JavaScript file (over it: a ``too-large`` skip), committed to a
fresh git repository.

The scan runs in a child process, outside a terminal, ``--format json -o report.json``, with a
fresh score cache and no warm worker:
- ``--scorer fake``: the test suite's RandomWordScorer (tests/scorers.py) in place of the model,
  raw ``surprise`` at ``--threshold`` (3: every window holding a long word with digits is a
  finding; 6: only windows with two such words), so every byte of every file is scored: smscan's own memory
  (sources, selection, engine, detectors, report) over the whole 50 MB, without the model's.
- ``--scorer real``: the default model and kinds (credential, dead-code), which score only the
  pieces their model-free evidence leaves open (smscan/plan/pieces.py).

Printed: files, bytes, wall time, the child's peak RSS (``ru_maxrss`` from ``wait4``), findings
and skips from the report, and the progress lines on stderr: how many, and the longest gap
between two (the display's responsiveness; plain lines come every 5 s while work moves).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KEY_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def stdlib_pieces(size: int) -> list[str]:
    """Standard-library source cut into pieces of about ``size`` characters at line ends."""
    pieces: list[str] = []
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for path in sorted(stdlib.rglob("*.py")):
        if "site-packages" in path.parts:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        current: list[str] = []
        length = 0
        for line in text.splitlines(keepends=True):
            current.append(line)
            length += len(line)
            if length >= size:
                pieces.append("".join(current))
                current, length = [], 0
        if length > size // 4:
            pieces.append("".join(current))
    return pieces


def generate(out: Path, files: int, megabytes: float, blob_bytes: int) -> Path:
    repo = out / "repo"
    if (repo / ".git").is_dir():
        return repo
    repo.mkdir(parents=True)
    rng = random.Random(13)
    size = int(megabytes * 1e6 / files)
    pieces = stdlib_pieces(size)
    for index in range(files):
        folder = repo / f"pkg{index // 100:02d}"
        folder.mkdir(exist_ok=True)
        body = pieces[index % len(pieces)]
        if index % 200 == 7:
            key = "".join(rng.choice(KEY_ALPHABET) for _ in range(32))
            body = f'API_KEY = "{key}"\n' + body
        (folder / f"mod_{index:04d}.py").write_text(f"# module {index} of the generated tree\n{body}", encoding="utf-8")
    (repo / "blob.py").write_text(f'DATA = "{base64.b64encode(rng.randbytes(blob_bytes)).decode()}"\n')
    (repo / "bundle.min.js").write_text("".join(f"var a{i}=function(b){{return b*{i}}};" for i in range(330_000)))
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@b"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "generated"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    return repo


def scan(repo: Path, out: Path, scorer: str, threshold: float) -> dict[str, object]:
    config = out / f"{scorer}.toml"
    config.write_text('worker = "off"\n' + (f'kinds = ["surprise"]\nthreshold = {threshold}\n' if scorer == "fake" else ""))
    setup = "from tests.scorers import install_fake_scorer; install_fake_scorer(); " if scorer == "fake" else ""
    code = f"import sys; sys.path.insert(0, {str(ROOT)!r}); {setup}from smscan.cli import main; sys.exit(main(sys.argv[1:]))"
    report = out / f"report-{scorer}.json"
    scores = out / f"scores-{scorer}-{time.time_ns()}"
    env = {**os.environ, "SMSCAN_SCORE_CACHE": str(scores), "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-c", code, "repo", str(repo), "--config", str(config), "--format", "json", "-o", str(report)]
    started = time.monotonic()
    child = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    assert child.stderr is not None
    stamps: list[float] = []
    lines: list[str] = []
    for line in child.stderr:
        stamps.append(time.monotonic() - started)
        lines.append(line.rstrip())
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - started
    data = json.loads(report.read_text(encoding="utf-8")) if report.exists() else {}
    gaps = [b - a for a, b in zip([0.0, *stamps], [*stamps, wall])]  # the last: to the exit
    longest = max(range(len(gaps)), key=gaps.__getitem__)
    stats = data.get("stats", {})
    return {
        "scorer": scorer,
        "exit": child.returncode,
        "wall_s": round(wall, 1),
        "peak_rss_mb": round(usage.ru_maxrss / 1024),
        "files_scanned": stats.get("files_scanned"),
        "skipped": stats.get("skipped_by_reason"),
        "tokens_scored": stats.get("tokens_scored"),
        "findings": len(data.get("findings", [])),
        "progress_lines": len(stamps),
        "first_line_s": round(stamps[0], 1) if stamps else None,
        "longest_gap_s": round(gaps[longest], 1),
        "longest_gap_after": lines[longest - 1] if longest else "(the start)",
        "last_lines": lines[-3:],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--mb", type=float, default=50.0)
    parser.add_argument("--scorer", choices=["fake", "real"], default="fake")
    parser.add_argument("--blob-bytes", type=int, default=740_000, help="random bytes of blob.py's base64 line")
    parser.add_argument("--threshold", type=float, default=3.0, help="fake scorer: raw surprise threshold")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    repo = generate(args.out, args.files, args.mb, args.blob_bytes)
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=repo, capture_output=True, check=True).stdout.count(b"\0")
    size = sum(p.stat().st_size for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts)
    print(f"repository: {tracked} files, {size / 1e6:.1f} MB; load average {os.getloadavg()[0]:.1f}")
    print(json.dumps(scan(repo, args.out, args.scorer, args.threshold), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
