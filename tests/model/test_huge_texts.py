"""A huge text is scored in bounded windows: no forward pass ever holds more than the window
(``context_tokens``) per row and the token budget per pass, whatever the text's length, and a
progress listener hears of every pass, so the display keeps moving inside one huge file.

The chunk planning and batching are ``ChunkedScorer``'s, shared by the torch and CTranslate2
scorers: a recording runtime (tokens of 8 characters, NLL 1.0) drives them over a 10 MB
single-line minified JavaScript file and a 1 MB line of base64; the tiny real model shows the
same bound on the tensors torch is given.
"""

from __future__ import annotations

import base64
import random
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from smscan.model.context import Chunk
from smscan.model.passes import ForwardPass, listening
from smscan.model.scorer import ChunkedScorer, ScoringSettings, Tokenised, TransformersScorer

CHARS_PER_TOKEN = 8
# load_scorer's CPU settings: 512-token windows, one per pass, short ones packed to 512 tokens.
CPU_SETTINGS = ScoringSettings(context_tokens=512, stride=384, batch_size=1, pack_tokens=512)


class RecordingRuntime(ChunkedScorer):
    """``ChunkedScorer`` over a stand-in runtime that records the shape of every forward pass."""

    fingerprint = "sha256:recording"
    runtime = "recording"

    def __init__(self, settings: ScoringSettings) -> None:
        self.settings = settings
        self.passes: list[tuple[int, int]] = []  # (rows, padded width) per forward pass

    def _tokenise(self, texts: Sequence[str]) -> list[Tokenised]:
        out = []
        for text in texts:
            starts = np.arange(0, len(text), CHARS_PER_TOKEN, dtype=np.int64)
            ends = np.minimum(starts + CHARS_PER_TOKEN, len(text))
            ids = np.arange(len(starts), dtype=np.int64) % 1000
            out.append(Tokenised(ids, starts, ends, ids, 0))
        return out

    def _score_batch(self, tokenised: list[Tokenised], batch: list[tuple[int, Chunk]]) -> None:
        self.passes.append((len(batch), max(chunk.end - chunk.start for _, chunk in batch)))
        for index, chunk in batch:
            scored = tokenised[index].nll[chunk.score_from : chunk.end]
            assert np.isnan(scored).all(), "a token scored twice"
            scored[:] = 1.0


def huge_texts() -> list[str]:
    rng = random.Random(7)
    minified = "".join(f"var a{i}=function(b){{return b*{i}}};" for i in range(330_000))[: 10 << 20]
    encoded = base64.b64encode(rng.randbytes(750_000)).decode()  # a 1 MB line
    return [minified, f'blob = "{encoded}"\n', "x = 1\n", "y = 2\n"]


def test_huge_texts_are_fed_in_bounded_windows_and_report_every_pass() -> None:
    texts = huge_texts()
    assert len(texts[0]) == 10 << 20 and "\n" not in texts[0] and len(texts[1]) > 1_000_000
    scorer = RecordingRuntime(CPU_SETTINGS)
    notices: list[ForwardPass] = []
    with listening(notices.append):
        scores = scorer.score_texts(texts)
    budget = max(CPU_SETTINGS.batch_size * CPU_SETTINGS.context_tokens, CPU_SETTINGS.pack_tokens)
    assert all(width <= CPU_SETTINGS.context_tokens and rows * width <= budget for rows, width in scorer.passes)
    n_tokens = [-(-len(text) // CHARS_PER_TOKEN) for text in texts]
    # Every token but each text's first is scored, exactly once (the runtime asserts "once").
    assert [int(np.isnan(s.nll).sum()) for s in scores] == [1, 1, 1, 1]
    assert [len(s.nll) for s in scores] == n_tokens
    # The huge file alone takes thousands of passes, each one heard by the progress listener.
    assert len(scorer.passes) > (n_tokens[0] - CPU_SETTINGS.context_tokens) // CPU_SETTINGS.stride
    assert len(notices) == len(scorer.passes)
    done = [notice.done for notice in notices]
    assert done == sorted(done) and done[-1] == notices[-1].total and len(set(done)) == len(done)
    assert max(notice.tokens for notice in notices) <= budget


class ShapeRecorder:
    """Wraps a torch model and records the ``input_ids`` shape of every call."""

    def __init__(self, model: Any) -> None:
        self._model = model
        self.shapes: list[tuple[int, int]] = []

    def __call__(self, **kwargs: Any) -> Any:
        self.shapes.append(tuple(kwargs["input_ids"].shape))
        return self._model(**kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)


def test_the_real_torch_scorer_never_gets_more_than_a_window(tiny_scorer: TransformersScorer) -> None:
    recorder = ShapeRecorder(tiny_scorer.loaded.model)
    scorer = TransformersScorer(replace(tiny_scorer.loaded, model=recorder), tiny_scorer.settings)
    line = base64.b64encode(random.Random(3).randbytes(6_000)).decode()
    [scores] = scorer.score_texts([f"k = '{line}'\n"])
    settings = tiny_scorer.settings
    assert len(scores.nll) > 10 * settings.context_tokens  # many windows long
    assert sum(rows for rows, _ in recorder.shapes) >= len(scores.nll) // settings.stride  # chunks
    assert all(rows <= settings.batch_size and width <= settings.context_tokens for rows, width in recorder.shapes)
    assert int(np.isnan(scores.nll).sum()) == 1
