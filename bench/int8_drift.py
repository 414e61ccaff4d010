"""Where CTranslate2 int8's drift comes from, and whether any int8 setting keeps the default model's scores.

Run from the repository root with the default model pulled (``smscan model pull``)::

    python -m bench.int8_drift                 # CTranslate2 compute types, drift and speed, one run
    python -m bench.int8_drift --simulate      # also the torch simulation, layer group by group
    python -m bench.int8_drift --simulate --write   # and write its section of docs/BENCHMARKS.md

Prints, in one run on the same texts (the first 3,000 characters of 6 stdlib modules, the first
``--tokens`` tokens of each, no BOS, as the scorer feeds a file):

- for CTranslate2 ``float32``, ``int8`` and, where its backend has it, ``int16`` (all loaded from the float32 copy: CTranslate2
  converts every weight whose name ends in ``weight`` to the compute type when it loads, so an
  int8 conversion and an int8 load of the float32 copy compute the same; no setting keeps one
  layer, such as the tied embedding/output matrix, in float): mean, p99 and max |dNLL| per token
  against float32, and tokens/s at 1x``--tokens`` (one text a pass) and 12x32 (short pieces
  packed), median of 3 interleaved repeats, with the ratio to float32 of the same repeat;
- with ``--simulate``: the same drift for CTranslate2's int8 arithmetic (per-row int8 weights,
  per-token dynamic int8 activations) simulated in torch on chosen layer groups, so a group kept
  in float (the tied embedding/output matrix, the MLP down projections) shows what it is worth,
  and int8 weights with float activations (weight-only quantization).

Timings on a shared machine vary 2-3x with load: compare rows of one run.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

MODULES = ("argparse", "json.decoder", "textwrap", "shlex", "colorsys", "fnmatch")
HEADING = "CTranslate2 int8: where the drift comes from (bench.int8_drift)"
LINES: list[str] = []


def emit(line: str = "") -> None:
    """Print a line of the report and keep it for ``--write``."""
    print(line, flush=True)
    LINES.append(line)


def code_ids(tokenizer: Any, tokens: int) -> list[list[int]]:
    """The first ``tokens`` token ids of the first 3,000 characters of each module in MODULES."""
    texts = [Path(str(importlib.import_module(name).__file__)).read_text(encoding="utf-8")[:3000] for name in MODULES]
    return [tokenizer.encode(text, add_special_tokens=False).ids[:tokens] for text in texts]


def runtimes(source: Path, ct2_folder: Path, tokens: int, threads: int) -> None:
    import ctranslate2  # type: ignore[import-not-found,import-untyped,unused-ignore]
    import tokenizers

    tokenizer = tokenizers.Tokenizer.from_file(str(source / "tokenizer.json"))
    vocabulary = [tokenizer.id_to_token(index) or "" for index in range(tokenizer.get_vocab_size())]
    long = [[vocabulary[i] for i in ids] for ids in code_ids(tokenizer, tokens)]
    short = [text[:33] for text in long] * 2  # 12 pieces of 32 scored tokens
    generators = {}
    for compute in ("float32", "int8", "int16"):
        try:
            generators[compute] = ctranslate2.Generator(str(ct2_folder), device="cpu", compute_type=compute,
                                                        intra_threads=threads, inter_threads=1)
        except ValueError as error:  # int16 needs a backend this CPU build may lack
            emit(f"{compute}: not available here ({error})")

    def score(generator: Any, batch: list[list[str]]) -> list[np.ndarray]:
        return [np.asarray(r.log_probs, dtype=np.float64) for r in generator.score_batch(batch, max_input_length=0)]

    reference = [score(generators["float32"], [text])[0] for text in long]
    speeds: dict[str, dict[str, list[float]]] = {compute: {"long": [], "short": []} for compute in generators}
    for _ in range(3):  # interleaved, so a change of load hits every compute type alike
        for compute, generator in generators.items():
            started = time.perf_counter()
            for text in long:
                score(generator, [text])
            speeds[compute]["long"].append(sum(len(t) - 1 for t in long) / (time.perf_counter() - started))
            started = time.perf_counter()
            score(generator, short)
            speeds[compute]["short"].append(sum(len(t) - 1 for t in short) / (time.perf_counter() - started))
    emit(f"CTranslate2 {ctranslate2.__version__}, {threads} threads, {len(long)} texts, "
          f"{sum(len(t) - 1 for t in long)} scored tokens; load average {os.getloadavg()[0]:.1f}")
    emit(f"| compute type | mean \\|dNLL\\| | p99 | max | 1x{tokens} tok/s | vs float32 | 12x32 tok/s | vs float32 |")
    emit("|---|---|---|---|---|---|---|---|")
    for compute, generator in generators.items():
        drift = np.concatenate([np.abs(a - b) for a, b in zip((score(generator, [t])[0] for t in long), reference)])
        ratios = {shape: statistics.median(s / f for s, f in zip(speeds[compute][shape], speeds["float32"][shape]))
                  for shape in ("long", "short")}
        emit(f"| {compute} | {drift.mean():.3f} | {np.quantile(drift, 0.99):.2f} | {drift.max():.2f} | "
              f"{statistics.median(speeds[compute]['long']):.0f} | {ratios['long']:.2f}x | "
              f"{statistics.median(speeds[compute]['short']):.0f} | {ratios['short']:.2f}x |")


def simulate(source: Path, tokens: int, threads: int) -> None:
    """CTranslate2's int8 arithmetic in torch, on chosen linear layers (the module docstring)."""
    import tokenizers
    import torch

    from smscan.model.gguf_convert import load_gguf_model
    from smscan.model.default_model import DEFAULT_GGUF_NAME

    torch.set_num_threads(threads)
    tokenizer = tokenizers.Tokenizer.from_file(str(source / "tokenizer.json"))
    ids = torch.tensor([row[: tokens] for row in code_ids(tokenizer, tokens)])  # (6, tokens)
    if (source / DEFAULT_GGUF_NAME).is_file() and not any(source.glob("*.safetensors")):
        model = load_gguf_model(source / DEFAULT_GGUF_NAME)
    else:
        from transformers import AutoModelForCausalLM

        loaded: Any = AutoModelForCausalLM.from_pretrained(source, dtype=torch.float32)
        model = loaded.eval()

    def per_row_int8(t: torch.Tensor) -> torch.Tensor:  # symmetric, one scale per row, dequantised
        scale = t.abs().amax(dim=-1, keepdim=True).clamp_min(1e-8) / 127
        return torch.round(t / scale).clamp(-127, 127) * scale

    linears = {name: module for name, module in model.named_modules() if isinstance(module, torch.nn.Linear)}
    weights = {name: module.weight.data.clone() for name, module in linears.items()}

    def configure(chosen: Callable[[str], bool], *, activations: bool) -> None:
        for name, module in linears.items():
            module.weight.data = per_row_int8(weights[name]) if chosen(name) else weights[name].clone()
            if chosen(name) and activations:
                setattr(module, "forward", (lambda m: lambda x: torch.nn.functional.linear(per_row_int8(x), m.weight, m.bias))(module))
            elif "forward" in module.__dict__:
                del module.forward

    def nll() -> np.ndarray:
        with torch.no_grad():
            logits = model(ids).logits[:, :-1].float()  # (6, tokens - 1, vocab)
            return -torch.log_softmax(logits, -1).gather(-1, ids[:, 1:, None])[..., 0].numpy()

    tied = model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr()
    configure(lambda name: False, activations=False)
    reference = nll()
    groups: list[tuple[str, Callable[[str], bool], bool]] = [
        ("every linear layer and the tied output matrix (as CTranslate2 int8)", lambda n: True, True),
        ("the blocks' linear layers, output matrix in float", lambda n: "lm_head" not in n, True),
        ("the blocks' linear layers but MLP down projections, output matrix in float",
         lambda n: "lm_head" not in n and "down_proj" not in n, True),
        ("the output matrix only", lambda n: "lm_head" in n, True),
        ("the MLP down projections only", lambda n: "down_proj" in n, True),
        ("the attention projections only", lambda n: "self_attn" in n, True),
        ("every linear layer, int8 weights only (float activations)", lambda n: True, False),
    ]
    emit()
    emit(f"torch simulation of int8 (per-row int8 weights, per-token dynamic int8 activations), "
          f"{ids.numel()} tokens, output matrix tied to the embedding: {tied}")
    emit("| quantized | mean \\|dNLL\\| | p99 | max |")
    emit("|---|---|---|---|")
    for label, chosen, activations in groups:
        configure(chosen, activations=activations)
        drift = np.abs(nll() - reference)
        emit(f"| {label} | {drift.mean():.3f} | {np.quantile(drift, 0.99):.2f} | {drift.max():.2f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=300, help="tokens of each text (default 300)")
    parser.add_argument("--threads", type=int, default=1, help="CTranslate2 and torch threads (default 1)")
    parser.add_argument("--simulate", action="store_true", help="also the torch simulation (loads torch)")
    parser.add_argument("--write", action="store_true", help="write the section of docs/BENCHMARKS.md")
    args = parser.parse_args()
    from smscan.model.ct2_model import ensure_ct2_model
    from smscan.model.source import resolve_model

    source = resolve_model(None)
    runtimes(source.folder, ensure_ct2_model(source.folder, "fp32"), args.tokens, args.threads)
    if args.simulate:
        simulate(source.folder, args.tokens, args.threads)
    if args.write:
        from bench.common.sections import write_section

        write_section(HEADING, "\n".join(LINES), module="bench.int8_drift")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
