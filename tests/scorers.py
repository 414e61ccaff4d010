"""A deterministic stand-in for the reference model, for CLI and source tests.

``RandomWordScorer`` tokenizes with the regex ``\\w+|\\s+|[^\\w\\s]`` (real code-point offsets) and
gives every token NLL 1.0, except a word of 16 or more characters that mixes letters and digits
(what a random API key looks like), which gets 12.0; the first token of a text has no score (NaN).
With the default 4-token windows, a window holding such a word has mean NLL 3.75 and every
other window 1.0, so tests scan raw surprise at threshold 3 (:data:`TEST_CONFIG`): calibrated
detector thresholds are made for the real model, not for this one.
"""

from __future__ import annotations

import importlib
import re
import shlex
import sys
import types
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from smscan.records import TokenScores

# The checkout whose CLI subprocess wrappers run.
_ROOT = Path(__file__).resolve().parents[1]
TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
RANDOM_NLL = 12.0
PLAIN_NLL = 1.0
# Raw surprise findings: the detectors' calibrated thresholds belong to the real default model.
THRESHOLD_ARGS = ["--kinds", "surprise", "--threshold", "3"]
TEST_CONFIG = 'threshold = 3.0\nkinds = ["surprise"]\n'
"""The same as a config file, for scans that cannot take flags (hooks) or read a root config."""


def looks_random(token: str) -> bool:
    """A word of 16+ characters with both letters and digits."""
    return (
        len(token) >= 16
        and re.fullmatch(r"\w+", token) is not None
        and any(c.isdigit() for c in token)
        and any(c.isalpha() for c in token)
    )


@dataclass(frozen=True)
class FakeScoringSettings:
    """Shaped like the real scorer's settings, for code that records or keys on them."""

    context_tokens: int = 512
    stride: int = 384
    dtype: str = "fp32"
    batch_size: int = 4

    def key(self) -> str:
        return f"ctx{self.context_tokens}-stride{self.stride}-{self.dtype}"


class RandomWordScorer:
    """Scores texts without a model; records every text it was asked to score."""

    fingerprint = "sha256:random-word-scorer"
    settings = FakeScoringSettings()

    def __init__(self) -> None:
        self.texts: list[str] = []

    def describe(self) -> dict[str, Any]:
        return {"name": "random-word-scorer", "fingerprint": self.fingerprint, "device": "cpu"}

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]:
        self.texts.extend(texts)
        return [self._score(text) for text in texts]

    def tokenize(self, texts: Sequence[str]) -> list[TokenScores]:
        """Tokens and offsets as ``score_texts`` makes them, without scoring (not recorded)."""
        return [_tokens(text) for text in texts]

    @staticmethod
    def _score(text: str) -> TokenScores:
        tokens = _tokens(text)
        words = [text[a:b] for a, b in zip(tokens.char_starts, tokens.char_ends)]
        nll = np.array([RANDOM_NLL if looks_random(word) else PLAIN_NLL for word in words], dtype=np.float64)
        if len(nll):
            nll[0] = np.nan
        return TokenScores(tokens.token_ids, tokens.char_starts, tokens.char_ends, nll)


def _tokens(text: str) -> TokenScores:
    # Token id: crc32 of the token's UTF-8 bytes; every nll NaN.
    matches = list(TOKEN.finditer(text))
    return TokenScores(
        token_ids=np.array([zlib.crc32(m.group().encode("utf-8", "surrogatepass")) for m in matches], dtype=np.int64),
        char_starts=np.array([m.start() for m in matches], dtype=np.int64),
        char_ends=np.array([m.end() for m in matches], dtype=np.int64),
        nll=np.full(len(matches), np.nan),
    )


def make_repeats_predictable(scorer: RandomWordScorer, monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """A random word scores high only where ``scorer`` first sees it; later copies score 1.0, as
    repeats do for a real model, so only duplicate propagation masks them. Returns the words seen
    (clear it to start afresh)."""
    seen: set[str] = set()
    original = scorer._score

    def first_time_only(text: str) -> TokenScores:
        scores = original(text)
        for i, (a, b) in enumerate(zip(scores.char_starts, scores.char_ends)):
            if scores.nll[i] > PLAIN_NLL and text[a:b] in seen:
                scores.nll[i] = PLAIN_NLL
            seen.add(text[a:b])
        return scores

    monkeypatch.setattr(scorer, "_score", first_time_only)
    return seen


def score_each_planned_group(monkeypatch: pytest.MonkeyPatch) -> None:
    """One ``score_texts`` call per planned group of ``stages.BATCH_ITEMS`` items, as before short
    texts were pooled up to ``stages.SCORE_CHARS``: for tests that stop a run at its n-th call."""
    from smscan.judge import stages

    monkeypatch.setattr(stages, "SCORE_CHARS", 0)


def interrupt_scoring(scorer: RandomWordScorer, monkeypatch: pytest.MonkeyPatch, *, on_call: int = 3) -> None:
    """Make the ``on_call``-th ``score_texts`` call raise KeyboardInterrupt, as Ctrl-C mid-run does
    (one call per planned group of items: ``score_each_planned_group``)."""
    score_each_planned_group(monkeypatch)
    calls = {"n": 0}
    original = scorer.score_texts

    def interrupted(texts: Sequence[str]) -> list[TokenScores]:
        calls["n"] += 1
        if calls["n"] == on_call:
            raise KeyboardInterrupt
        return original(texts)

    monkeypatch.setattr(scorer, "score_texts", interrupted)


def install_fake_scorer() -> RandomWordScorer:
    """Make ``load_scorer`` return a RandomWordScorer in this process (for subprocess wrappers)."""
    scorer = RandomWordScorer()
    try:
        module = importlib.import_module("smscan.model.load")
    except ImportError:
        module = types.ModuleType("smscan.model.load")
        sys.modules["smscan.model.load"] = module
    setattr(module, "load_scorer", lambda *args, **kwargs: scorer)
    return scorer


@pytest.fixture
def fake_scorer(monkeypatch: pytest.MonkeyPatch) -> Iterator[RandomWordScorer]:
    """Make ``smscan.model.load.load_scorer`` (which ``run_scan`` imports) return a RandomWordScorer.

    Kept for tests not yet moved: a CLI test takes the ``cli`` fixture (tests/cli_runner.py),
    which injects the model through ``Services`` instead of patching the loader."""
    scorer = RandomWordScorer()
    try:
        module = importlib.import_module("smscan.model.load")
    except ImportError:  # the real loader is not there yet: stand one in
        module = types.ModuleType("smscan.model.load")
        monkeypatch.setitem(sys.modules, "smscan.model.load", module)
    monkeypatch.setattr(module, "load_scorer", lambda *args, **kwargs: scorer, raising=False)
    yield scorer


def write_smscan_wrapper(bin_dir: Path, *, fake: bool) -> Path:
    """An ``smscan`` script in ``bin_dir`` that runs this checkout's CLI (with the fake scorer
    installed when ``fake``), for tests whose smscan runs in a subprocess (hooks, CI gate)."""
    setup = "from tests.scorers import install_fake_scorer; install_fake_scorer(); " if fake else ""
    code = (
        f"import sys; sys.path.insert(0, {str(_ROOT)!r}); {setup}"
        "from smscan.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    script = bin_dir / "smscan"
    script.write_text(f"#!/bin/sh\nexec {sys.executable} -c {shlex.quote(code)} \"$@\"\n")
    script.chmod(0o755)
    return script
