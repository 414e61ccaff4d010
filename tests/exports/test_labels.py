"""Downstream labels: -100 at tokens overlapping masked intervals (and outside supervised text),
and a standard Hugging Face causal LM's loss on them is the mean NLL over the other positions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from smscan.exports.labels import IGNORE_INDEX, DownstreamLabeler, overlaps, token_labels
from smscan.sources.datasets import RecordFormat, parse_record

TEXT = "def connect():\n    token = 'q8Zt3xLw9PvK2mRb'\n    return open_session(token, retries=3)\n"


def test_overlap_needs_one_shared_code_point() -> None:
    offsets = np.array([[0, 3], [3, 5], [5, 9], [9, 9], [9, 12]])
    assert overlaps(offsets, [(4, 5), (11, 20)]).tolist() == [False, True, False, False, True]
    assert overlaps(offsets, [(3, 3)]).tolist() == [False] * 5
    assert not overlaps(offsets, []).any()


def test_labels_drop_masked_and_unsupervised_tokens() -> None:
    offsets = np.array([[0, 2], [2, 4], [4, 6], [6, 8]])
    assert token_labels([1, 2, 3, 4], offsets, [(3, 4)]) == [1, IGNORE_INDEX, 3, 4]
    assert token_labels([1, 2, 3, 4], offsets, [(3, 4)], supervised=[(4, 8)]) == [IGNORE_INDEX] * 2 + [3, 4]


def _masked_positions_by_hand(offsets: list[tuple[int, int]], masked: list[tuple[int, int]]) -> list[bool]:
    return [any(a < e and s < b for s, e in masked) and b > a for a, b in offsets]


def test_hf_causal_lm_loss_equals_mean_nll_over_unmasked_positions(tiny_model_dir: Path) -> None:
    import torch
    from transformers import AutoModelForCausalLM

    labeler = DownstreamLabeler(str(tiny_model_dir))
    start = TEXT.index("q8Zt")
    masked = [(start, start + 16), (TEXT.index("retries"), TEXT.index("retries") + 7)]
    fields = labeler.encode(TEXT, masked, None, special_tokens=True)
    encoded = labeler.tokenizer(TEXT, return_offsets_mapping=True)
    by_hand = _masked_positions_by_hand([tuple(o) for o in encoded["offset_mapping"]], masked)
    assert fields["input_ids"] == encoded["input_ids"]
    assert [label == IGNORE_INDEX for label in fields["labels"]] == by_hand
    assert 0 < sum(by_hand) < len(by_hand) - 1

    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir).eval()
    ids = torch.tensor([fields["input_ids"]])  # (1, T)
    with torch.no_grad():
        out = model(input_ids=ids, attention_mask=torch.tensor([fields["attention_mask"]]),
                    labels=torch.tensor([fields["labels"]]))
        log_probs = torch.log_softmax(out.logits[0].double(), dim=-1)  # (T, V)
    # Position t is predicted from t-1; position 0 has no prediction.
    nll = [-float(log_probs[t - 1, ids[0, t]]) for t in range(1, ids.shape[1])]
    kept = [value for value, is_masked in zip(nll, by_hand[1:]) if not is_masked]
    assert float(out.loss) == pytest.approx(float(np.mean(kept)), abs=1e-5)
    everything = [v for v in nll]
    assert float(out.loss) != pytest.approx(float(np.mean(everything)), abs=1e-5)


def test_chat_labels_train_only_on_assistant_content(tiny_model_dir: Path) -> None:
    labeler = DownstreamLabeler(str(tiny_model_dir))
    record = parse_record(
        {"messages": [{"role": "user", "content": "key?"}, {"role": "assistant", "content": "the key is q8Zt3x ok"}]},
        0, RecordFormat(),
    )
    fields = labeler(record, [[], [(11, 17)]])
    text, bounds = labeler.render(record)
    encoded = labeler.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    for label, token, (a, b) in zip(fields["labels"], encoded["input_ids"], encoded["offset_mapping"]):
        lo, hi = bounds[1]
        in_assistant = a < hi and lo < b
        in_mask = a < lo + 17 and lo + 11 < b
        assert label == (token if in_assistant and not in_mask else IGNORE_INDEX)
    assert any(label != IGNORE_INDEX for label in fields["labels"])


def test_a_missing_tokenizer_is_a_model_error(tmp_path: Path) -> None:
    from smscan.errors import ModelError

    with pytest.raises(ModelError, match="cannot load it"):
        DownstreamLabeler(str(tmp_path / "nowhere"))
