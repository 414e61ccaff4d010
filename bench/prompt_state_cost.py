#!/usr/bin/env python3
"""What reusing the prompt's state saves on torch: a prompted scan with the prompt re-fed per piece
and with its state computed once (``smscan/model/prefix_state.py``), on the same texts.

    python -m bench.prompt_state_cost --deadcode DIR/mbpp_calib.jsonl [--programs 60] [--rounds 2] [--threads 2]

Alternates the two variants ``--rounds`` times (machine load moves timings 2-3x) and reports each
round's seconds and the largest score difference between the variants.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from smscan.sources.labels import read_labels
from smscan.config.instructions import resolve_instructions
from smscan.model.load import load_scorer
from smscan.model.prompted import PromptedScorer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deadcode", type=Path, required=True)
    parser.add_argument("--programs", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    base = load_scorer(device=args.device, dtype="fp32", runtime="torch", threads=args.threads)
    texts = [d.text for d in read_labels(args.deadcode)[: args.programs]]
    tokens = sum(len(t) for t in base.tokenize(texts))
    instructions = resolve_instructions("prompted", ["dead-code"])
    variants = {
        "prompt re-fed per piece": PromptedScorer(base, "prompted", instructions, reuse_prompt_state=False),
        "prompt state reused": PromptedScorer(base, "prompted", instructions),
    }
    print(f"{len(texts)} MBPP programs, {tokens} document tokens, prompt {len(variants['prompt state reused'].prefixes[0])} "
          f"tokens, torch fp32 on {base.loaded.device}, batch size {base.settings.batch_size}")
    results: dict[str, list] = {}
    print("| round | variant | seconds |\n|---|---|---|")
    for round_index in range(args.rounds):
        for name, scorer in variants.items():
            started = time.perf_counter()
            results[name] = scorer.score_texts(texts)
            print(f"| {round_index + 1} | {name} | {time.perf_counter() - started:.1f} |", flush=True)
    a, b = results.values()
    diff = max((float(np.nanmax(np.abs(x.nll - y.nll))) for x, y in zip(a, b) if len(x)), default=0.0)
    print(f"largest |difference| of a token score between the variants: {diff:.2e} nats")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
