"""The issue's "Speed" targets, measured in one run: one markdown table, optionally written into
docs/BENCHMARKS.md under "## Speed" (that section is replaced on a rerun; the rest is kept).

Run from the repository root with the default model pulled (``smscan model pull``)::

    python -m bench.speed --quick                  # minutes: small subsets, for development
    python -m bench.speed --write                  # the full run (an hour or more on 2 shared cores)
    python -m bench.speed --only 2,3 --write       # some rows; --write still replaces the whole section
    python -m bench.speed --quality --write        # also the detection figures (row 7, slow)

Rows (the issue's numbering):

1. raw forward throughput of each inference runtime this smscan offers (torch fp32 always;
   CTranslate2 float32/int8 when ``smscan.config.settings.Settings`` has a ``runtime`` field), 1x32 and 1x512;
2. cold full scan of real repositories nobody here wrote (the ``requests`` 2.32.3 sdist and a larger
   one, ``flask`` 3.0.3), each unpacked and committed into a temporary git repository, smscan beside
   detect-secrets 1.5.0 and CredSweeper 1.19.5 (installed into a venv under ``--cache``);
3. warm rescan of the unchanged repository, and a rescan after appending one line to a mid-size
   file, beside scanning that file alone;
4. ``smscan staged`` on a generated ~200-line change across 5 files: fresh process, and with a
   warm ``smscan serve`` worker when the CLI has that command;
5. 3,000 one-line files in one folder: smscan beside CredSweeper;
6. ``smscan export`` of a JSONL of Python stdlib sources (``--export-mb``);
7. with ``--quality``: held-out credential char F1 and dead-code line F1 on MBPP, through the
   existing bench scripts in ``../shared/bench``;
8. (issue 29) ``smscan repo`` cold on a clone of this repository at HEAD (target <= 30 s);
9. (issue 29) ~50 small config files (.env, .netrc, XML, YAML, JSON, INI): smscan beside
   CredSweeper (target <= 5x its time);
10. (issue 29) 2,500 generated snippets of 2-6 lines (``small_snippets``): smscan beside CredSweeper
   (target <= 5x its time). Row 2's ``requests`` scan has issue 29's target of 3x CredSweeper.

Every child runs with a timeout; its peak RSS is the kernel's ``ru_maxrss`` from ``os.wait4``. A
row that fails is reported as failed and the run goes on. smscan runs against a fresh cache root
(a temporary folder whose ``models`` links to the existing model cache, so nothing is re-pulled;
``SMSCAN_CACHE``, ``SMSCAN_CACHE_DIR`` and ``SMSCAN_SCORE_CACHE`` all point into it), so the cold
runs score everything and the warm ones can use the score cache.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import datetime
import json
import os
import platform
import random
import re
import shlex
import shutil
import signal
import statistics
import string
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

REPO_ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = REPO_ROOT / "docs" / "BENCHMARKS.md"
SECTION = "## Speed"
RSS_LIMIT_MB = 1536.0  # the 1.5 GB
SMALL_SDIST = ("requests", "2.32.3")
# The larger repository: flask's sdist carries its tests, docs and examples (Python, reST, HTML,
# TOML, CSS: a checkout's mix of files, 3x requests' text), where rich's is one Python package.
LARGE_SDIST = ("flask", "3.0.3")
PEERS = ("detect-secrets==1.5.0", "credsweeper==1.19.5")
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "-c", "commit.gpgsign=false",
       "-c", "init.defaultBranch=main", "-c", "core.hooksPath=/dev/null"]


class RowFailed(Exception):
    """A measurement that could not be taken; the row says so and the run goes on.

    ``timed_out`` holds the timeout when the child was killed for it (a lower bound of its time),
    ``rss_mb`` its peak RSS until then.
    """

    def __init__(self, message: str, *, timed_out: float | None = None, rss_mb: float | None = None) -> None:
        super().__init__(message)
        self.timed_out = timed_out
        self.rss_mb = rss_mb


@dataclasses.dataclass
class Row:
    """One line of the table. Empty cells are None or ""."""

    number: int
    what: str
    wall_s: float | None = None
    files_per_s: float | None = None
    tokens_per_s: float | None = None
    rss_mb: float | None = None
    figure: str = ""
    target: str = ""
    met: bool | None = None
    note: str = ""


class Measured(NamedTuple):
    """One child process: wall seconds, peak RSS (MiB, the child and its reaped descendants), exit code."""

    seconds: float
    rss_mb: float
    returncode: int
    output: str


# ---------------------------------------------------------------------------------------------
# table and BENCHMARKS.md section (pure)


def _number(value: float | None, digits: int = 1) -> str:
    if value is None:
        return "–"
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.{digits}f}" if value >= 1 else f"{value:.{digits + 1}f}"


def _rss(value: float | None) -> str:
    if value is None:
        return "–"
    text = f"{value:,.0f}"
    return f"**{text} (> 1.5 GB)**" if value > RSS_LIMIT_MB else text


def _met(value: bool | None) -> str:
    return "–" if value is None else ("yes" if value else "**no**")


def render_table(rows: Sequence[Row]) -> str:
    """The markdown table of ``rows``; RSS above 1.5 GB and missed targets are bold.

    Example:
        >>> print(render_table([Row(1, "x", tokens_per_s=12.5)]).splitlines()[2])
        | 1 | x | – | – | 12.5 | – | – | – | – |  |
    """
    lines = [
        "| # | measurement | wall s | files/s | tokens/s | peak RSS MB | ratio / figure | target | met | note |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        cells = [str(row.number), row.what, _number(row.wall_s, 2), _number(row.files_per_s),
                 _number(row.tokens_per_s), _rss(row.rss_mb), row.figure or "–", row.target or "–",
                 _met(row.met), row.note or ""]
        lines.append("| " + " | ".join(cell.replace("|", "\\|").replace("\n", " ") for cell in cells) + " |")
    return "\n".join(lines)


def replace_section(document: str, section: str, *, heading: str = SECTION) -> str:
    """``document`` with its ``heading`` section (up to the next ``## `` heading) replaced by
    ``section``; without one, ``section`` goes before the first ``## `` heading (else at the end).

    Example:
        >>> replace_section("# T\\n\\n## A\\nold\\n## B\\nb\\n", "## A\\nnew\\n", heading="## A")
        '# T\\n\\n## A\\nnew\\n\\n## B\\nb\\n'
    """
    section = section.rstrip("\n") + "\n\n"
    lines = document.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.rstrip("\n") == heading]
    if starts:
        start = starts[0]
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        tail = "".join(lines[end:])
        return "".join(lines[:start]) + (section if tail else section.rstrip("\n") + "\n") + tail
    first = next((i for i, line in enumerate(lines) if line.startswith("## ")), None)
    if first is None:
        return document.rstrip("\n") + "\n\n" + section.rstrip("\n") + "\n"
    return "".join(lines[:first]) + section + "".join(lines[first:])


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    """``numerator / denominator``, None when either is missing or the denominator is 0."""
    if numerator is None or not denominator:
        return None
    return numerator / denominator


# ---------------------------------------------------------------------------------------------
# child processes


def measure(command: Sequence[str], *, env: dict[str, str], timeout: float, cwd: Path | None = None,
            log: Path | None = None, ok_codes: Sequence[int] = (0,)) -> Measured:
    """Run ``command`` to completion; wall time, peak RSS from ``wait4``; RowFailed on a timeout or
    an exit code outside ``ok_codes``."""
    with tempfile.TemporaryFile() if log is None else log.open("w+b") as sink:
        started = time.perf_counter()
        proc = subprocess.Popen(list(command), env=env, cwd=cwd, stdout=sink, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = started + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                _kill_group(proc.pid)
                _, _, usage = os.wait4(proc.pid, 0)
                proc.returncode = -9
                raise RowFailed(f"timed out after {timeout:.0f} s: {_short(command)}", timed_out=timeout,
                                rss_mb=usage.ru_maxrss / 1024)
            time.sleep(min(0.05, 0.002 + (time.perf_counter() - started) / 200))
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        sink.seek(0)
        output = sink.read().decode("utf-8", "replace")
    if proc.returncode not in ok_codes:
        raise RowFailed(f"exit {proc.returncode}: {_short(command)}: {output.strip()[-300:]}")
    return Measured(seconds, usage.ru_maxrss / 1024, proc.returncode, output)


def _kill_group(pid: int, sig: int = signal.SIGKILL) -> None:
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        pass


def _short(command: Sequence[str]) -> str:
    return " ".join(Path(part).name if part.startswith("/") else part for part in command)[:160]


def run_quiet(command: Sequence[str], *, timeout: float, cwd: Path | None = None,
              env: dict[str, str] | None = None) -> str:
    """Run an untimed helper step (git, pip, tar); its stdout, or RowFailed."""
    try:
        done = subprocess.run(list(command), cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as error:
        raise RowFailed(f"timed out after {timeout:.0f} s: {_short(command)}") from error
    if done.returncode != 0:
        raise RowFailed(f"exit {done.returncode}: {_short(command)}: {(done.stderr or done.stdout).strip()[-300:]}")
    return done.stdout


def smscan_command() -> list[str]:
    """The ``smscan`` script beside this interpreter, else the CLI entry point through ``-c``."""
    script = Path(sys.executable).with_name("smscan")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from smscan.cli import main; sys.exit(main())"]


def cli_commands() -> dict[str, set[str]]:
    """The smscan CLI's commands and each one's option names, read from the Typer app at run time."""
    import typer

    from smscan.cli.app import app

    group = typer.main.get_command(app)
    commands = getattr(group, "commands", {})
    return {name: {opt for param in command.params for opt in getattr(param, "opts", ())}
            for name, command in commands.items()}


# ---------------------------------------------------------------------------------------------
# the run's context: folders, environments, the prepared repositories


class Bench:
    """Folders, settings and what earlier rows left for later ones (the cold scans)."""

    def __init__(self, args: argparse.Namespace, work: Path) -> None:
        self.args = args
        self.work = work
        self.cache: Path = args.cache
        self.timeout: float = args.timeout
        self.quick: bool = args.quick
        self.cold: dict[str, tuple[Measured, dict[str, Any], Path]] = {}  # name -> (run, stats, repo)
        self.cold_failed: dict[str, RowFailed] = {}
        self.peer_runs: dict[tuple[str, str], Measured] = {}
        self.repos: dict[str, Path] = {}
        self.notes: list[str] = []
        self._fresh = 0

    def log(self, message: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')} load {os.getloadavg()[0]:.1f}] {message}", file=sys.stderr, flush=True)

    def fresh_env(self, name: str | None = None) -> dict[str, str]:
        """An environment whose smscan cache root is a new empty folder, the model linked in.

        With ``name``, the same folder on every call (the warm rescans reuse the cold run's cache).
        """
        from smscan.model.store import cache_root

        if name is None:
            self._fresh += 1
            name = f"fresh-{self._fresh}"
        root = self.work / "cache-roots" / name
        models = root / "models"
        if not models.exists():
            root.mkdir(parents=True, exist_ok=True)
            models.symlink_to(cache_root() / "models", target_is_directory=True)
        env = {**os.environ, "SMSCAN_CACHE": str(root), "SMSCAN_CACHE_DIR": str(root),
               "SMSCAN_SCORE_CACHE": str(root / "scores"), "TOKENIZERS_PARALLELISM": "false"}
        env.pop("CI", None)
        return env


# ---------------------------------------------------------------------------------------------
# row 1: forward throughput


def literal_choices(field_name: str) -> tuple[str, ...]:
    """The allowed values of a ``Literal`` field of ``Settings`` (empty if not a Literal)."""
    import typing

    from smscan.config import settings as config

    hints = typing.get_type_hints(config.Settings, vars(config))
    hint = hints.get(field_name)
    return tuple(str(choice) for choice in typing.get_args(hint)) if hint is not None else ()


def runtime_variants() -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    """(label, Settings overrides) of each scorer this smscan can build, and notes on the skipped."""
    from smscan.config.settings import Settings

    fields = {field.name for field in dataclasses.fields(Settings)}
    variants: list[tuple[str, dict[str, Any]]] = []
    notes: list[str] = []
    runtimes = literal_choices("runtime") if "runtime" in fields else ()
    torch_name = next((r for r in runtimes if "torch" in r.lower() or r.lower() in ("hf", "transformers")), None)
    base = {"device": "cpu", "dtype": "fp32"}
    variants.append(("torch fp32, smscan scorer", {**base, **({"runtime": torch_name} if torch_name else {})}))
    if "runtime" not in fields:
        notes.append("CTranslate2 rows skipped: `smscan.config.settings.Settings` has no `runtime` field in this smscan.")
        return variants, notes
    ct2 = [r for r in runtimes if "ct" in r.lower() or "translate" in r.lower()]
    if not ct2:
        notes.append(f"CTranslate2 rows skipped: `runtime` offers {', '.join(runtimes) or 'no literal choices'}.")
        return variants, notes
    precision_field = next((f for f in ("compute_type", "ct2_compute_type", "quantization", "precision")
                            if f in fields), "dtype")
    choices = literal_choices(precision_field)
    for wanted, aliases in (("float32", ("float32", "fp32")), ("int8", ("int8", "int8_float32"))):
        value = next((a for a in aliases if a in choices), None) if choices else aliases[0]
        overrides: dict[str, Any] = {"device": "cpu", "runtime": ct2[0]}
        if value is None:
            notes.append(f"CTranslate2 {wanted} skipped: `{precision_field}` offers {', '.join(choices)}.")
            continue
        overrides[precision_field] = value
        try:
            Settings(**overrides)
        except (TypeError, ValueError) as error:
            notes.append(f"CTranslate2 {wanted} skipped: Settings({overrides}) refused: {error}")
            continue
        variants.append((f"CTranslate2 {wanted}, smscan scorer", overrides))
    return variants, notes


def throughput_child(spec: dict[str, Any]) -> dict[str, float]:
    """In a child process: tokens/s at each ``spec["shapes"]`` (batch x tokens) for one variant.

    ``spec["overrides"]`` None times the raw torch forward pass (bench/model_speed.py); otherwise
    the smscan scorer built from ``Settings(**overrides)`` scores a text of about that many tokens.
    """
    import torch
    from transformers import AutoTokenizer

    from bench.model_speed import code_tokens, forward_nll
    from smscan.model.default_model import default_model_dir

    folder = default_model_dir()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    shapes = [tuple(shape) for shape in spec["shapes"]]
    ids = code_tokens(tokenizer, max(b * t for b, t in shapes))
    repeats = int(spec["repeats"])
    result: dict[str, float] = {}
    if spec["overrides"] is None:
        from transformers import AutoModelForCausalLM

        from smscan.model.hf import quiet_transformers

        with quiet_transformers():
            model = AutoModelForCausalLM.from_pretrained(folder, use_safetensors=True).eval()
        for batch_size, length in shapes:
            batch = torch.tensor(ids[: batch_size * length]).reshape(batch_size, length)  # (B, T)
            forward_nll(model, batch, False)  # warm-up
            times = []
            for _ in range(repeats):
                started = time.perf_counter()
                forward_nll(model, batch, False)
                times.append(time.perf_counter() - started)
            result[f"{batch_size}x{length}"] = batch_size * length / statistics.median(times)
        return result
    from smscan.config.settings import Settings
    from smscan.scoring.chain import build_scorer

    # No score cache and no worker: every repeat must run the model.
    scorer = build_scorer(Settings(**spec["overrides"], score_cache=False, worker="off"), environ={})
    scorer.score_texts(["x = 1\n"])  # warm-up
    for batch_size, length in shapes:
        texts = [tokenizer.decode(ids[i * length:(i + 1) * length]) for i in range(batch_size)]
        times, tokens = [], 0
        for _ in range(repeats):
            started = time.perf_counter()
            scores = scorer.score_texts(texts)
            times.append(time.perf_counter() - started)
            tokens = sum(len(s.nll) for s in scores)
        result[f"{batch_size}x{length}"] = tokens / statistics.median(times)
    return result


def rows_throughput(bench: Bench) -> list[Row]:
    shapes = [[1, 32], [1, 512]]
    variants, notes = runtime_variants()
    plan: list[tuple[str, dict[str, Any] | None]] = [("torch fp32, forward + log-softmax (model_speed)", None)]
    plan += variants
    rows: list[Row] = []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))}
    for label, overrides in plan:
        spec = {"shapes": shapes, "repeats": 1 if bench.quick else 3, "overrides": overrides}
        bench.log(f"row 1: {label}")
        try:
            run = measure([sys.executable, "-m", "bench.speed", "--child-throughput", json.dumps(spec)],
                          env=env, cwd=REPO_ROOT, timeout=min(bench.timeout, 900))
            figures = json.loads(run.output.strip().splitlines()[-1])
        except (RowFailed, ValueError, IndexError) as error:
            rows.append(Row(1, f"{label}", note=f"FAILED: {error}"))
            continue
        for shape in ("1x32", "1x512"):
            rows.append(Row(1, f"{label}, {shape}", tokens_per_s=figures[shape], rss_mb=run.rss_mb,
                            note="RSS: the whole child (model load included)"))
    rows += [Row(1, "CTranslate2", note=note) for note in notes]
    return rows


# ---------------------------------------------------------------------------------------------
# repositories: sdists committed into temporary git repositories


def git(repo: Path, *args: str, timeout: float = 300) -> str:
    return run_quiet([*GIT, "-C", str(repo), *args], timeout=timeout)


def commit_all(repo: Path, message: str) -> None:
    if not (repo / ".git").exists():
        git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", message)


def fetch_sdist(bench: Bench, name: str, version: str) -> Path:
    """``pip download`` the sdist into the cache once; its archive path."""
    folder = bench.cache / "sdists"
    folder.mkdir(parents=True, exist_ok=True)
    found = sorted(folder.glob(f"{name}-{version}.tar.gz")) + sorted(folder.glob(f"{name}-{version}.zip"))
    if not found:
        run_quiet([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                   f"{name}=={version}", "-d", str(folder)], timeout=600)
        found = sorted(folder.glob(f"{name}-{version}.*"))
    if not found:
        raise RowFailed(f"pip download {name}=={version} left no archive in {folder}")
    return found[0]


def sdist_repo(bench: Bench, name: str, version: str) -> Path:
    """The sdist unpacked and committed into a new git repository (once per run).

    ``--quick`` keeps only the 6 smallest Python files of 300 bytes or more (about 6 KB).
    """
    if name in bench.repos:
        return bench.repos[name]
    archive = fetch_sdist(bench, name, version)
    target = bench.work / "repos"
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tar:
        tar.extractall(target, filter="data")
    repo = target / f"{name}-{version}"
    if bench.quick:
        keep = sorted((p for p in repo.rglob("*.py") if p.stat().st_size >= 300 and "test" not in p.name),
                      key=lambda p: (p.stat().st_size, str(p)))[:6]
        for path in [p for p in repo.rglob("*") if p.is_file() and p not in keep]:
            path.unlink()
    commit_all(repo, f"{name} {version} sdist")
    bench.repos[name] = repo
    return repo


def tracked_files(repo: Path) -> list[str]:
    return [line for line in git(repo, "ls-files", "-z").split("\0") if line]


# ---------------------------------------------------------------------------------------------
# the tools


def peers_bin(bench: Bench) -> Path:
    """The peers' venv (created and filled once under the cache); its bin folder."""
    venv = bench.cache / "peers"
    binaries = venv / "bin"
    if not (binaries / "credsweeper").exists() or not (binaries / "detect-secrets").exists():
        bench.log(f"installing {' '.join(PEERS)} into {venv}")
        run_quiet([sys.executable, "-m", "venv", str(venv)], timeout=300)
        run_quiet([str(binaries / "pip"), "install", "-q", *PEERS], timeout=1200)
    return binaries


def run_smscan(bench: Bench, args: Sequence[str], *, env: dict[str, str], cwd: Path | None = None,
               report: Path | None = None) -> tuple[Measured, dict[str, Any]]:
    """One smscan CLI process (exit 0 or 1 are success); with ``report`` its JSON stats too."""
    command = [*smscan_command(), *args]
    if report is not None:
        command += ["--format", "json", "-o", str(report)]
    run = measure(command, env=env, cwd=cwd, timeout=bench.timeout, ok_codes=(0, 1))
    stats: dict[str, Any] = {}
    if report is not None:
        try:
            stats = json.loads(report.read_text(encoding="utf-8")).get("stats", {})
        except (OSError, ValueError) as error:
            raise RowFailed(f"no JSON report from {_short(command)}: {error}") from error
    return run, stats


def run_peer(bench: Bench, tool: str, folder: Path) -> Measured:
    binaries = peers_bin(bench)
    out = bench.work / f"{tool}-{folder.name}-{time.monotonic_ns()}.json"
    if tool == "credsweeper":
        command = [str(binaries / "credsweeper"), "--path", str(folder), "--save-json", str(out), "--no-stdout"]
    else:
        command = [str(binaries / "detect-secrets"), "scan", str(folder)]
    env = {**os.environ, "PATH": f"{binaries}{os.pathsep}{os.environ.get('PATH', '')}"}
    return measure(command, env=env, cwd=folder, timeout=bench.timeout, log=out.with_suffix(".log"))


# ---------------------------------------------------------------------------------------------
# rows 2 and 3: cold scans, warm rescans


def cold_scan(bench: Bench, name: str, version: str) -> tuple[Measured, dict[str, Any], Path]:
    """smscan's cold full scan of the sdist repository, once per run (rows 2 and 3 share it)."""
    if name in bench.cold_failed:
        raise bench.cold_failed[name]
    if name not in bench.cold:
        repo = sdist_repo(bench, name, version)
        bench.log(f"cold smscan repo {name} {version} ({len(tracked_files(repo))} files)")
        try:
            run, stats = run_smscan(bench, ["repo", str(repo)], env=bench.fresh_env(f"repo-{name}"),
                                    report=bench.work / f"cold-{name}.json")
        except RowFailed as error:
            bench.cold_failed[name] = error
            raise
        bench.cold[name] = (run, stats, repo)
    return bench.cold[name]


def peer_scan(bench: Bench, tool: str, name: str, repo: Path) -> Measured:
    key = (tool, name)
    if key not in bench.peer_runs:
        bench.log(f"{tool} on {name}")
        bench.peer_runs[key] = run_peer(bench, tool, repo)
    return bench.peer_runs[key]


def rows_cold(bench: Bench) -> list[Row]:
    repos = [SMALL_SDIST] + ([] if bench.quick else [LARGE_SDIST])
    rows: list[Row] = []
    for name, version in repos:
        label = f"cold scan, {name} {version}"
        repo = sdist_repo(bench, name, version)
        files = len(tracked_files(repo))
        seconds: float | None = None
        try:
            run, stats, repo = cold_scan(bench, name, version)
            seconds = run.seconds
            smscan_row = Row(2, f"{label}: smscan ({stats.get('files_scanned', '?')} files scanned of {files}, "
                                f"{stats.get('tokens_scored', 0):,} tokens)",
                             wall_s=run.seconds, files_per_s=ratio(stats.get("files_scanned"), run.seconds),
                             tokens_per_s=ratio(stats.get("tokens_scored"), run.seconds), rss_mb=run.rss_mb,
                             met=run.rss_mb <= RSS_LIMIT_MB, target="RSS <= 1.5 GB")
        except RowFailed as error:
            seconds = error.timed_out
            smscan_row = Row(2, f"{label}: smscan ({files} files)", rss_mb=error.rss_mb, note=f"FAILED: {error}")
        rows.append(smscan_row)
        peer: dict[str, Measured] = {}
        for tool in ("detect-secrets", "credsweeper"):
            try:
                peer[tool] = peer_scan(bench, tool, name, repo)
            except RowFailed as error:
                rows.append(Row(2, f"{label}: {tool}", note=f"FAILED: {error}"))
                continue
            rows.append(Row(2, f"{label}: {tool}", wall_s=peer[tool].seconds,
                            files_per_s=ratio(files, peer[tool].seconds), rss_mb=peer[tool].rss_mb,
                            note="files/s over tracked files"))
        if "credsweeper" in peer and seconds is not None:
            cs = peer["credsweeper"]
            if smscan_row.wall_s is None:  # timed out: its time so far is a lower bound
                smscan_row.figure = f"> {ratio(seconds, cs.seconds):.0f}x CredSweeper's time"
            else:
                smscan_row.figure = (f"{ratio(seconds, cs.seconds):.1f}x CredSweeper's time, "
                                     f"{ratio(smscan_row.rss_mb, cs.rss_mb):.1f}x its RSS")
                times = ratio(seconds, cs.seconds)
                if name == SMALL_SDIST[0] and times is not None and smscan_row.rss_mb is not None:
                    smscan_row.target = "<= 3x CredSweeper, RSS <= 1.5 GB"
                    smscan_row.met = times <= 3 and smscan_row.rss_mb <= RSS_LIMIT_MB
    return rows


def mid_size_file(repo: Path) -> Path:
    """The median-size Python file of the repository (the one the edit row appends to)."""
    files = sorted((repo / p for p in tracked_files(repo) if p.endswith(".py")), key=lambda p: (p.stat().st_size, str(p)))
    if not files:
        raise RowFailed(f"no Python file in {repo.name}")
    return files[len(files) // 2]


def rows_warm(bench: Bench) -> list[Row]:
    name, version = SMALL_SDIST
    cold, _, repo = cold_scan(bench, name, version)
    env = bench.fresh_env(f"repo-{name}")  # the cold run's cache
    rows: list[Row] = []
    bench.log("warm rescan, unchanged")
    warm, stats = run_smscan(bench, ["repo", str(repo)], env=env, report=bench.work / "warm.json")
    detect = peer_scan(bench, "detect-secrets", name, repo)
    speedup = ratio(cold.seconds, warm.seconds) or 0.0
    rows.append(Row(3, f"warm rescan, {name} unchanged", wall_s=warm.seconds,
                    files_per_s=ratio(stats.get("files_scanned"), warm.seconds), rss_mb=warm.rss_mb,
                    figure=f"{speedup:.1f}x faster than cold; detect-secrets {detect.seconds:.2f} s",
                    target=">= 50x faster than cold, < detect-secrets",
                    met=speedup >= 50 and warm.seconds < detect.seconds))
    edited = mid_size_file(repo)
    relative = edited.relative_to(repo).as_posix()
    with edited.open("a", encoding="utf-8") as handle:
        handle.write("BENCH_EDITED_AT = 'speed benchmark'\n")
    try:
        bench.log(f"{relative} alone, fresh cache")
        alone, _ = run_smscan(bench, ["files", relative], env=bench.fresh_env(), cwd=repo,
                              report=bench.work / "alone.json")
        bench.log("rescan after the edit")
        after, stats = run_smscan(bench, ["repo", str(repo)], env=env, report=bench.work / "edited.json")
    finally:
        git(repo, "checkout", "--", relative)
    lines = len(edited.read_text(encoding="utf-8").splitlines()) + 1
    rows.append(Row(3, f"`smscan files` on {relative} alone ({lines} lines), fresh cache", wall_s=alone.seconds,
                    rss_mb=alone.rss_mb))
    times = ratio(after.seconds, alone.seconds) or float("inf")
    rows.append(Row(3, f"rescan after appending a line to {relative}", wall_s=after.seconds, rss_mb=after.rss_mb,
                    tokens_per_s=None, figure=f"{times:.2f}x that file alone", target="<= 1.2x the file alone",
                    met=times <= 1.2))
    return rows


# ---------------------------------------------------------------------------------------------
# row 4: staged


def stdlib_blocks(min_lines: int = 3, max_lines: int = 20) -> Iterator[str]:
    """Top-level functions of stdlib modules (real code), each ``min_lines``..``max_lines`` lines."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for source in sorted(stdlib.glob("*.py")):
        text = source.read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        lines = text.splitlines()
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.end_lineno is not None:
                block = lines[node.lineno - 1 - len(node.decorator_list):node.end_lineno]
                if min_lines <= len(block) <= max_lines:
                    yield "\n".join(block) + "\n"


def write_change(repo: Path, files: Sequence[str], *, lines_per_file: int, skip: int) -> int:
    """Append about ``lines_per_file`` lines of stdlib functions to each file (the ``skip``-th
    blocks on, so two change sets differ); returns the lines added."""
    blocks = stdlib_blocks()
    for _ in range(skip):
        next(blocks)
    added = 0
    for relative in files:
        chunk: list[str] = []
        while sum(block.count("\n") + 1 for block in chunk) < lines_per_file:
            chunk.append(next(blocks))
        text = "\n\n" + "\n".join(chunk)
        with (repo / relative).open("a", encoding="utf-8") as handle:
            handle.write(text)
        added += text.count("\n")
    return added


def reset_repo(repo: Path) -> None:
    git(repo, "reset", "-q", "--hard", "HEAD")
    git(repo, "clean", "-qfd")


def rows_staged(bench: Bench) -> list[Row]:
    name, version = SMALL_SDIST
    repo = sdist_repo(bench, name, version)
    files = [p for p in tracked_files(repo) if p.endswith(".py") and (repo / p).stat().st_size > 1500][:5]
    if len(files) < 5:
        files = [p for p in tracked_files(repo) if p.endswith(".py")][:5]
    per_file = 8 if bench.quick else 40
    rows: list[Row] = []
    try:
        added = write_change(repo, files, lines_per_file=per_file, skip=0)
        git(repo, "add", "-A")
        bench.log(f"staged, fresh process ({added} lines in {len(files)} files)")
        fresh, stats = run_smscan(bench, ["staged"], env=bench.fresh_env(), cwd=repo, report=bench.work / "staged.json")
        rows.append(Row(4, f"`smscan staged`, {added} lines in {len(files)} files, fresh process", wall_s=fresh.seconds,
                        rss_mb=fresh.rss_mb, tokens_per_s=ratio(stats.get("tokens_scored"), fresh.seconds),
                        target="<= 3.0 s", met=fresh.seconds <= 3.0, note="empty score cache"))
    finally:
        reset_repo(repo)
    rows.append(staged_with_worker(bench, repo, files, per_file))
    return rows


def staged_with_worker(bench: Bench, repo: Path, files: Sequence[str], per_file: int) -> Row:
    label = "`smscan staged`, warm `smscan serve` worker"
    commands = cli_commands()
    if "serve" not in commands:
        return Row(4, label, target="<= 1.0 s", note="skipped: this smscan has no `serve` command")
    env = bench.fresh_env()
    detach = "--detach" in commands["serve"]
    server: subprocess.Popen[bytes] | None = None
    try:
        if detach:  # returns once the worker serves
            bench.log("smscan serve --detach")
            measure([*smscan_command(), "serve", "--detach", "--idle-timeout", "15m"], env=env, cwd=repo,
                    timeout=bench.timeout)
        else:
            with (bench.work / "serve.log").open("wb") as log:
                server = subprocess.Popen([*smscan_command(), "serve"], env=env, cwd=repo, stdout=log,
                                          stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
            time.sleep(5.0)
            if server.poll() is not None:
                raise RowFailed(f"`smscan serve` exited {server.returncode}: "
                                f"{(bench.work / 'serve.log').read_text(errors='replace')[-300:]}")
        # warm-up on another change, so the timed run finds none of its text cached anywhere
        write_change(repo, files, lines_per_file=per_file, skip=200)
        git(repo, "add", "-A")
        bench.log("staged with worker: warm-up")
        run_smscan(bench, ["staged"], env=env, cwd=repo, report=bench.work / "staged-warmup.json")
        reset_repo(repo)
        added = write_change(repo, files, lines_per_file=per_file, skip=0)
        git(repo, "add", "-A")
        bench.log("staged with worker: timed")
        run, _ = run_smscan(bench, ["staged"], env=env, cwd=repo, report=bench.work / "staged-worker.json")
        return Row(4, f"`smscan staged`, {added} lines in {len(files)} files, warm `smscan serve` worker",
                   wall_s=run.seconds, rss_mb=run.rss_mb, target="<= 1.0 s", met=run.seconds <= 1.0,
                   note="RSS of the client process only" + ("" if detach else "; worker given 5 s to start"))
    finally:
        stop_worker(bench, env, repo, server, can_stop="--stop" in commands["serve"])
        reset_repo(repo)


def stop_worker(bench: Bench, env: dict[str, str], repo: Path, server: subprocess.Popen[bytes] | None, *,
                can_stop: bool) -> None:
    if can_stop:
        try:
            run_quiet([*smscan_command(), "serve", "--stop"], env=env, cwd=repo, timeout=60)
        except RowFailed as error:
            bench.log(f"smscan serve --stop: {error}")
    if server is not None:
        _kill_group(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            _kill_group(server.pid)
            server.wait()


# ---------------------------------------------------------------------------------------------
# row 5: many one-line files


def one_line_files(folder: Path, count: int, *, seed: int = 5) -> int:
    """``count`` one-line config files; about 1 in 100 holds a random secret. Returns the secrets."""
    rng = random.Random(seed)
    folder.mkdir(parents=True)
    words = ["alpha", "beta", "cache", "delta", "region", "primary", "backup", "service", "worker", "queue"]
    secrets = 0
    for n in range(count):
        kind = rng.random()
        if kind < 0.01:
            value = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(32))
            line = f'api_key_{n} = "{value}"'
            secrets += 1
        elif kind < 0.4:
            line = f"timeout_{n} = {rng.randint(1, 600)}"
        elif kind < 0.7:
            line = f'name_{n} = "{rng.choice(words)}-{rng.choice(words)}"'
        else:
            line = f'url_{n} = "https://{rng.choice(words)}.example.com/{rng.choice(words)}"'
        (folder / f"key_{n:04d}.py").write_text(line + "\n", encoding="utf-8")
    return secrets


def small_snippets(folder: Path, count: int, *, seed: int = 7) -> int:
    """``count`` files of 2-6 lines each (Python, shell, YAML, JSON, .env, INI, XML, JavaScript), as a
    scanner's detector tests are; about 1 in 25 assigns a random 24-40 character value to a
    secret name. Returns the number of such values."""
    rng = random.Random(seed)
    folder.mkdir(parents=True)
    words = ["alpha", "beta", "cache", "delta", "region", "primary", "backup", "service", "worker", "queue",
             "user", "host", "port", "timeout", "retries", "bucket", "endpoint", "level", "mode", "path"]
    secret_names = ["api_key", "password", "secret", "token", "client_secret", "db_password", "auth_token"]
    alphabet = string.ascii_letters + string.digits

    def plain() -> tuple[str, str]:
        return rng.choice(words) + "_" + rng.choice(words), rng.choice(
            [str(rng.randint(1, 9000)), f"{rng.choice(words)}-{rng.choice(words)}", f"https://{rng.choice(words)}.example.com"])

    forms = {
        "py": ("{k} = \"{v}\"", ""), "sh": ("export {K}=\"{v}\"", "#!/bin/sh\n"), "yaml": ("{k}: {v}", ""),
        "env": ("{K}={v}", ""), "ini": ("{k} = {v}", "[{section}]\n"), "js": ("const {k} = \"{v}\";", ""),
        "json": ("  \"{k}\": \"{v}\"", "{{\n"), "xml": ("  <{k}>{v}</{k}>", "<config>\n"),
    }
    closers = {"json": "}}\n", "xml": "</config>\n"}
    secrets = 0
    for n in range(count):
        suffix = rng.choice(sorted(forms))
        line, head = forms[suffix]
        pairs = [plain() for _ in range(rng.randint(2, 6))]
        if rng.random() < 0.04:
            value = "".join(rng.choice(alphabet) for _ in range(rng.randint(24, 40)))
            pairs[rng.randrange(len(pairs))] = (rng.choice(secret_names), value)
            secrets += 1
        body = [line.format(k=k, K=k.upper(), v=v) for k, v in pairs]
        if suffix == "json":
            body = [item + ("," if i < len(body) - 1 else "") for i, item in enumerate(body)]
        text = head.format(section=rng.choice(words)) + "\n".join(body) + "\n" + closers.get(suffix, "").format()
        name = f"snippet_{n:04d}.{suffix}" if suffix != "env" else f"snippet_{n:04d}/.env"
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return secrets


def rows_many_files(bench: Bench) -> list[Row]:
    count = 300 if bench.quick else 3000
    repo = bench.work / "repos" / "one-line-files"
    if not repo.exists():
        one_line_files(repo / "conf", count)
        commit_all(repo, "one-line files")
    bench.log(f"{count} one-line files: smscan")
    try:
        run, stats = run_smscan(bench, ["repo", str(repo)], env=bench.fresh_env(), report=bench.work / "many.json")
        seconds: float | None = run.seconds
        first = Row(5, f"{count:,} one-line files: smscan", wall_s=run.seconds,
                    files_per_s=ratio(stats.get("files_scanned"), run.seconds),
                    tokens_per_s=ratio(stats.get("tokens_scored"), run.seconds), rss_mb=run.rss_mb,
                    target="<= 5x CredSweeper", note="empty score cache")
    except RowFailed as error:
        seconds = error.timed_out
        first = Row(5, f"{count:,} one-line files: smscan", rss_mb=error.rss_mb, target="<= 5x CredSweeper",
                    note=f"FAILED: {error}")
    rows = [first]
    bench.log(f"{count} one-line files: credsweeper")
    peer = run_peer(bench, "credsweeper", repo)
    rows.append(Row(5, f"{count:,} one-line files: CredSweeper", wall_s=peer.seconds,
                    files_per_s=ratio(count, peer.seconds), rss_mb=peer.rss_mb))
    times = ratio(seconds, peer.seconds)
    if times is not None:
        first.figure = f"{'> ' if first.wall_s is None else ''}{times:.1f}x CredSweeper's time"
        first.met = times <= 5
    return rows


def config_files(folder: Path, count: int, *, seed: int = 11) -> int:
    """About ``count`` small config files of the kinds leaked configs are (.env, .netrc, XML, YAML,
    JSON, INI), a few lines each, one in three holding a random credential. Returns those."""
    rng = random.Random(seed)
    alphabet = string.ascii_letters + string.digits

    def value() -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(16, 40)))

    makers: list[Callable[[bool], tuple[str, str]]] = [
        lambda s: (".env", f"DEBUG=false\nDB_HOST=db.internal\nDB_PASSWORD={value() if s else 'changeme'}\nPORT=5432\n"),
        lambda s: (".netrc", f"machine api.example.com\n  login deploy\n  password {value() if s else 'PASSWORD'}\n"),
        lambda s: ("settings.xml", f"<settings>\n  <server>\n    <id>central</id>\n    <username>ci</username>\n"
                                   f"    <password>{value() if s else '${env.PASS}'}</password>\n  </server>\n</settings>\n"),
        lambda s: ("config.yaml", f"database:\n  host: localhost\n  user: app\n  password: {value() if s else 'null'}\n"),
        lambda s: ("config.json", json.dumps({"service": "billing", "region": "eu-west-1",
                                              "api_key": value() if s else "", "retries": 3}, indent=2) + "\n"),
        lambda s: ("app.ini", f"[auth]\nuser = admin\nsecret = {value() if s else '<set me>'}\ntimeout = 30\n"),
    ]
    folder.mkdir(parents=True)
    secrets = 0
    for n in range(count):
        holds = rng.random() < 1 / 3
        name, text = makers[n % len(makers)](holds)
        secrets += holds
        (folder / f"{n:02d}").mkdir()
        (folder / f"{n:02d}" / name).write_text(text, encoding="utf-8")
    return secrets


def peer_ratio_rows(bench: Bench, number: int, label: str, repo: Path, files: int) -> list[Row]:
    """smscan cold on ``repo`` and CredSweeper on the same folder, in one run: target 5x."""
    bench.log(f"{label}: smscan")
    try:
        run, stats = run_smscan(bench, ["repo", str(repo)], env=bench.fresh_env(), report=bench.work / f"row{number}.json")
        seconds: float | None = run.seconds
        first = Row(number, f"{label}: smscan ({stats.get('tokens_scored', 0):,} tokens scored)", wall_s=run.seconds,
                    files_per_s=ratio(stats.get("files_scanned"), run.seconds),
                    tokens_per_s=ratio(stats.get("tokens_scored"), run.seconds), rss_mb=run.rss_mb,
                    target="<= 5x CredSweeper, RSS <= 1.5 GB", note="empty score cache")
    except RowFailed as error:
        seconds = error.timed_out
        first = Row(number, f"{label}: smscan", rss_mb=error.rss_mb, target="<= 5x CredSweeper", note=f"FAILED: {error}")
    rows = [first]
    bench.log(f"{label}: credsweeper")
    try:
        peer = run_peer(bench, "credsweeper", repo)
    except RowFailed as error:
        return [*rows, Row(number, f"{label}: CredSweeper", note=f"FAILED: {error}")]
    rows.append(Row(number, f"{label}: CredSweeper", wall_s=peer.seconds, files_per_s=ratio(files, peer.seconds),
                    rss_mb=peer.rss_mb))
    times = ratio(seconds, peer.seconds)
    if times is not None:
        first.figure = f"{'> ' if first.wall_s is None else ''}{times:.1f}x CredSweeper's time"
        first.met = times <= 5 and first.rss_mb is not None and first.rss_mb <= RSS_LIMIT_MB
    return rows


def rows_this_repository(bench: Bench) -> list[Row]:
    """``smscan repo`` cold on a clone of this repository at HEAD (target <= 30 s)."""
    repo = bench.work / "repos" / "smscan"
    if not repo.exists():
        run_quiet(["git", "clone", "-q", "--no-hardlinks", str(REPO_ROOT), str(repo)], timeout=300)
    files = len(tracked_files(repo))
    bench.log(f"this repository ({files} files): smscan cold")
    try:
        run, stats = run_smscan(bench, ["repo", str(repo)], env=bench.fresh_env(), report=bench.work / "self.json")
    except RowFailed as error:
        return [Row(8, f"this repository cold ({files} files)", rss_mb=error.rss_mb, target="<= 30 s",
                    note=f"FAILED: {error}")]
    return [Row(8, f"this repository cold ({stats.get('files_scanned', '?')} files scanned of {files}, "
                   f"{stats.get('tokens_scored', 0):,} tokens)", wall_s=run.seconds,
                files_per_s=ratio(stats.get("files_scanned"), run.seconds),
                tokens_per_s=ratio(stats.get("tokens_scored"), run.seconds), rss_mb=run.rss_mb,
                target="<= 30 s, RSS <= 1.5 GB", met=run.seconds <= 30 and run.rss_mb <= RSS_LIMIT_MB,
                note="empty score cache; model ready")]


def rows_config_files(bench: Bench) -> list[Row]:
    count = 12 if bench.quick else 50
    repo = bench.work / "repos" / "config-files"
    if not repo.exists():
        config_files(repo / "leaks", count)
        commit_all(repo, "config files")
    return peer_ratio_rows(bench, 9, f"{count} small config files", repo, count)


def rows_snippets(bench: Bench) -> list[Row]:
    count = 250 if bench.quick else 2500
    repo = bench.work / "repos" / "snippets"
    if not repo.exists():
        small_snippets(repo / "s", count)
        commit_all(repo, "snippets")
    return peer_ratio_rows(bench, 10, f"{count:,} small snippets (2-6 lines)", repo, count)


# ---------------------------------------------------------------------------------------------
# row 6: export


def write_export_input(path: Path, size_mb: float) -> tuple[int, int]:
    """Stdlib Python files, ``{"text": ...}`` per line, until ``size_mb``: (records, characters)."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    target = int(size_mb * 1024 * 1024)
    written = records = chars = 0
    with path.open("w", encoding="utf-8") as out:
        for source in sorted(stdlib.glob("*.py")):
            if written >= target:
                break
            text = source.read_text(encoding="utf-8", errors="replace")
            text = text[: max(200, target - written)]
            line = json.dumps({"text": text}) + "\n"
            out.write(line)
            written += len(line.encode("utf-8"))
            records += 1
            chars += len(text)
    return records, chars


def count_tokens(path: Path) -> int:
    """Tokens of the JSONL's texts under the default model's tokenizer."""
    from transformers import AutoTokenizer

    from smscan.model.default_model import default_model_dir

    tokenizer = AutoTokenizer.from_pretrained(default_model_dir())
    with path.open(encoding="utf-8") as lines:
        return sum(len(tokenizer(json.loads(line)["text"], add_special_tokens=False)["input_ids"]) for line in lines)


def rows_export(bench: Bench) -> list[Row]:
    size = bench.args.export_mb
    source = bench.work / "export-in.jsonl"
    records, _ = write_export_input(source, size)
    megabytes = source.stat().st_size / 1024 / 1024
    tokens = count_tokens(source)
    bench.log(f"export {megabytes:.2f} MB ({records} records, {tokens:,} tokens)")
    label = f"`smscan export`, {megabytes:.2f} MB of stdlib code ({records} records, {tokens:,} tokens)"
    try:
        run, _ = run_smscan(bench, ["export", str(source), "-o", str(bench.work / "export-out.jsonl")],
                            env=bench.fresh_env())
    except RowFailed as error:
        bound = f"< {tokens / error.timed_out:.1f} tokens/s" if error.timed_out else ""
        return [Row(6, label, figure=bound, note=f"FAILED: {error}")]
    return [Row(6, label,
                wall_s=run.seconds, files_per_s=None, tokens_per_s=ratio(tokens, run.seconds), rss_mb=run.rss_mb,
                target="RSS <= 1.5 GB", met=run.rss_mb <= RSS_LIMIT_MB,
                note=f"--export-mb {size:g}; the issue's 5 MB would take {5 / megabytes * run.seconds / 60:.0f} min "
                     "at this rate" if megabytes < 5 else "")]


# ---------------------------------------------------------------------------------------------
# row 7: detection quality, through the existing bench scripts


def shared_bench(bench: Bench) -> Path:
    for candidate in (bench.args.shared, REPO_ROOT.parent / "shared", REPO_ROOT.parents[1] / "shared"):
        if candidate is not None and (Path(candidate) / "bench" / "secrets_gen.py").exists():
            return Path(candidate) / "bench"
    raise RowFailed("../shared/bench not found (pass --shared DIR)")


def rows_quality(bench: Bench) -> list[Row]:
    shared = shared_bench(bench)
    folder = bench.cache / "quality"
    scores = folder / "scores"  # kept across runs: a rerun of unchanged code rescores nothing
    files = 5 if bench.quick else 200
    rows: list[Row] = []
    env = {**os.environ, "SMSCAN_SCORE_CACHE": str(scores), "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"),
           "SECRETS_EVAL_RESULTS": str(folder / f"results-{files}"), "PEERS_PY": str(peers_bin(bench) / "python")}
    data = folder / f"secrets-heldout-{files}"
    try:
        if not (data / "labels.jsonl").exists():
            bench.log(f"generating the held-out credential set ({files} files)")
            run_quiet([sys.executable, str(shared / "secrets_gen.py"), "--out", str(data), "--seed", "2", "--files",
                       str(files), "--packages", str(REPO_ROOT / "bench" / "heldout_packages.txt")],
                      timeout=bench.timeout, env=env)
        bench.log("held-out credential set: smscan")
        command = " ".join(shlex.quote(part) for part in smscan_command())
        run = measure([sys.executable, "run.py", "smscan", "--data", str(data), "--kinds", "credential", "--cmd",
                       f"{command} repo {{path}} --format json -o {{out}} --kinds credential"],
                      env=env, cwd=shared / "secrets_eval", timeout=bench.timeout * 4)
        found = re.search(r"char P/R/F1 ([0-9.]+)/([0-9.]+)/([0-9.]+)", run.output)
        if not found:
            raise RowFailed(f"no char F1 in run.py's output: {run.output[-300:]}")
        rows.append(Row(7, f"held-out credential set (secrets_gen --seed 2, {files} files): char F1",
                        wall_s=run.seconds, figure=f"char F1 {found.group(3)} (P {found.group(1)}, R {found.group(2)})",
                        note="" if files == 200 else "quick subset: not comparable with BENCHMARKS' 200-file figure"))
    except RowFailed as error:
        rows.append(Row(7, "held-out credential char F1", note=f"FAILED: {error}"))
    deadcode = folder / "deadcode"
    try:
        if not (deadcode / "mbpp_calib.jsonl").exists():
            bench.log("generating the MBPP dead-code set")
            run_quiet([sys.executable, str(shared / "deadcode_gen.py"), "--out", str(deadcode), "--seed", "1"],
                      timeout=bench.timeout, env=env)
        labels = deadcode / "mbpp_calib.jsonl"
        if bench.quick:
            lines = labels.read_text(encoding="utf-8").splitlines()
            labels = folder / "mbpp_quick.jsonl"
            labels.write_text("\n".join(lines[:40]) + "\n", encoding="utf-8")
        bench.log("dead-code on MBPP: smscan eval")
        out = bench.work / "deadcode-eval.json"
        run = measure([*smscan_command(), "eval", "--kind", "dead-code", "--labels", str(labels), "--format", "json",
                       "-o", str(out), "--score-cache", str(scores)], env=env, timeout=bench.timeout * 4)
        line = json.loads(out.read_text(encoding="utf-8"))["line"]
        rows.append(Row(7, "dead-code on MBPP (deadcode_gen --seed 1): line F1", wall_s=run.seconds,
                        figure=f"line F1 {line['f1']:.3f} (P {line['precision']:.3f}, R {line['tpr']:.3f})",
                        note="" if not bench.quick else "quick: first 40 programs only"))
    except (RowFailed, OSError, ValueError, KeyError) as error:
        rows.append(Row(7, "dead-code line F1 on MBPP", note=f"FAILED: {error}"))
    return rows


# ---------------------------------------------------------------------------------------------
# the report


def machine_lines() -> list[str]:
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        total_kb = int(Path("/proc/meminfo").read_text().split("MemTotal:")[1].split()[0])
        memory = f", {total_kb / 1024 / 1024:.0f} GiB RAM"
    except (OSError, IndexError, ValueError):
        pass
    return [f"{model}, {os.cpu_count()} CPUs{memory}; Python {platform.python_version()}"]


def smscan_revision() -> str:
    import smscan

    folder = Path(smscan.__file__).resolve().parents[1]
    try:
        commit = subprocess.run(["git", "-C", str(folder), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, timeout=30).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(folder), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown commit"
    return f"commit {commit}{' + uncommitted changes' if dirty else ''}" if commit else "unknown commit"


def section_text(rows: Sequence[Row], *, command: str, started: datetime.datetime, loads: tuple[float, float],
                 notes: Sequence[str], revision: str, machine: str) -> str:
    skipped = [f"- row {r.number}, {r.what}: {r.note}" for r in rows if r.note.startswith(("skipped", "FAILED"))
               or r.what == "CTranslate2"]
    intro = (
        "The issue's speed targets in one run of `bench/speed.py` (rows numbered as in the issue; "
        "regenerated by the command below, which replaces this section). Cold runs start from an empty "
        "score cache; the peers are detect-secrets 1.5.0 and CredSweeper 1.19.5 from PyPI in their own "
        "venv. Peak RSS is the kernel's `ru_maxrss` of each child process (bold above 1.5 GB). "
        "Timings on a shared machine vary 2-3x: compare rows of one run."
    )
    facts = (f"Date: {started:%Y-%m-%d %H:%M} UTC; smscan {revision}; machine: {machine}; "
             f"load average (1 min) {loads[0]:.2f} at the start, {loads[1]:.2f} at the end.")
    parts = [SECTION, "", textwrap.fill(intro, 100), "", f"    {command}", "", textwrap.fill(facts, 100), "",
             render_table(rows)]
    extra = [*skipped, *(f"- {note}" for note in notes)]
    if extra:
        parts += ["", "Skipped, failed and notes:", "", *extra]
    return "\n".join(parts) + "\n"


ROWS: dict[int, Callable[[Bench], list[Row]]] = {
    1: rows_throughput, 2: rows_cold, 3: rows_warm, 4: rows_staged, 5: rows_many_files, 6: rows_export,
    7: rows_quality, 8: rows_this_repository, 9: rows_config_files, 10: rows_snippets,
}
TITLES = {1: "forward throughput", 2: "cold full scan", 3: "warm rescans", 4: "smscan staged",
          5: "3,000 one-line files", 6: "smscan export", 7: "detection quality", 8: "this repository, cold",
          9: "~50 small config files", 10: "2,500 small snippets"}


def run_rows(bench: Bench, numbers: Sequence[int]) -> list[Row]:
    rows: list[Row] = []
    for number in numbers:
        bench.log(f"row {number}: {TITLES[number]}")
        try:
            rows += ROWS[number](bench)
        except Exception as error:  # a failed row is reported, the run goes on
            rows.append(Row(number, TITLES[number], note=f"FAILED: {type(error).__name__}: {error}"))
        print(render_table([r for r in rows if r.number == number]), file=sys.stderr, flush=True)
    return rows


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small subsets (6 files of requests, no larger sdist, "
                        "300 one-line files, 40 staged lines, 0.02 MB export): for development")
    parser.add_argument("--only", default="", help="comma-separated row numbers (default: 1-6 and 8-10, and 7 with --quality)")
    parser.add_argument("--quality", action="store_true", help="also row 7 (detection F1; slow on a cold score cache)")
    parser.add_argument("--write", action="store_true", help="replace the Speed section of docs/BENCHMARKS.md")
    parser.add_argument("--export-mb", type=float, default=None, help="export input size (default 0.5; 0.02 quick)")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "smscan-bench",
                        help="sdists, the peers' venv, quality sets (kept between runs)")
    parser.add_argument("--timeout", type=float, default=None, help="seconds per child (default 3600; 900 quick)")
    parser.add_argument("--shared", type=Path, default=None, help="the shared folder holding bench/ (default ../shared)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (printed)")
    parser.add_argument("--child-throughput", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.export_mb is None:
        args.export_mb = 0.02 if args.quick else 0.5
    if args.timeout is None:
        args.timeout = 900.0 if args.quick else 3600.0
    return args


def command_line(argv: Sequence[str]) -> str:
    """The command as a reader reruns it (repository-relative; no machine paths)."""
    kept = [arg for arg in argv if not arg.startswith("/") and arg != "--keep"]
    return " ".join(["python -m bench.speed", *(shlex.quote(arg) for arg in kept)])


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    if args.child_throughput is not None:
        print(json.dumps(throughput_child(json.loads(args.child_throughput))))
        return 0
    numbers = [int(n) for n in args.only.split(",") if n.strip()] or [1, 2, 3, 4, 5, 6, *([7] if args.quality else []), 8, 9, 10]
    unknown = [n for n in numbers if n not in ROWS]
    if unknown:
        raise SystemExit(f"--only: no row {unknown[0]} (rows are 1-10)")
    started = datetime.datetime.now(datetime.timezone.utc)
    first_load = os.getloadavg()[0]
    revision = smscan_revision()
    work = Path(tempfile.mkdtemp(prefix="smscan-speed-"))
    bench = Bench(args, work)
    if 7 not in numbers:
        bench.notes.append("Row 7 (detection F1) not run: add `--quality` (slow on a cold score cache); "
                           "the Detection sections below hold the last figures.")
    try:
        rows = run_rows(bench, numbers)
    finally:
        if args.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    section = section_text(rows, command=command_line(argv), started=started,
                           loads=(first_load, os.getloadavg()[0]), notes=bench.notes, revision=revision,
                           machine=machine_lines()[0])
    print(section)
    if args.write:
        BENCHMARKS.write_text(replace_section(BENCHMARKS.read_text(encoding="utf-8"), section), encoding="utf-8")
        print(f"wrote the Speed section of {BENCHMARKS.relative_to(REPO_ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
