"""The GPU export's scoring path, run on the CPU: bf16 weights and large padded batches of chunks
(what ``--device cuda --dtype bf16`` runs), against fp32 one chunk at a time (``--deterministic``).
Masks agree within the stated tolerance: a token masked differently lies in a window whose fp32
mean is within ``TOLERANCE`` nats of the threshold (a window flip at the threshold), never elsewhere."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from smscan.engine.masking import MaskRule, mask_text
from smscan.engine.windows import fixed_windows
from smscan.model.load import load_scorer

TOLERANCE = 0.15  # nats: bf16 moves a token's NLL by about 1e-2 (smscan/model/scorer.py), a window's mean by less


def _texts() -> list[str]:
    lines = ["import os", "def main(argv):", "    path = os.path.join(argv[0], 'cfg')", "    return len(path)",
             "key = 'q8Zt3xLw9PvK2mRb'", "# a comment about the loop", "for i in range(10):", "    print(i * 2)"]
    # Lengths from one line to several chunks of 64 tokens, so batches mix short and padded rows.
    return ["\n".join(lines[(n + k) % len(lines)] for k in range(1 + 3 * n)) + "\n" for n in range(12)]


def test_bf16_batched_masks_agree_with_fp32_one_chunk_at_a_time(tiny_model_dir: Path, tmp_path: Path) -> None:
    texts = _texts()
    settings = {"context_tokens": 64, "stride": 48, "cache_dir": tmp_path, "device": "cpu"}
    fp32 = load_scorer(str(tiny_model_dir), dtype="fp32", batch_size=1, **settings)
    bf16 = load_scorer(str(tiny_model_dir), dtype="bf16", batch_size=16, **settings)
    assert bf16.settings.dtype == "bf16" and bf16.settings.batch_size == 16
    exact, low = fp32.score_texts(texts), bf16.score_texts(texts)
    means = np.concatenate([fixed_windows(s.nll, size=4).scores for s in exact])
    threshold = float(np.nanmedian(means))  # half the windows on each side: the hardest place to agree
    rule = MaskRule(window=4, threshold=threshold)
    tokens = differ = 0
    for a, b in zip(exact, low):
        assert np.array_equal(a.char_starts, b.char_starts) and np.array_equal(a.char_ends, b.char_ends)
        allowed = np.ones(len(a), dtype=bool)
        mask_a, mask_b = mask_text(a, allowed, rule).mask, mask_text(b, allowed, rule).mask
        windows = fixed_windows(a.nll, size=4)
        near = np.zeros(len(a), dtype=bool)
        for start, end, score in zip(windows.starts, windows.ends, windows.scores):
            if np.isfinite(score) and abs(score - threshold) <= TOLERANCE:
                near[start:end] = True
        assert not np.any((mask_a != mask_b) & ~near), "a mask moved away from the threshold"
        tokens += len(a)
        differ += int((mask_a != mask_b).sum())
    assert tokens > 500 and differ / tokens <= 0.1
