"""Export throughput, local engine vs Ray engine, on the same input with the real default model.

Run from the repository root with the default model pulled and the ray extra installed::

    python3 bench/export_speed.py                              # 32 stdlib files, local + Ray 1 and 2 actors
    python3 bench/export_speed.py --files 200 --max-chars 4000 --workers 1 2 4 --threads 1

Input: the first ``--files`` stdlib modules (sorted by name, at least ``--max-chars`` long), each
cut to its first ``--max-chars`` characters at a line end, one JSONL record per file, each its
own group (no ``--group-by``), so the Ray engine can spread records over actors.

Each run exports with the default raw rule (CPU, fp32) and is timed end to end:
- local: loading the model in this process (``--threads``: torch threads, one run each; 0 is
  torch's default, one per core), then ``run_export``;
- Ray: ``run_ray_export`` on an already started local Ray with ``--workers`` CPUs (actor start and
  model loading in each actor are inside the time: they are what a user waits for).
records/s and tokens/s (reference tokens scored) are over that time; the export-only figure of
the local run leaves out its model load. Every Ray output is compared byte for byte with the
local one. On a shared machine timings vary 2-3x with load: compare engines from one run.
"""

from __future__ import annotations

import argparse
import json
import sys
import os
import sysconfig
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common.sections import DOCUMENT, write_section

SECTION = "Export throughput: local engine vs Ray (bench.export_speed)"


def write_input(path: Path, *, files: int, max_chars: int) -> int:
    """JSONL of stdlib sources; returns the number of records written."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    count = 0
    with path.open("w", encoding="utf-8") as out:
        for source in sorted(stdlib.glob("*.py")):
            text = source.read_text(encoding="utf-8", errors="replace")
            if len(text) < max_chars:
                continue
            cut = text[:max_chars]
            cut = cut[: cut.rfind("\n") + 1] or cut
            out.write(json.dumps({"path": source.name, "text": cut}) + "\n")
            count += 1
            if count == files:
                break
    return count


def run_local(source: Path, output: Path, threads: int) -> dict[str, float]:
    from smscan.exports.job import ExportSource, run_export
    from smscan.exports.plan import ExportPlan
    from smscan.engine.masking import MaskRule
    from smscan.model.load import load_scorer

    started = time.perf_counter()
    scorer = load_scorer(device="cpu", dtype="fp32", threads=threads)
    loaded = time.perf_counter()
    stats = run_export(
        ExportSource(source), scorer, ExportPlan(MaskRule()), output=output,
        rejects=output.with_suffix(".rejects"), resume=False, options={}, model=scorer.describe(),
    )
    done = time.perf_counter()
    return {"records": stats.records, "tokens": stats.tokens, "seconds": done - started, "export_seconds": done - loaded}


def run_ray(source: Path, output: Path, workers: int) -> dict[str, float]:
    import ray

    from smscan.exports.job import ExportSource, ScorerRecipe
    from smscan.exports.plan import ExportPlan
    from smscan.exports.ray_cluster import RayCluster
    from smscan.exports.ray_engine import run_ray_export
    from smscan.engine.masking import MaskRule
    from smscan.model.source import resolve_model

    begun = time.perf_counter()
    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, configure_logging=False)
    init_seconds = time.perf_counter() - begun
    try:
        fingerprint = resolve_model(None).fingerprint.short
        started = time.perf_counter()
        stats = run_ray_export(
            ExportSource(source), ScorerRecipe(device="cpu", dtype="fp32"), ExportPlan(MaskRule()), output=output,
            rejects=output.with_suffix(".rejects"), resume=False, options={}, fingerprint=fingerprint,
            cluster=RayCluster(workers=workers),
        )
        seconds = time.perf_counter() - started
    finally:
        ray.shutdown()
    return {"records": stats.records, "tokens": stats.tokens, "seconds": seconds, "init_seconds": init_seconds}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=32)
    parser.add_argument("--max-chars", type=int, default=1000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="Ray actor counts to time")
    parser.add_argument("--threads", type=int, nargs="+", default=[0, 1], help="torch threads of each local run (0: default)")
    parser.add_argument("--write", type=Path, nargs="?", const=DOCUMENT, metavar="FILE",
                        help=f"also write the table as the section \"## {SECTION}\" of FILE (default docs/BENCHMARKS.md)")
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="export-speed-"))
    source = folder / "in.jsonl"
    records = write_input(source, files=args.files, max_chars=args.max_chars)
    print(f"input: {records} stdlib files, <= {args.max_chars} chars each; load avg {os.getloadavg()[0]:.1f}")
    local_out = folder / "local.jsonl"
    rows = ["| engine | seconds | records/s | tokens/s | output identical to local |", "|---|---|---|---|---|"]
    for threads in args.threads:
        local = run_local(source, local_out, threads)
        rows.append(f"| local, threads {threads or 'default'} | {local['seconds']:.1f} | "
                    f"{local['records'] / local['seconds']:.2f} | {local['tokens'] / local['seconds']:.1f} | - |")
        print(
            f"local t={threads or 'default'}: {local['seconds']:7.1f} s  {local['records'] / local['seconds']:6.2f} rec/s  "
            f"{local['tokens'] / local['seconds']:7.1f} tok/s  (export only {local['export_seconds']:.1f} s: "
            f"{local['records'] / local['export_seconds']:.2f} rec/s, {local['tokens'] / local['export_seconds']:.1f} tok/s)"
        )
    for workers in args.workers:
        out = folder / f"ray{workers}.jsonl"
        result = run_ray(source, out, workers)
        same = out.read_bytes() == local_out.read_bytes()
        rows.append(f"| Ray, {workers} actor(s) | {result['seconds']:.1f} | {result['records'] / result['seconds']:.2f} | "
                    f"{result['tokens'] / result['seconds']:.1f} | {same} |")
        print(
            f"ray x{workers}    : {result['seconds']:7.1f} s  {result['records'] / result['seconds']:6.2f} rec/s  "
            f"{result['tokens'] / result['seconds']:7.1f} tok/s  (output identical to local: {same}; "
            f"ray.init {result['init_seconds']:.1f} s, not in the time; "
            f"load avg {os.getloadavg()[0]:.1f})"
        )
    print(f"tokens scored: {local['tokens']}")
    if args.write:
        body = (f"{records} stdlib files of at most {args.max_chars} characters, {local['tokens']:,} tokens, "
                f"the default model on the CPU (fp32); Ray's time leaves out `ray.init`.\n\n" + "\n".join(rows))
        write_section(SECTION, body, module="bench.export_speed", argv=argv, document=args.write)


if __name__ == "__main__":
    main()
