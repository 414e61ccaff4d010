"""Snapshot what scan, baseline, explain and export write, to compare two checkouts byte for byte.

Used to show that a refactor of the chain (``smscan/judge/stages.py`` and its callers) changes no
output. Run once per checkout, with that checkout first on the path, then compare::

    cd /path/to/old && PYTHONPATH=$PWD python3 /path/to/new/bench/chain_snapshot.py /tmp/old-out
    cd /path/to/new && PYTHONPATH=$PWD python3 bench/chain_snapshot.py /tmp/new-out
    python3 bench/chain_snapshot.py --compare /tmp/old-out /tmp/new-out

The scorer is ``tests/scorers.RandomWordScorer`` (no model: offline, a second per run) from the
checkout being measured. Inputs: a small git repository (secrets, placeholders, an allow
comment, dead code holding a credential, a binary file) and JSONL inputs (text records, a
reject, groups, chats, a folder), scanned in every report format and exported under nine plans
(global and local ranking, consensus, detectors, redaction, chats, folders). Timings, the
baseline's random salt and its salted hashes are left out of the comparison.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

KEY = "aZ3kQ9xL2mP8vR4tY7wB1nC6"
KEY2 = "Zq81Lm0Pw7Rt5Ny3Kx9Bv2Hc"
FILES = {
    "a.py": f'import os\n\napi_key = "{KEY}"\npassword = "<YOUR_PASSWORD>"\ntoken = "{KEY2}"  # smscan: ignore\n\n\n'
    f'def connect(retries):\n    return open_connection(api_key, retries)\n    print("unreachable")\n    token2 = "{KEY2}"\n',
    "b.py": f'def f(x):\n    api_key = "{KEY}"\n    if {KEY[::-1]} < 0: pass\n    return x\n',
    "c.txt": f"hello {KEY} world\nagain {KEY}\n" * 3,
}


def _inputs(work: Path, fingerprint: str) -> tuple[Path, Path, Path, Path]:
    repo = work / "repo"
    repo.mkdir()
    for name, text in FILES.items():
        (repo / name).write_text(text)
    (repo / "bin.dat").write_bytes(b"\x00\x01\x02" * 10)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    thresholds = work / "th.json"
    thresholds.write_text(json.dumps({"format": "smscan-thresholds", "version": 1, "kinds": {
        "credential": {"fingerprint": fingerprint, "rule": {"rule": "credential-slots"}, "threshold": 3.0},
        "dead-code": {"fingerprint": fingerprint, "rule": {"evidence_bonus": 2.0}, "threshold": 2.8}}}))
    records = [
        {"text": f"token = '{KEY}'\nprint(token)\n", "id": 1, "g": "u1"}, {"text": "x = 1\ny = 2\n", "id": 2, "g": "u1"},
        {"text": f"again '{KEY}' here\n", "id": 3, "g": "u2"}, {"text": 5, "id": 4, "g": "u2"},
        {"text": f"def f():\n    return 1\n    k = '{KEY2}'\n", "id": 5, "g": "u3"},
    ]
    texts = work / "in.jsonl"
    texts.write_text("".join(json.dumps(r) + "\n" for r in records) + "not json\n")
    chat = {"messages": [{"role": "user", "content": f"my key {KEY}"},
                         {"role": "assistant", "content": f"ok {KEY} stored {KEY2}"}], "u": "a"}
    chats = work / "chat.jsonl"
    chats.write_text((json.dumps(chat) + "\n") * 3)
    return repo, thresholds, texts, chats


def snapshot(out: Path) -> None:
    sys.path.insert(0, os.getcwd())
    from tests.scorers import install_fake_scorer

    scorer = install_fake_scorer()
    from smscan.cli import main

    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        repo, thresholds, texts, chats = _inputs(work, scorer.fingerprint)
        os.environ["SMSCAN_SCORE_CACHE"] = str(work / "cache")
        os.environ.pop("CI", None)

        def run(name: str, args: list[str]) -> None:
            stdout = io.StringIO()
            with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(io.StringIO()):
                code = main(args)
            (out / f"{name}.out").write_text(f"exit {code}\n" + stdout.getvalue().replace(str(work), "WORK"))

        th = ["--thresholds", str(thresholds), "--no-cache"]
        for fmt in ("json", "sarif", "text"):
            run(f"scan-surprise-{fmt}", ["repo", str(repo), "--kinds", "surprise", "--threshold", "3", "--format", fmt, "--no-cache"])
            run(f"scan-detect-{fmt}", ["repo", str(repo), "--kinds", "credential,dead-code", "--format", fmt, *th])
        run("scan-all-json", ["repo", str(repo), "--kinds", "surprise,credential,dead-code", "--threshold", "3", "--format", "json", *th])
        run("baseline", ["baseline", str(repo), "-o", str(out / "baseline.json"), "--kinds", "credential,dead-code", *th])
        run("scan-with-baseline", ["repo", str(repo), "--format", "json", "--baseline", str(out / "baseline.json"), *th])
        here = os.getcwd()
        os.chdir(repo)
        for target in ("a.py", "a.py:3-5", "b.py"):
            run(f"explain-{target}", ["explain", target, "--no-redact", "--kinds", "surprise,credential,dead-code", "--threshold", "3", *th])
        os.chdir(here)
        plans = {
            "raw": [str(texts), "--threshold", "3"], "raw-group": [str(texts), "--threshold", "3", "--group-by", "g"],
            "local": [str(texts), "--ranking", "local", "--rank-max", "20", "--group-by", "g"],
            "k2": [str(texts), "--threshold", "3", "--consensus", "2"], "detect": [str(texts), "--kinds", "credential,dead-code", *th],
            "both-redact": [str(texts), "--kinds", "surprise,credential,dead-code", "--threshold", "3", "--mode", "redact", *th],
            "chat": [str(chats), "--threshold", "3", "--group-by", "u"], "folder": [str(repo), "--threshold", "3"],
            "folder-detect": [str(repo), "--kinds", "surprise,credential,dead-code", "--threshold", "3", *th],
        }
        for name, args in plans.items():
            run(f"export-{name}", ["export", *args, "-o", str(out / f"export-{name}.jsonl"), "--no-cache"])
        for path in out.iterdir():  # paths differ between runs; what they name does not
            path.write_text(path.read_text().replace(str(work), "WORK").replace(str(out), "OUT"))


def _normal(text: str) -> list[str]:
    text = re.sub(r'"(seconds|tokens_per_second|salt|hash)": [^,}\n]*', r'"\1": X', text)
    text = re.sub(r"[─┬┴╭╮╰╯┼├┤]+", "", text)
    text = re.sub(r"(tokens/s|time)\s*│[^\n]*", r"\1", text)
    return [re.sub(r" +", " ", line) for line in text.splitlines()]


def compare(old: Path, new: Path) -> int:
    differ = 0
    for path in sorted(old.iterdir()):
        other = new / path.name
        if not other.exists() or _normal(path.read_text()) != _normal(other.read_text()):
            differ += 1
            print(f"== {path.name}")
            if other.exists():
                print("\n".join(list(difflib.unified_diff(_normal(path.read_text()), _normal(other.read_text()), lineterm=""))[:14]))
    print(f"{len(list(old.iterdir()))} files, {differ} differ")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"), help="compare two snapshot folders")
    parser.add_argument("out", nargs="?", type=Path, help="folder to write the snapshot into")
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    if args.out is None:
        parser.error("give a folder to write the snapshot into, or --compare OLD NEW")
    snapshot(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
