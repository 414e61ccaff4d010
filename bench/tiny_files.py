"""Many tiny files: forward passes packed (``pack_tokens``) vs one chunk per pass, same run.

Run from the repository root with the default model pulled::

    python3 bench/tiny_files.py                    # 96 one-line files, 2 rounds
    python3 bench/tiny_files.py --files 300 --rounds 1

Input: ``--files`` one-line Python files, each assigning a random 20-character value (what
a hostile probe's 3,000 tiny files looked like), scored through the default CPU scorer
(CTranslate2 fp32 unless ``--runtime``) 16 files per ``score_texts`` call, as a scan's stage
hands them over. The two settings alternate within each round, so machine load hits both
alike; files/s and forward passes are printed per setting, with the largest |dNLL| between
them (packing changes which chunks share a pass, not the scores beyond float noise).
"""

from __future__ import annotations

import argparse
import random
import string
import time

import numpy as np

from smscan.model.load import load_scorer
from smscan.model.passes import listening

BATCH_ITEMS = 16  # smscan.judge.stages.BATCH_ITEMS


def tiny_files(count: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    alphabet = string.ascii_letters + string.digits
    return [f'api_key_{i} = "{"".join(rng.choice(alphabet) for _ in range(20))}"\n' for i in range(count)]


def run(scorer, texts: list[str]) -> tuple[float, int, list]:
    passes = []
    started = time.perf_counter()
    scores = []
    with listening(passes.append):
        for first in range(0, len(texts), BATCH_ITEMS):
            scores.extend(scorer.score_texts(texts[first : first + BATCH_ITEMS]))
    return time.perf_counter() - started, len(passes), scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=96)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--runtime", default="auto")
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args()
    texts = tiny_files(args.files)
    scorer = load_scorer(None, device="cpu", runtime=args.runtime, threads=args.threads)
    variants = {
        "one chunk per pass": scorer.with_settings(pack_tokens=0),
        f"packed ({scorer.settings.pack_tokens} tokens a pass)": scorer,
    }
    print(f"{args.files} one-line files, {scorer.describe()['runtime']} {scorer.settings.dtype}, "
          f"batch_size {scorer.settings.batch_size}")
    scorer.score_texts(texts[:2])  # warm up
    seconds = {name: 0.0 for name in variants}
    results = {}
    for _ in range(args.rounds):
        for name, variant in variants.items():
            elapsed, passes, scores = run(variant, texts)
            seconds[name] += elapsed
            results[name] = (passes, scores)
    for name in variants:
        passes, _ = results[name]
        print(f"  {name:<32} {args.files * args.rounds / seconds[name]:7.1f} files/s, {passes} forward passes")
    (_, alone), (_, packed) = results.values()
    diff = max(float(np.nanmax(np.abs(a.nll - b.nll))) if len(a) > 1 else 0.0 for a, b in zip(alone, packed))
    print(f"  max |dNLL| between them: {diff:.2e} nats")


if __name__ == "__main__":
    main()
