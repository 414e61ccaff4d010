"""A prompt's key/value state computed once per scoring call and reused by its batches (torch).

``PromptedScorer`` feeds ``prompt + document tokens`` for every piece. On torch the prompt's
attention state can be computed once per instruction and scoring call and copied into each of
that call's batches, so a batch runs only its document tokens; the scores are the re-fed ones
up to float rounding (a test compares both). CTranslate2's ``score_batch`` takes token lists only, so it re-feeds the prompt.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Sequence
from typing import Any

import numpy as np


class PrefixState:
    """A causal LM's cache and last logits after ``prefix``, ready to continue a batch from.

    Args:
        model: a transformers causal LM in eval mode.
        device: where it runs.
        prefix: the prompt's token ids, ``(p,)``.
    """

    def __init__(self, model: Any, device: str, prefix: np.ndarray) -> None:
        import torch

        self.model = model
        self.device = device
        self.length = len(prefix)
        # transformers 5.x names the argument and output ``cache``; 4.x ``past_key_values``.
        self.cache_name = "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"
        with torch.no_grad():
            out = model(input_ids=torch.from_numpy(prefix)[None].to(device), use_cache=True)
        self.cache = getattr(out, self.cache_name)
        self.last_logits = out.logits[0, -1].float()  # (V,): predicts the first token after the prompt

    def score(self, rows: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Each row's NLL of all its tokens, fed right after the prompt.

        Args:
            rows: token ids per row (document tokens only), each ``(k,)`` with ``k >= 1``.

        Returns:
            Per row, ``(k,)`` float64: ``-log p(row[j] | prompt, row[:j])``.
        """
        import torch

        width = max(len(row) for row in rows)
        batch = len(rows)
        input_ids = torch.zeros((batch, width), dtype=torch.long)  # (B, T)
        attention_mask = torch.zeros((batch, self.length + width), dtype=torch.long)  # (B, p + T)
        attention_mask[:, : self.length] = 1
        for index, row in enumerate(rows):
            input_ids[index, : len(row)] = torch.from_numpy(row)
            attention_mask[index, self.length : self.length + len(row)] = 1
        cache = copy.deepcopy(self.cache)  # a forward appends to it
        cache.batch_repeat_interleave(batch)
        with torch.no_grad():
            logits = self.model(
                input_ids=input_ids.to(self.device), attention_mask=attention_mask.to(self.device),
                use_cache=True, **{self.cache_name: cache},
            ).logits  # (B, T, V)
            out = []
            for index, row in enumerate(rows):
                k = len(row)
                predicted = torch.cat([self.last_logits[None], logits[index, : k - 1].float()])  # (k, V)
                targets = input_ids[index, :k].to(predicted.device)  # (k,)
                nll = torch.logsumexp(predicted, dim=-1) - predicted.gather(-1, targets[:, None]).squeeze(-1)  # (k,)
                out.append(nll.cpu().double().numpy())
        return out
