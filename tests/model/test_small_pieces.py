"""Many small pieces scored in one call share a few forward passes and keep the scores they get
one by one (the real default model on CTranslate2; slow, marked ``model``)."""

from __future__ import annotations

import math
import random
import string
from pathlib import Path

import numpy as np
import pytest

from smscan.model.ct2 import CT2Scorer
from smscan.model.load import load_scorer
from smscan.model.passes import ForwardPass, listening

pytestmark = pytest.mark.model


def snippets(count: int, *, seed: int = 3) -> list[str]:
    """Short config-like pieces, some with a random value, of varied lengths (a few to ~60 tokens)."""
    rng = random.Random(seed)
    words = ["host", "port", "user", "region", "cache", "timeout", "bucket", "queue"]
    out = []
    for _ in range(count):
        lines = []
        for _ in range(rng.randint(1, 4)):
            value = ("".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(8, 32)))
                     if rng.random() < 0.3 else rng.choice(words))
            lines.append(f"{rng.choice(words)}_{rng.choice(words)} = \"{value}\"")
        out.append("\n".join(lines) + "\n")
    return out


def test_small_pieces_share_passes_and_keep_their_one_by_one_scores(default_model_dir: Path) -> None:
    scorer = load_scorer(device="cpu", runtime="ctranslate2")
    assert isinstance(scorer, CT2Scorer) and scorer.settings.pack_tokens > 0
    texts = snippets(48)
    passes: list[ForwardPass] = []
    with listening(passes.append):
        together = scorer.score_texts(texts)
    alone = [scorer.score_texts([text])[0] for text in texts]

    fed = sum(forward.tokens for forward in passes)
    assert fed == sum(len(scores) for scores in together)
    # Packed up to the token budget: about as few passes as the tokens need, not one per piece.
    assert len(passes) <= math.ceil(fed / scorer.settings.pack_tokens) + 2 < len(texts)
    for got, want in zip(together, alone):
        assert np.array_equal(got.token_ids, want.token_ids)
        assert np.array_equal(np.isnan(got.nll), np.isnan(want.nll))
        finite = ~np.isnan(want.nll)
        # Padding in a shared pass changes the float arithmetic, never the function.
        assert np.max(np.abs(got.nll[finite] - want.nll[finite]), initial=0.0) < 1e-3
