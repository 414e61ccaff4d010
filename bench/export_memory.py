"""Export memory: peak RSS of the real ``smscan export`` CLI as the JSONL input grows (issue #5).

Run from the repository root (Linux: reads ``/proc`` and uses ``os.wait4``)::

    python3 bench/export_memory.py                                  # 2, 8, 32 MB, both layouts
    python3 bench/export_memory.py --sizes-mb 32 128 512 --layouts grouped
    python3 bench/export_memory.py --sizes-mb 0.05 --layouts ungrouped --model default --threshold 0

On 2 shared vCPUs the tiny model exports about 10-15 s per MB (the defaults take about 20 minutes);
the real default model about 25 minutes per MB, hence the reference run's 0.05 MB.

For each size and layout it writes a JSONL input into a temporary folder, runs
``smscan export IN -o OUT --model TINY --device cpu --dtype fp32 [--group-by group]`` as a child
process and records its peak resident set (``ru_maxrss`` from ``os.wait4`` on that child: exact,
the kernel's figure), the resident set sampled every ``--sample`` seconds (``/proc/PID/status``,
to tell a start-up peak from growth during the run), wall time and records/s.

Input: Python stdlib sources (the running interpreter's, sorted by name) cut at line ends into
records of about ``--record-chars`` characters, cycled until the size is reached, each record
``{"id", "path", "text"}`` (plus ``"group"`` in the grouped layout: ``--group-size`` consecutive
records per group, so the export holds one small group at a time and the number of groups grows
with the input).

The model is tiny ON PURPOSE (built here like ``tests/fakes.build_tiny_model``: a random 2-layer
Llama, hidden size 32, a byte-level BPE trained on the stdlib chunks): the point is the pipeline's
memory (reading, grouping, masking, writing), not the model's, and a real model would take hours
on a CPU for these sizes. The model's own memory is a constant on top; ``--model default`` runs
the real one for reference.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from pathlib import Path
from typing import NamedTuple

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common.runs import smscan_argv
from bench.common.sections import DOCUMENT, write_section

SECTION = "Export memory: peak RSS as the input grows (bench.export_memory)"

MB = 1024 * 1024


class ExportRun(NamedTuple):
    """One export's figures (MB are MiB)."""

    records: int
    seconds: float
    peak_rss_mb: float
    rss_first_half_mb: float
    rss_second_half_mb: float
    load: float
    summary: str  # the CLI's last line


def stdlib_chunks(record_chars: int) -> list[tuple[str, str]]:
    """(path, text) chunks of about ``record_chars`` characters, cut at line ends."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    chunks: list[tuple[str, str]] = []
    for source in sorted(stdlib.glob("*.py")):
        text = source.read_text(encoding="utf-8", errors="replace")
        start = 0
        while len(text) - start >= record_chars // 2:
            end = text.rfind("\n", start, start + record_chars) + 1
            if end <= start:
                end = min(len(text), start + record_chars)
            chunks.append((source.name, text[start:end]))
            start = end
    return chunks


def write_input(path: Path, *, size_mb: float, chunks: list[tuple[str, str]], group_size: int | None) -> int:
    """Write JSONL records until ``size_mb`` is reached; returns the number of records."""
    target = int(size_mb * MB)
    written = 0
    count = 0
    with path.open("w", encoding="utf-8") as out:
        while written < target:
            name, text = chunks[count % len(chunks)]
            record: dict[str, object] = {"id": count, "path": name, "text": text}
            if group_size is not None:
                record["group"] = f"g{count // group_size}"
            line = json.dumps(record) + "\n"
            out.write(line)
            written += len(line.encode("utf-8"))
            count += 1
    return count


def rss_mb(pid: int) -> float | None:
    """Current resident set of ``pid`` in MB, or None once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def run_export(
    source: Path, output: Path, *, model: str, group_by: bool, threshold: float | None, sample: float
) -> ExportRun:
    """Run the CLI once; peak RSS from ``wait4``, samples from ``/proc``."""
    command = [*smscan_argv(), "export", str(source), "-o", str(output),
               "--model", model, "--device", "cpu", "--dtype", "fp32"]
    if group_by:
        command += ["--group-by", "group"]
    if threshold is not None:
        command += ["--threshold", str(threshold)]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"}
    load = os.getloadavg()[0]
    started = time.perf_counter()
    log = output.with_suffix(".log")
    with log.open("wb") as sink:  # a file, not a pipe: nothing to drain, and wait4 reaps the child
        proc = subprocess.Popen(command, env=env, stdout=sink, stderr=subprocess.STDOUT)
    samples: list[tuple[float, float]] = []
    stop = threading.Event()

    def poll() -> None:
        while not stop.is_set():
            value = rss_mb(proc.pid)
            if value is not None:
                samples.append((time.perf_counter() - started, value))
            stop.wait(sample)

    poller = threading.Thread(target=poll, daemon=True)
    poller.start()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - started
    stop.set()
    poller.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    text = log.read_text(encoding="utf-8", errors="replace")
    log.unlink()
    if proc.returncode != 0:
        raise SystemExit(f"smscan export exited {proc.returncode}:\n{text[-2000:]}")
    with output.open("rb") as lines:
        records = sum(1 for _ in lines)
    # RSS over the run: the largest sample in each half of the run, to see growth after start-up
    half = seconds / 2
    first = max((v for t, v in samples if t < half), default=float("nan"))
    second = max((v for t, v in samples if t >= half), default=float("nan"))
    summary = text.strip().splitlines()[-1] if text.strip() else ""
    return ExportRun(records, seconds, usage.ru_maxrss / 1024, first, second, load, summary)


def build_model(folder: Path, chunks: list[tuple[str, str]], *, vocab_size: int = 1024) -> str:
    """A tiny random Llama like the tests' (``tests/fakes.build_tiny_model``), saved into ``folder``.

    Unlike the tests' model, the byte-level BPE tokenizer is trained on the stdlib chunks with a
    1,024-token vocabulary: fewer tokens per character than the tests' 320-token one (fewer forward
    passes), and a uniform-ish NLL near ln(1024) = 6.9 nats, so ``--threshold`` sets how much is masked.
    """
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=["<|endoftext|>", "<pad>", "<s>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False,
    )
    tokenizer.train_from_iterator([text for _, text in chunks[:2000]], trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<|endoftext|>", pad_token="<pad>",
                                   bos_token="<s>", model_max_length=1024)
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=tokenizer.get_vocab_size(), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=1024,
        tie_word_embeddings=False, eos_token_id=0, pad_token_id=1,
    )
    model = LlamaForCausalLM(config).eval()
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder, safe_serialization=True)
    fast.save_pretrained(folder)
    return str(folder)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes-mb", type=float, nargs="+", default=[2, 8, 32])
    parser.add_argument("--layouts", nargs="+", choices=["ungrouped", "grouped"], default=["ungrouped", "grouped"])
    parser.add_argument("--record-chars", type=int, default=3000)
    parser.add_argument("--group-size", type=int, default=4)
    parser.add_argument("--model", default="tiny", help="'tiny' (built here), 'default' or a model folder")
    parser.add_argument("--threshold", type=float, default=7.0,
                        help="global threshold (nats); 7.0 masks about a third of the tiny model's tokens in "
                        "many short spans, a heavier output than a real model's; 0 leaves the default")
    parser.add_argument("--sample", type=float, default=0.25, help="RSS sampling period in seconds")
    parser.add_argument("--write", type=Path, nargs="?", const=DOCUMENT, metavar="FILE",
                        help=f"also write the table as the section \"## {SECTION}\" of FILE (default docs/BENCHMARKS.md)")
    args = parser.parse_args(argv)

    chunks = stdlib_chunks(args.record_chars)
    with tempfile.TemporaryDirectory(prefix="smscan-export-memory-") as tmp:
        folder = Path(tmp)
        model = build_model(folder / "tiny-model", chunks) if args.model == "tiny" else args.model
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, stdlib chunks: {len(chunks)} "
              f"(~{args.record_chars} chars), model: {args.model}", flush=True)
        if args.model == "tiny":
            print("The model is tiny on purpose (random 2-layer Llama, hidden 32): this measures the "
                  "export pipeline's memory, not the model's.", flush=True)
        header = ("| layout | input MB | records | peak RSS MB | max RSS 1st half | max RSS 2nd half "
                  "| seconds | records/s | load avg |")
        rows = [header, "|" + "---|" * 9]
        for layout in args.layouts:
            group_size = args.group_size if layout == "grouped" else None
            for size in args.sizes_mb:
                source = folder / f"in-{layout}-{size:g}.jsonl"
                count = write_input(source, size_mb=size, chunks=chunks, group_size=group_size)
                output = folder / f"out-{layout}-{size:g}.jsonl"
                result = run_export(source, output, model=model, group_by=group_size is not None,
                                    threshold=args.threshold or None, sample=args.sample)
                if result.records != count:
                    raise SystemExit(f"{output}: {result.records} records written, {count} read")
                name = layout if group_size is None else f"grouped ({group_size}/group)"
                megabytes = source.stat().st_size / MB
                rate = count / result.seconds
                row = (f"| {name} | {megabytes:.{1 if megabytes >= 1 else 2}f} | {count:,} "
                       f"| {result.peak_rss_mb:.1f} | {result.rss_first_half_mb:.1f} "
                       f"| {result.rss_second_half_mb:.1f} | {result.seconds:.1f} "
                       f"| {rate:.{0 if rate >= 10 else 1}f} | {result.load:.2f} |")
                rows.append(row)
                print(row, result.summary, sep="   ", flush=True)
                source.unlink()
                output.unlink()
        print("\n".join(["", *rows]))
    if args.write:
        write_section(SECTION, "\n".join(rows), module="bench.export_memory", argv=argv, document=args.write)


if __name__ == "__main__":
    main()
