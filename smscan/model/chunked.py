"""What every runtime's scorer shares: texts cut into left-context chunks, sorted by length and
batched into forward passes, each pass reported to a listening progress display."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from smscan.model.context import Chunk, plan_chunks
from smscan.model.passes import ForwardPass, is_listened_to, report_pass
from smscan.model.scoring_settings import ScoringSettings
from smscan.model.tokenised import Tokenised
from smscan.records import TokenScores


def plan_batches(tokenised: Sequence[Tokenised], settings: ScoringSettings) -> list[list[tuple[int, Chunk]]]:
    """All chunks of all texts as (text index, chunk), longest first, cut into forward passes.

    Args:
        tokenised: the texts' tokens.
        settings: chunk window, stride and batch size.

    Returns:
        Batches of at most ``settings.batch_size`` chunks, or more short ones while the padded
        batch holds at most ``settings.pack_tokens`` tokens; each chunk of each text appears once.
    """
    work = [
        (index, chunk)
        for index, item in enumerate(tokenised)
        for chunk in plan_chunks(len(item.feed_ids), context_tokens=settings.context_tokens, stride=settings.stride)
    ]
    work.sort(key=lambda pair: pair[1].end - pair[1].start, reverse=True)
    batches: list[list[tuple[int, Chunk]]] = []
    for pair in work:
        current = batches[-1] if batches else None
        # Longest first, so a batch's first chunk sets its padded width.
        if current is not None and (
            len(current) < settings.batch_size
            or (len(current) + 1) * (current[0][1].end - current[0][1].start) <= settings.pack_tokens
        ):
            current.append(pair)
        else:
            batches.append([pair])
    return batches


class ChunkedScorer:
    """What every runtime's scorer shares: chunked, batched scoring and what reports record.

    A runtime's scorer sets ``loaded`` (with ``source.name`` and ``device``), ``settings``,
    ``fingerprint`` and ``runtime``, and implements ``_tokenise`` (texts -> ``Tokenised``) and
    ``_score_batch`` (fill the NLL of a batch of chunks).
    """

    loaded: Any
    settings: ScoringSettings
    fingerprint: str
    runtime: str

    def describe(self) -> dict[str, object]:
        """What reports record about the model: name, fingerprint, device, runtime, dtype, settings key."""
        return {
            "name": self.loaded.source.name,
            "fingerprint": self.fingerprint,
            "device": self.loaded.device,
            "runtime": self.runtime,
            "dtype": self.settings.dtype,
            "settings": self.settings.key(),
        }

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]:
        """Score each text; see :mod:`smscan.model.scorer` for tokens, offsets and the first token.

        Args:
            texts: the texts; an empty text gives zero tokens.

        Returns:
            One ``TokenScores`` per text, in order.
        """
        tokenised = self._tokenise(texts)
        batches = plan_batches(tokenised, self.settings)
        total = sum(chunk.end - chunk.start for batch in batches for _, chunk in batch) if is_listened_to() else 0
        done = 0
        for batch in batches:
            self._score_batch(tokenised, batch)
            if total:  # a progress display listens (model/passes.py)
                fed = sum(chunk.end - chunk.start for _, chunk in batch)
                done += fed
                report_pass(ForwardPass(tuple(sorted({index for index, _ in batch})), fed, done, total))
        return [item.scores() for item in tokenised]

    def tokenize(self, texts: Sequence[str]) -> list[TokenScores]:
        """Tokens and offsets exactly as ``score_texts`` makes them, without running the model.

        Args:
            texts: the texts.

        Returns:
            One ``TokenScores`` per text with every ``nll`` NaN.
        """
        return [item.scores() for item in self._tokenise(texts)]

    def _tokenise(self, texts: Sequence[str]) -> list[Tokenised]:
        raise NotImplementedError

    def _score_batch(self, tokenised: list[Tokenised], batch: list[tuple[int, Chunk]]) -> None:
        raise NotImplementedError
