"""The default model under the prompted rules: its chat template, and both runtimes agree."""

from __future__ import annotations

import numpy as np
import pytest

from smscan.config.instructions import resolve_instructions
from smscan.model.load import load_scorer
from smscan.model.prompted import PromptedScorer

pytestmark = pytest.mark.model

TEXT = "import os\n\nAPI_KEY = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'\nprint(API_KEY)\n"


def test_contrast_on_the_default_model_is_the_same_on_torch_and_ctranslate2(default_model_dir: object) -> None:
    instructions = resolve_instructions("contrast", ["credentials"])
    torch_scorer = PromptedScorer(load_scorer(device="cpu", dtype="fp32", runtime="torch"), "contrast", instructions)
    ct2_scorer = PromptedScorer(load_scorer(device="cpu", dtype="fp32", runtime="ctranslate2"), "contrast", instructions)
    # The prompt is the ChatML system turn, then the user turn's header, as token ids.
    tokenizer = torch_scorer.inner.loaded.tokenizer
    for prefix in torch_scorer.prefixes:
        text = tokenizer.decode(prefix.tolist())
        assert text.startswith("<|im_start|>system\n") and text.endswith("<|im_end|>\n<|im_start|>user\n")
        assert int(prefix[0]) == tokenizer.convert_tokens_to_ids("<|im_start|>")
    assert [p.tolist() for p in torch_scorer.prefixes] == [p.tolist() for p in ct2_scorer.prefixes]
    [plain] = torch_scorer.inner.score_texts([TEXT])
    [(violating, compliant)] = torch_scorer.score_passes([TEXT])
    [ct2_passes] = ct2_scorer.score_passes([TEXT])
    assert np.array_equal(violating.char_starts, plain.char_starts) and np.array_equal(violating.token_ids, plain.token_ids)
    for torch_pass, ct2_pass in zip((violating, compliant), ct2_passes):
        np.testing.assert_allclose(ct2_pass.nll, torch_pass.nll, atol=2e-3)
    [contrast] = torch_scorer.score_texts([TEXT])
    np.testing.assert_allclose(contrast.nll, compliant.nll - violating.nll, atol=1e-9)
    # The instruction changes the scores: the prompt is really read.
    assert np.abs(compliant.nll[1:] - plain.nll[1:]).mean() > 0.05
