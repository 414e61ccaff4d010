"""What window selection costs on top of scoring: global vs local ranking, consensus 1 and 4.

    python -m bench.selection_cost [--tokens 100000]

Synthetic NLLs (gamma-distributed, fixed seed); best of 7 runs of ``mask_text`` per rule. The
model's scoring of the same tokens takes minutes on a CPU, so this is the whole extra cost of a
rule that reuses the unprompted scores.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from smscan.engine.masking import MaskRule, mask_text
from smscan.records import TokenScores


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=100_000)
    args = parser.parse_args()
    n = args.tokens
    rng = np.random.default_rng(0)
    scores = TokenScores(np.arange(n), np.arange(n), np.arange(n) + 1, rng.gamma(2.0, 2.0, n))
    allowed = np.ones(n, dtype=bool)
    rules = (MaskRule(), MaskRule(ranking="local"), MaskRule(consensus=4), MaskRule(ranking="local", consensus=4))
    for rule in rules:
        times = []
        for _ in range(7):
            started = time.perf_counter()
            mask_text(scores, allowed, rule)
            times.append(time.perf_counter() - started)
        best = min(times)
        print(f"{rule.ranking:6} consensus {rule.consensus}: {1e3 * best:.1f} ms per {n} tokens ({1e6 * best / n:.2f} us a token)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
