"""Runtimes of the default model side by side: torch fp32, CTranslate2 fp32, CTranslate2 int8.

Run from the repository root with the default model pulled (``smscan model pull``)::

    python3 bench/runtime_speed.py                     # speed, cold start and drift, one run
    python3 bench/runtime_speed.py --shapes 1x32 --threads 1 --no-drift

Prints, in one run (timings on a shared machine vary 2-3x with load: compare rows of one run):
- raw forward throughput (tokens/s, median of repeats) per runtime, shape and thread count:
  torch is ``model(ids).logits`` plus the NLL gather, CTranslate2 is ``Generator.score_batch``;
- cold start: a fresh interpreter from start to its first score through ``load_scorer``, and
  whether torch was imported;
- drift against torch fp32 on real code (Python stdlib files, the real scorers with their
  chunking): mean and max |dNLL| and 4-token windows that flip at the default threshold, at the
  packaged detector thresholds and at the p90 of torch fp32's window scores.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

COLD_SNIPPET = """
import sys
from smscan.model.load import load_scorer
scorer = load_scorer(device="cpu", runtime={runtime!r}, dtype={dtype!r}, threads=1)
scorer.score_texts(["x = 1\\n"])
print("torch" in sys.modules)
"""
VARIANTS = (("torch", "fp32"), ("ctranslate2", "fp32"), ("ctranslate2", "int8"))
DRIFT_MODULES = ("argparse", "json.decoder", "textwrap", "shlex", "colorsys", "fnmatch", "csv", "dataclasses")


def code_ids(tokenizer: Any, count: int) -> list[int]:
    """At least ``count`` token ids of real Python source (stdlib files)."""
    import importlib

    ids: list[int] = []
    for name in DRIFT_MODULES:
        text = Path(str(importlib.import_module(name).__file__)).read_text(encoding="utf-8")
        ids += tokenizer.encode(text, add_special_tokens=False).ids
        if len(ids) >= count:
            break
    return ids[:count]


def time_cold_start(runtime: str, dtype: str) -> str:
    """Wall time of a fresh interpreter loading the scorer and scoring one line."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", COLD_SNIPPET.format(runtime=runtime, dtype=dtype)],
                          capture_output=True, text=True, check=True)
    elapsed = time.perf_counter() - started
    return f"cold start {runtime:>11} {dtype}: {elapsed:5.2f} s to a first score (torch imported: {done.stdout.strip()})"


def time_forward(shapes: list[tuple[int, int]], threads: list[int], repeats: int) -> None:
    """Raw forward throughput of each runtime at each shape and thread count."""
    import ctranslate2
    import tokenizers
    import torch
    from transformers import AutoModelForCausalLM

    from smscan.model.ct2_model import ct2_model_dir, ensure_ct2_model
    from smscan.model.hf import quiet_transformers
    from smscan.model.pull import default_model_dir

    folder = default_model_dir()
    tokenizer = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    vocabulary = [tokenizer.id_to_token(i) for i in range(tokenizer.get_vocab_size())]
    ids = code_ids(tokenizer, max(b * t for b, t in shapes))
    with quiet_transformers():
        model = AutoModelForCausalLM.from_pretrained(folder, use_safetensors=True).eval()
    for dtype in ("fp32", "int8"):
        ensure_ct2_model(folder, dtype)

    def torch_pass(batch: Any) -> None:
        with torch.no_grad():
            logits = model(input_ids=batch, use_cache=False).logits  # (B, T, V)
            log_probs = torch.log_softmax(logits[:, :-1].float(), dim=-1)  # (B, T-1, V)
            log_probs.gather(-1, batch[:, 1:, None])  # (B, T-1, 1)

    for count in threads:
        torch.set_num_threads(count)
        generators = {
            dtype: ctranslate2.Generator(str(ct2_model_dir(dtype)), device="cpu", compute_type=compute,
                                         intra_threads=count)
            for dtype, compute in (("fp32", "float32"), ("int8", "int8"))
        }
        for b, t in shapes:
            flat = ids[: b * t]
            tensor = torch.tensor(flat).reshape(b, t)  # (B, T)
            strings = [[vocabulary[i] for i in flat[row * t : (row + 1) * t]] for row in range(b)]
            runs = {
                "torch fp32": lambda: torch_pass(tensor),
                "ct2 fp32": lambda: generators["fp32"].score_batch(strings, max_input_length=0),
                "ct2 int8": lambda: generators["int8"].score_batch(strings, max_input_length=0),
            }
            rates = {}
            for name, run in runs.items():
                run()  # warm-up
                passes = repeats if t > 64 else repeats * 10
                times = []
                for _ in range(passes):
                    started = time.perf_counter()
                    run()
                    times.append(time.perf_counter() - started)
                rates[name] = b * t / statistics.median(times)
            row = "  ".join(f"{name} {rate:7.1f}" for name, rate in rates.items())
            ratio = rates["ct2 int8"] / rates["torch fp32"]
            print(f"{count} thread(s) {b}x{t:<4} tok/s: {row}  (int8/torch {ratio:.1f}x)", flush=True)


def print_drift(files: int, chars: int) -> None:
    """The scorers' NLL drift against torch fp32 on stdlib code, and window flips."""
    import importlib

    import numpy as np

    from smscan.rules.thresholds_file import packaged_thresholds
    from smscan.config.settings import DEFAULT_SURPRISE_THRESHOLD
    from smscan.engine.windows import fixed_windows
    from smscan.model.load import load_scorer

    texts = [Path(str(importlib.import_module(name).__file__)).read_text(encoding="utf-8")[:chars]
             for name in DRIFT_MODULES[:files]]
    scores = {(runtime, dtype): load_scorer(device="cpu", runtime=runtime, dtype=dtype, threads=1).score_texts(texts)
              for runtime, dtype in VARIANTS}
    reference = scores[VARIANTS[0]]
    reference_windows = [fixed_windows(s.nll, size=4).scores for s in reference]
    every = np.concatenate([w[np.isfinite(w)] for w in reference_windows])
    thresholds = {"tau 6.0": DEFAULT_SURPRISE_THRESHOLD, "p90": float(np.percentile(every, 90))}
    thresholds.update({f"{kind} {entry['threshold']:.2f}": float(entry["threshold"])
                       for kind, entry in packaged_thresholds()["kinds"].items()})
    tokens = sum(len(s) for s in reference)
    print(f"drift vs torch fp32 on {len(texts)} stdlib files, {tokens} tokens, {every.size} windows:")
    for variant in VARIANTS[1:]:
        diffs = np.concatenate([np.abs(a.nll[1:] - b.nll[1:]) for a, b in zip(scores[variant], reference)])
        flips = []
        for label, tau in thresholds.items():
            flipped = 0
            for got, want in zip(scores[variant], reference_windows):
                ours = fixed_windows(got.nll, size=4).scores
                valid = np.isfinite(ours) & np.isfinite(want)
                flipped += int(((ours[valid] >= tau) != (want[valid] >= tau)).sum())
            flips.append(f"{label}: {flipped} ({flipped / every.size:.2%})")
        print(f"  ct2 {variant[1]}: mean |dNLL| {diffs.mean():.4f}, max {diffs.max():.4f} nats; "
              f"window flips {'; '.join(flips)}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shapes", default="1x32,1x512", help="batch x tokens, comma separated")
    parser.add_argument("--threads", default="1,2", help="thread counts, comma separated")
    parser.add_argument("--repeats", type=int, default=5, help="timed passes per shape (x10 at <=64 tokens)")
    parser.add_argument("--no-drift", action="store_true", help="skip the drift measurement")
    parser.add_argument("--drift-files", type=int, default=8, help="stdlib files for the drift")
    parser.add_argument("--drift-chars", type=int, default=4000, help="characters of each file")
    args = parser.parse_args()

    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    for runtime, dtype in VARIANTS:
        print(time_cold_start(runtime, dtype), flush=True)
    shapes = [(int(b), int(t)) for b, t in (shape.split("x") for shape in args.shapes.split(","))]
    time_forward(shapes, [int(n) for n in args.threads.split(",")], args.repeats)
    if not args.no_drift:
        print_drift(args.drift_files, args.drift_chars)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
