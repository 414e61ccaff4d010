"""Model stand-ins for tests: a ``FakeScorer`` with chosen NLLs, and a tiny real causal LM.

``FakeScorer`` pins exact numbers for engine and detector tests without any model::

    scorer = FakeScorer({"hunter2": 9.0}, default_nll=1.0)
    scores = scorer.score_texts(["password = hunter2"])[0]
    # tokens "password", " =", " hunter2"; nll [nan, 1.0, 9.0]

``build_tiny_model(folder)`` saves a random-init Llama (fixed seed, tiny sizes) with a byte-level
BPE tokenizer trained on a few strings, as safetensors plus ``tokenizer.json``: a real
``TransformersScorer`` can load it offline in about a second.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np

from smscan.model.scoring_settings import ScoringSettings
from smscan.records import TokenScores

_WORD = re.compile(r"\s*\S+")
_TINY_CORPUS = [
    "def main(argv):\n    return 0\n",
    "import os\nimport sys\n\nAPI_KEY = os.environ['API_KEY']\n",
    "for i in range(10):\n\tprint(i, end='')\r\n",
    "class Config:\n    name: str = 'demo'\n    retries: int = 3\n",
    "héllo wörld, 你好世界 😀 — naïve café\n",
]


class FakeScorer:
    """A ``Scorer`` returning chosen NLLs per token.

    Tokens follow smscan's offset convention (they partition the text): with ``unit="word"`` a
    token is a run of whitespace plus the next non-whitespace run (trailing whitespace joins the
    last token); with ``unit="char"`` every code point is a token. A token's NLL is
    ``nll[token.strip()]`` when the mapping has it (``nll[token]`` for chars), else ``nll(token)``
    when ``nll`` is callable, else ``default_nll``. The first token is NaN like the real scorer's.

    Args:
        nll: token text -> NLL, or a function of the token text.
        default_nll: NLL of tokens the mapping lacks.
        unit: ``word`` or ``char`` tokens.
        fingerprint: what ``scorer.fingerprint`` says.
        settings: what ``scorer.settings`` says.

    Attributes:
        calls: the texts of every ``score_texts`` call, in order (to test caching).
    """

    def __init__(
        self,
        nll: Mapping[str, float] | Callable[[str], float] | None = None,
        *,
        default_nll: float = 1.0,
        unit: Literal["word", "char"] = "word",
        fingerprint: str = "sha256:fa4efa4efa4efa4e",
        settings: ScoringSettings | None = None,
    ) -> None:
        self._nll = nll if nll is not None else {}
        self._default = default_nll
        self._unit = unit
        self.fingerprint = fingerprint
        self.settings = settings if settings is not None else ScoringSettings()
        self.calls: list[list[str]] = []

    def describe(self) -> dict[str, Any]:
        """What a report records about the model."""
        return {"name": "fake", "fingerprint": self.fingerprint, "device": "cpu", "dtype": "fp32"}

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]:
        """Score each text (see the class docstring)."""
        self.calls.append(list(texts))
        return [self._score(text) for text in texts]

    def _tokens(self, text: str) -> list[tuple[int, int]]:
        if self._unit == "char":
            return [(index, index + 1) for index in range(len(text))]
        spans = [match.span() for match in _WORD.finditer(text)]
        if not spans and text:
            return [(0, len(text))]  # whitespace only: one token
        if spans and spans[-1][1] < len(text):
            spans[-1] = (spans[-1][0], len(text))
        return spans

    def _value(self, token: str) -> float:
        key = token if self._unit == "char" else token.strip()
        if callable(self._nll):
            return float(self._nll(key))
        return float(self._nll.get(key, self._default))

    def _score(self, text: str) -> TokenScores:
        spans = self._tokens(text)
        tokens = [text[start:end] for start, end in spans]
        nll = np.array([self._value(token) for token in tokens], dtype=np.float64)
        if len(nll):
            nll[0] = np.nan
        return TokenScores(
            token_ids=np.array([zlib.crc32(t.encode("utf-8", "surrogatepass")) for t in tokens], dtype=np.int64),
            char_starts=np.array([start for start, _ in spans], dtype=np.int64),
            char_ends=np.array([end for _, end in spans], dtype=np.int64),
            nll=nll,
        )


def build_tiny_model(folder: Path, *, seed: int = 0, vocab_size: int = 320, bos: bool = False) -> Path:
    """Save a tiny random-init Llama causal LM and a byte-level BPE tokenizer into ``folder``.

    Args:
        folder: where to save (created).
        seed: torch seed for the weights.
        vocab_size: tokenizer vocabulary size (256 bytes plus merges and 3 special tokens).
        bos: make the tokenizer prepend ``<s>`` by default, like Llama-2's.

    Returns:
        ``folder``, holding ``config.json``, ``model.safetensors`` and tokenizer files.
    """
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=["<|endoftext|>", "<pad>", "<s>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(_TINY_CORPUS * 4, trainer=trainer)
    if bos:
        tokenizer.post_processor = processors.Sequence([
            processors.ByteLevel(trim_offsets=False),
            processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", 2)]),
        ])
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        eos_token="<|endoftext|>",
        pad_token="<pad>",
        bos_token="<s>",
        model_max_length=128,  # like gpt2's 1024: transformers warns about longer texts
    )
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=tokenizer.get_vocab_size(),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=1024,
        tie_word_embeddings=False,
        eos_token_id=0,
        pad_token_id=1,
    )
    model = LlamaForCausalLM(config).eval()
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder, safe_serialization=True)
    fast.save_pretrained(folder)
    return folder
