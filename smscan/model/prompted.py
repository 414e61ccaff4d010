"""Prompted and contrast scoring: the document's tokens scored after an instruction.

``PromptedScorer`` wraps a runtime's scorer (``TransformersScorer`` or ``CT2Scorer``):

- The document is tokenised exactly as unprompted (same ids, same offsets): the instruction is a
  prefix of *token ids* (``prompt_prefix``), never of text, so no token can merge across it.
- The prefix is the model's chat template laid out up to a user turn holding the document: the
  instruction in a system turn, or at the head of the user turn when the template refuses a
  system role; plain ``instruction + "\\n\\n"`` for a model without a template. A BOS is fed first
  when the runtime's scorer feeds one and the template did not write it.
- Every piece fed to the model is ``prefix + document tokens`` (on torch the prefix's attention
  state is computed once and reused by every batch, ``prefix_state.py``): a long document is cut as the
  unprompted scorer cuts it, with the same ``context_tokens - stride`` tokens of left context,
  so each piece holds ``context_tokens - len(prefix)`` document tokens. Every document token is
  scored, the first one too (its context is the prompt).
- ``prompted`` gives each token's NLL under the one instruction; ``contrast`` gives
  ``nll(compliant) - nll(violating) = log p(x|violating) - log p(x|compliant)``, so a higher
  score is more target-like and windows and thresholds work on it unchanged.

The fingerprint is the wrapped scorer's plus ``+prompted-<hash>`` or ``+contrast-<hash>`` (hash
of the rule and the prefix token ids), so the score cache, a warm worker and saved thresholds of
one rule or instruction never serve another (as ``+ct2-int8`` does for a runtime).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from smscan.errors import ModelError
from smscan.model.context import Chunk
from smscan.model.tokenised import Tokenised
from smscan.records import TokenScores

# Stands for the document while a chat template is rendered; never tokenised.
_DOCUMENT_MARK = "\x00smscan-document\x00"


@dataclass(frozen=True, slots=True)
class Piece:
    """Document tokens ``[start, end)`` fed after the prompt; ``[score_from, end)`` are scored."""

    start: int
    end: int
    score_from: int


def plan_pieces(n_tokens: int, *, budget: int, overlap: int) -> list[Piece]:
    """Cut a document of ``n_tokens`` into pieces of at most ``budget`` tokens after the prompt.

    Every token is scored once; each later piece re-feeds ``overlap`` tokens of left context.

    Args:
        n_tokens: the document's token count.
        budget: document tokens per piece (``context_tokens - len(prefix)``).
        overlap: left-context tokens re-fed (``context_tokens - stride``).

    Returns:
        The pieces in order; none for an empty document.

    Raises:
        ModelError: ``budget <= overlap`` (a prompt too long for the window).

    Example:
        >>> plan_pieces(7, budget=4, overlap=2)
        [Piece(start=0, end=4, score_from=0), Piece(start=2, end=6, score_from=4), Piece(start=4, end=7, score_from=6)]
    """
    if budget <= overlap:
        raise ModelError(
            f"the instruction prompt leaves {budget} document tokens per window, not more than the "
            f"{overlap} tokens of left context; use a shorter instruction or a larger stride"
        )
    pieces: list[Piece] = []
    scored = 0
    while scored < n_tokens:
        start = max(0, scored - overlap)
        end = min(start + budget, n_tokens)
        pieces.append(Piece(start, end, scored))
        scored = end
    return pieces


def read_chat_template(folder: Path) -> str | None:
    """The model folder's chat template (``chat_template.jinja``, else ``tokenizer_config.json``)."""
    jinja = folder / "chat_template.jinja"
    try:
        if jinja.is_file():
            return jinja.read_text(encoding="utf-8")
        config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    template = config.get("chat_template") if isinstance(config, dict) else None
    if isinstance(template, list):  # named templates: the default one
        named = {item.get("name"): item.get("template") for item in template if isinstance(item, dict)}
        template = named.get("default")
    return template if isinstance(template, str) and template else None


def prompt_text(instruction: str, template: str | None) -> str:
    """The text in front of the document: the chat template up to the document, else plain text.

    Args:
        instruction: the instruction.
        template: a Jinja chat template, or None.

    Returns:
        The prefix text (it may hold special tokens such as ``<|im_start|>``).

    Example:
        >>> prompt_text("Keep code.", None)
        'Keep code.\\n\\n'
    """
    if template is not None:
        for messages in (
            [{"role": "system", "content": instruction}, {"role": "user", "content": _DOCUMENT_MARK}],
            [{"role": "user", "content": f"{instruction}\n\n{_DOCUMENT_MARK}"}],
        ):
            rendered = _render(template, messages)
            if rendered is not None and rendered.count(_DOCUMENT_MARK) == 1:
                return rendered.split(_DOCUMENT_MARK, 1)[0]
    return f"{instruction}\n\n"


def _render(template: str, messages: list[dict[str, str]]) -> str | None:
    # As transformers renders chat templates: a sandbox, trimmed blocks; a template that raises
    # (Gemma's "system role not supported") gets the next layout.
    from jinja2 import TemplateError
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message: str) -> None:
        raise TemplateError(message)

    environment = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    environment.globals["raise_exception"] = raise_exception
    try:
        return environment.from_string(template).render(
            messages=messages, add_generation_prompt=False, bos_token="", eos_token=""
        )
    except Exception:  # noqa: BLE001 - any template failure means: try the next layout
        return None


class PromptedScorer:
    """Scores documents after an instruction prompt (module docstring).

    Args:
        scorer: a runtime's scorer (``ChunkedScorer``: ``_tokenise``, ``_score_batch``,
            ``settings``, ``fingerprint``, ``loaded.source.folder``).
        rule: ``prompted`` (one instruction) or ``contrast`` (violating, then compliant).
        instructions: the instruction texts, in pass order.
        reuse_prompt_state: on torch, compute the prompt once per instruction and scoring call
            and reuse its attention state in every batch of that call (``prefix_state.py``); False re-feeds it with every piece.

    Raises:
        ValueError: an unknown rule or the wrong number of instructions.
        ModelError: a prompt too long for the scoring window.

    Example:
        >>> scorer = PromptedScorer(load_scorer(), "contrast", (violating, compliant))  # doctest: +SKIP
        >>> scorer.score_texts(["key = 'A1b2C3d4'\\n"])[0].nll  # doctest: +SKIP
    """

    def __init__(self, scorer: Any, rule: str, instructions: Sequence[str], *, reuse_prompt_state: bool = True) -> None:
        wanted = {"prompted": 1, "contrast": 2}.get(rule)
        if wanted is None or len(instructions) != wanted:
            raise ValueError(f"rule {rule!r} takes {wanted} instruction(s), got {len(instructions)}")
        self.inner = scorer
        self.rule = rule
        self.instructions = tuple(instructions)
        self.reuse_prompt_state = reuse_prompt_state
        self.prefixes = [self._prefix_ids(text) for text in self.instructions]
        # Checked now, not on the first long document.
        settings = scorer.settings
        for prefix in self.prefixes:
            plan_pieces(0, budget=settings.context_tokens - len(prefix), overlap=settings.context_tokens - settings.stride)
        digest = hashlib.sha256(
            json.dumps([rule, [prefix.tolist() for prefix in self.prefixes]]).encode("utf-8")
        ).hexdigest()[:12]
        self.fingerprint = f"{scorer.fingerprint}+{rule}-{digest}"

    @property
    def settings(self) -> Any:
        return self.inner.settings

    def __getattr__(self, name: str) -> Any:
        # loaded, runtime, ... are the wrapped scorer's.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.inner, name)

    def describe(self) -> dict[str, object]:
        """The wrapped scorer's description, with this fingerprint, the rule and the prompt sizes."""
        return {
            **self.inner.describe(), "fingerprint": self.fingerprint, "scoring_rule": self.rule,
            "prompt_tokens": [len(prefix) for prefix in self.prefixes],
        }

    def with_settings(self, **changes: Any) -> PromptedScorer:
        """The same rule and instructions over the wrapped scorer with some settings changed."""
        return PromptedScorer(
            self.inner.with_settings(**changes), self.rule, self.instructions, reuse_prompt_state=self.reuse_prompt_state
        )

    def tokenize(self, texts: Sequence[str]) -> list[TokenScores]:
        """Document tokens and offsets, exactly the unprompted ones; every ``nll`` NaN."""
        return list(self.inner.tokenize(texts))

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]:
        """Each text's score under the rule: a pass's NLL, or the contrast of two passes."""
        return [combine_passes(self.rule, passes) for passes in self.score_passes(texts)]

    def score_passes(self, texts: Sequence[str]) -> list[list[TokenScores]]:
        """Each text's NLL under every instruction, in instruction order (violating first).

        Args:
            texts: the documents.

        Returns:
            Per text, one ``TokenScores`` per instruction, all with the same tokens and offsets.
        """
        documents = self.inner._tokenise(texts)
        by_pass = [self._score_after(prefix, documents) for prefix in self.prefixes]
        return [
            [TokenScores(doc.token_ids, doc.char_starts, doc.char_ends, nlls[index]) for nlls in by_pass]
            for index, doc in enumerate(documents)
        ]

    def _prefix_ids(self, instruction: str) -> np.ndarray:
        folder = getattr(getattr(getattr(self.inner, "loaded", None), "source", None), "folder", None)
        template = read_chat_template(Path(folder)) if folder is not None else None
        [tokens] = self.inner._tokenise([prompt_text(instruction, template)])
        ids = tokens.token_ids  # (p,)
        bos = tokens.feed_ids[: tokens.shift]  # (0 or 1,): the BOS the runtime feeds, if any
        if len(bos) and not (len(ids) and ids[0] == bos[0]):
            ids = np.concatenate([bos, ids])
        return np.asarray(ids, dtype=np.int64)

    def _score_after(self, prefix: np.ndarray, documents: list[Tokenised]) -> list[np.ndarray]:
        """Every document token's NLL after ``prefix``, through the runtime's own batch scoring."""
        settings = self.inner.settings
        p = len(prefix)
        budget, overlap = settings.context_tokens - p, settings.context_tokens - settings.stride
        placed = [
            (index, piece)
            for index, doc in enumerate(documents)
            for piece in plan_pieces(len(doc.token_ids), budget=budget, overlap=overlap)
        ]
        placed.sort(key=lambda pair: pair[1].end - pair[1].start, reverse=True)  # alike lengths batch together
        batches = [placed[first : first + settings.batch_size] for first in range(0, len(placed), settings.batch_size)]
        out = [np.full(doc.token_ids.shape, np.nan, dtype=np.float64) for doc in documents]
        if self.reuse_prompt_state and getattr(self.inner, "runtime", None) == "torch":
            from smscan.model.prefix_state import PrefixState

            state = PrefixState(self.inner.loaded.model, self.inner.loaded.device, prefix)
            for batch in batches:
                rows = [documents[index].token_ids[piece.start : piece.end] for index, piece in batch]
                for (index, piece), nll in zip(batch, state.score(rows)):
                    out[index][piece.score_from : piece.end] = nll[piece.score_from - piece.start :]
            return out
        for batch in batches:
            pieces: list[Tokenised] = []
            work: list[tuple[int, Chunk]] = []
            for index, piece in batch:
                ids = documents[index].token_ids[piece.start : piece.end]  # (k,)
                fed = np.concatenate([prefix, ids])  # (p + k,)
                work.append((len(pieces), Chunk(0, len(fed), p + piece.score_from - piece.start)))
                pieces.append(Tokenised(ids, ids, ids, fed, p))  # offsets unused: only nll is read
            self.inner._score_batch(pieces, work)
            for (index, piece), scored in zip(batch, pieces):
                out[index][piece.score_from : piece.end] = scored.nll[piece.score_from - piece.start :]
        return out


def combine_passes(rule: str, passes: Sequence[TokenScores]) -> TokenScores:
    """A rule's score from its passes: the one pass, or ``nll(compliant) - nll(violating)``.

    Example:
        >>> import numpy as np
        >>> v = TokenScores(np.array([1]), np.array([0]), np.array([1]), np.array([2.0]))
        >>> c = TokenScores(v.token_ids, v.char_starts, v.char_ends, np.array([5.0]))
        >>> combine_passes("contrast", [v, c]).nll.tolist()
        [3.0]
    """
    if rule == "prompted":
        [only] = passes
        return only
    violating, compliant = passes
    return TokenScores(violating.token_ids, violating.char_starts, violating.char_ends, compliant.nll - violating.nll)
