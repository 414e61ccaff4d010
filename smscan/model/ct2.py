"""Per-token NLL from CTranslate2: the default model's scorer without torch or transformers.

``CT2Scorer`` makes exactly the tokens, offsets and chunks of ``TransformersScorer`` (the same
``tokenizer.json`` through the ``tokenizers`` library, ``offsets.py``, ``context.py``); only the
NLLs come from CTranslate2's ``Generator.score_batch``, which returns ``log p(x_j | x_<j)`` for
every token of a chunk but its first. A chunk keeps the positions it is responsible for
(``score_from .. end``), as the torch path does.

- ``fp32``: float32 weights and activations, the same function as torch fp32 (measured max
  |dNLL| about 1e-4 nats on real code; ``tests/model/test_ct2.py``), so it keeps torch fp32's
  thresholds.
- ``int8``: int8 weights, float32 activations; several times faster on a small batch but the
  scores shift (docs/BENCHMARKS.md), so it needs thresholds calibrated for it.

The fingerprint is the weights' fingerprint plus ``+ct2-fp32`` or ``+ct2-int8``, and the settings
key names the runtime, so caches and thresholds of one runtime never serve another
(``calibration/thresholds.py`` lets ``+ct2-fp32`` use torch fp32's entries).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from smscan.errors import ModelError
from smscan.model.context import Chunk
from smscan.model.chunked import ChunkedScorer
from smscan.model.scoring_settings import ScoringSettings
from smscan.model.tokenised import Tokenised, tokenise_with
from smscan.model.store import corrupted_cache
from smscan.model.threads import choose_threads

if TYPE_CHECKING:
    from smscan.model.source import ModelSource

def ct2_fingerprint(weights: str, dtype: str) -> str:
    """The scorer fingerprint of ``weights`` (a short fingerprint) run by CTranslate2 in ``dtype``.

    Example:
        >>> ct2_fingerprint("sha256:72506d4596ab4ed7", "int8")
        'sha256:72506d4596ab4ed7+ct2-int8'
    """
    return f"{weights}+ct2-{dtype}"


@dataclass(frozen=True, slots=True)
class CT2Model:
    """A CTranslate2 generator and the tokenizer of the model it was made from."""

    source: ModelSource
    folder: Path
    generator: Any  # ctranslate2.Generator
    tokenizer: Any  # tokenizers.Tokenizer
    vocabulary: tuple[str, ...]  # token id -> token string, as score_batch takes them
    bos_id: int | None
    max_positions: int | None  # config.json max_position_embeddings of the source
    dtype: str
    threads: int
    load_seconds: float
    device: str = "cpu"


def load_ct2_model(source: ModelSource, folder: Path, *, dtype: str, threads: int = 0) -> CT2Model:
    """Load a CTranslate2 folder and the source's ``tokenizer.json`` (no torch, no transformers).

    Args:
        source: the default model (its folder holds ``tokenizer.json``).
        folder: the CTranslate2 copy (``ct2_model.py``).
        dtype: ``fp32`` or ``int8``.
        threads: CTranslate2 intra-op threads; 0 chooses as ``threads.py`` says (CTranslate2's
            own default is 4 whatever the cores, which oversubscribes a small machine).

    Returns:
        The loaded model.

    Raises:
        ModelError: the folder or tokenizer is damaged, or the two vocabularies differ.
    """
    started = time.perf_counter()
    import ctranslate2
    import tokenizers

    try:
        tokenizer = tokenizers.Tokenizer.from_file(str(source.folder / "tokenizer.json"))
    except Exception as exc:  # noqa: BLE001 - a tokenizers failure is one ModelError
        raise corrupted_cache(source.folder, f"tokenizer.json unreadable: {type(exc).__name__}") from exc
    vocabulary = tuple(tokenizer.id_to_token(index) or "" for index in range(tokenizer.get_vocab_size()))
    try:
        stored = json.loads((folder / "vocabulary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise corrupted_cache(folder, "vocabulary.json unreadable") from exc
    if tuple(stored) != vocabulary:
        raise corrupted_cache(folder, "its vocabulary differs from the model's tokenizer.json")
    compute_type = {"fp32": "float32", "int8": "int8"}[dtype]
    try:
        generator = ctranslate2.Generator(
            str(folder), device="cpu", compute_type=compute_type, inter_threads=1,
            intra_threads=threads or choose_threads(0),
        )
    except Exception as exc:  # noqa: BLE001 - every CTranslate2 load failure is one ModelError
        raise corrupted_cache(folder, f"ctranslate2 cannot load it: {type(exc).__name__}: {str(exc)[:120]}") from exc
    probe = tokenizer.encode("x", add_special_tokens=True).ids
    bare = tokenizer.encode("x", add_special_tokens=False).ids
    # As transformers' default: a BOS is fed only when the tokenizer prepends one by default.
    bos_id = int(probe[0]) if len(probe) == len(bare) + 1 and probe[1:] == bare else None
    try:
        limit = json.loads((source.folder / "config.json").read_text(encoding="utf-8")).get("max_position_embeddings")
    except (OSError, ValueError, AttributeError) as exc:
        raise corrupted_cache(source.folder, "config.json unreadable") from exc
    max_positions = limit if isinstance(limit, int) else None
    elapsed = time.perf_counter() - started
    return CT2Model(source, folder, generator, tokenizer, vocabulary, bos_id, max_positions, dtype, threads, elapsed)


class CT2Scorer(ChunkedScorer):
    """Scores texts with a CTranslate2 copy of the default model (see the module docstring).

    Args:
        model: from ``load_ct2_model``.
        settings: scoring settings with ``runtime="ctranslate2"`` and the model's dtype
            (default: those with the default window).

    Raises:
        ValueError: ``settings`` name another runtime or dtype.
        ModelError: ``settings.context_tokens`` exceeds the model's position limit.

    Example:
        >>> scorer = load_scorer(runtime="ctranslate2")  # doctest: +SKIP
        >>> scorer.score_texts(["x = 1\\n"])[0].nll  # doctest: +SKIP
        array([nan, 3.1, 1.2, 0.8])
    """

    def __init__(self, model: CT2Model, settings: ScoringSettings | None = None) -> None:
        if settings is None:
            settings = ScoringSettings(runtime="ctranslate2", dtype=model.dtype)  # type: ignore[arg-type]  # a copy's dtype is one of ScoringSettings' (ct2_model.py)
        if settings.runtime != "ctranslate2" or settings.dtype != model.dtype:
            raise ValueError(
                f"settings {settings.runtime}/{settings.dtype} != loaded model ctranslate2/{model.dtype}"
            )
        limit = model.max_positions
        if limit is not None and settings.context_tokens > limit:
            raise ModelError(
                f"context_tokens {settings.context_tokens} exceeds the {limit} positions of model "
                f"{model.source.name!r}"
            )
        self.loaded = model
        self.settings = settings
        self.fingerprint = ct2_fingerprint(model.source.fingerprint.short, model.dtype)
        self.runtime = "ctranslate2"

    def with_settings(self, **changes: Any) -> CT2Scorer:
        """A scorer sharing this model with some settings changed (not ``dtype`` or ``runtime``)."""
        return CT2Scorer(self.loaded, replace(self.settings, **changes))

    def _tokenise(self, texts: Sequence[str]) -> list[Tokenised]:
        return tokenise_with(self.loaded.tokenizer, texts, self.loaded.bos_id)

    def _score_batch(self, tokenised: list[Tokenised], batch: list[tuple[int, Chunk]]) -> None:
        vocabulary = self.loaded.vocabulary
        tokens = [
            [vocabulary[token] for token in tokenised[index].feed_ids[chunk.start : chunk.end]]
            for index, chunk in batch
        ]
        results = self.loaded.generator.score_batch(tokens, max_input_length=0)
        for (index, chunk), result in zip(batch, results):
            # log_probs[k] is log p(token start+k+1 | tokens start..start+k): (end - start - 1,)
            log_probs = np.asarray(result.log_probs, dtype=np.float64)
            if len(log_probs) != chunk.end - chunk.start - 1:
                raise ModelError(
                    f"ctranslate2 scored {len(log_probs)} of {chunk.end - chunk.start - 1} tokens of a chunk"
                )
            nll = -log_probs[chunk.score_from - chunk.start - 1 :]  # (end - score_from,)
            shift = tokenised[index].shift
            tokenised[index].nll[chunk.score_from - shift : chunk.end - shift] = nll
