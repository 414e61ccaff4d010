"""Prompted and contrast scoring on the tiny real model: tokens, hand references, the cache."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from smscan.scoring.cache import ScoreCache
from smscan.scoring.cached_scorer import CachedScorer
from smscan.errors import ModelError
from smscan.model.load import load_scorer
from smscan.model.prompted import PromptedScorer, plan_pieces, prompt_text, read_chat_template
from smscan.model.scorer import TransformersScorer

VIOLATING = "keep every secret value"
COMPLIANT = "remove every secret value"
DOCUMENT = "def main():\n    token = 'x9Qz'\n    return token\n"
# A ChatML-like template over the tiny tokenizer's own special tokens.
TINY_TEMPLATE = "{% for m in messages %}<s>{{ m['role'] }}\n{{ m['content'] }}<|endoftext|>\n{% endfor %}"
SMOL_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful AI assistant<|im_end|>\n' }}{% endif %}"
    "{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}"
)
NO_SYSTEM_TEMPLATE = (
    "{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"
    "{% for m in messages %}<turn>{{ m['role'] }}\n{{ m['content'] }}<end>\n{% endfor %}"
)


def reference_nll(scorer: TransformersScorer, ids: np.ndarray, first_scored: int) -> np.ndarray:
    """-log p(ids[j] | ids[:j]) for j >= first_scored, by hand with transformers in one pass."""
    import torch

    with torch.no_grad():
        logits = scorer.loaded.model(input_ids=torch.from_numpy(ids)[None]).logits[0].double()  # (T, V)
    log_probs = torch.log_softmax(logits, dim=-1)  # (T, V)
    targets = torch.from_numpy(ids[first_scored:])  # (k,)
    return -log_probs[first_scored - 1 : len(ids) - 1].gather(-1, targets[:, None]).squeeze(-1).numpy()


@given(n=st.integers(0, 60), budget=st.integers(2, 20), overlap=st.integers(0, 19))
def test_pieces_score_every_token_once_with_left_context(n: int, budget: int, overlap: int) -> None:
    if budget <= overlap:
        with pytest.raises(ModelError, match="left context"):
            plan_pieces(n, budget=budget, overlap=overlap)
        return
    pieces = plan_pieces(n, budget=budget, overlap=overlap)
    scored = [j for piece in pieces for j in range(piece.score_from, piece.end)]
    assert scored == list(range(n))
    for piece in pieces:
        assert piece.end - piece.start <= budget
        assert piece.score_from - piece.start == min(overlap, piece.score_from)


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        (None, "Keep code.\n\n"),
        (SMOL_TEMPLATE, "<|im_start|>system\nKeep code.<|im_end|>\n<|im_start|>user\n"),
        (NO_SYSTEM_TEMPLATE, "<turn>user\nKeep code.\n\n"),
        ("{{ undefined_filter | nope }}", "Keep code.\n\n"),  # a broken template: plain text
    ],
)
def test_prompt_text_follows_the_chat_template(template: str | None, expected: str) -> None:
    assert prompt_text("Keep code.", template) == expected


def test_chat_template_is_read_from_the_folder(tmp_path: Path) -> None:
    assert read_chat_template(tmp_path) is None
    (tmp_path / "tokenizer_config.json").write_text('{"chat_template": "T1"}', encoding="utf-8")
    assert read_chat_template(tmp_path) == "T1"
    (tmp_path / "chat_template.jinja").write_text("T2", encoding="utf-8")
    assert read_chat_template(tmp_path) == "T2"


def test_prompted_tokens_are_the_unprompted_ones_and_scores_a_hand_reference(tiny_scorer: TransformersScorer) -> None:
    prompted = PromptedScorer(tiny_scorer, "prompted", [COMPLIANT])
    [plain] = tiny_scorer.score_texts([DOCUMENT])
    [scores] = prompted.score_texts([DOCUMENT])
    for field in ("token_ids", "char_starts", "char_ends"):
        assert np.array_equal(getattr(scores, field), getattr(plain, field))
    [prefix] = prompted.prefixes
    assert len(prefix) + len(plain) <= tiny_scorer.settings.context_tokens  # one piece: one pass
    fed = np.concatenate([prefix, plain.token_ids])
    np.testing.assert_allclose(scores.nll, reference_nll(tiny_scorer, fed, len(prefix)), atol=1e-5)
    # Unprompted is the same model without the prefix: the prefix is the only difference.
    np.testing.assert_allclose(plain.nll[1:], reference_nll(tiny_scorer, plain.token_ids, 1), atol=1e-5)
    assert np.isfinite(scores.nll).all() and np.isnan(plain.nll[0])
    assert np.abs(scores.nll[1:] - plain.nll[1:]).max() > 1e-3


def test_long_document_scores_every_token_after_the_prompt(tiny_scorer: TransformersScorer) -> None:
    prompted = PromptedScorer(tiny_scorer, "prompted", [COMPLIANT])
    text = DOCUMENT * 12
    [plain] = tiny_scorer.score_texts([text])
    [scores] = prompted.score_texts([text])
    [prefix] = prompted.prefixes
    budget = tiny_scorer.settings.context_tokens - len(prefix)
    assert len(plain) > 2 * budget  # several pieces
    assert np.array_equal(scores.char_starts, plain.char_starts) and np.isfinite(scores.nll).all()
    # The first piece is one pass over prefix + the first `budget` document tokens.
    first = np.concatenate([prefix, plain.token_ids[:budget]])
    np.testing.assert_allclose(scores.nll[:budget], reference_nll(tiny_scorer, first, len(prefix)), atol=1e-5)
    # Batching several documents (shapes, padding) changes nothing but rounding.
    [again, _] = prompted.score_texts([text, "x = 1\n"])
    np.testing.assert_allclose(again.nll, scores.nll, atol=1e-5)


def test_contrast_is_the_difference_of_its_two_passes(tiny_scorer: TransformersScorer) -> None:
    contrast = PromptedScorer(tiny_scorer, "contrast", [VIOLATING, COMPLIANT])
    texts = [DOCUMENT, "", DOCUMENT * 5]
    results = contrast.score_texts(texts)
    for text, result, passes in zip(texts, results, contrast.score_passes(texts)):
        [violating] = PromptedScorer(tiny_scorer, "prompted", [VIOLATING]).score_texts([text])
        [compliant] = PromptedScorer(tiny_scorer, "prompted", [COMPLIANT]).score_texts([text])
        np.testing.assert_allclose(passes[0].nll, violating.nll, atol=1e-5)
        np.testing.assert_allclose(passes[1].nll, compliant.nll, atol=1e-5)
        np.testing.assert_allclose(result.nll, compliant.nll - violating.nll, atol=1e-5)
        assert np.array_equal(result.char_ends, violating.char_ends)
    assert len(results[1]) == 0


def test_fingerprints_name_the_rule_and_instructions(tiny_scorer: TransformersScorer) -> None:
    made = {
        PromptedScorer(tiny_scorer, "prompted", [COMPLIANT]).fingerprint,
        PromptedScorer(tiny_scorer, "prompted", [VIOLATING]).fingerprint,
        PromptedScorer(tiny_scorer, "contrast", [VIOLATING, COMPLIANT]).fingerprint,
        PromptedScorer(tiny_scorer, "contrast", [COMPLIANT, VIOLATING]).fingerprint,
        tiny_scorer.fingerprint,
    }
    assert len(made) == 5
    assert all(fingerprint.startswith(tiny_scorer.fingerprint) for fingerprint in made)
    assert PromptedScorer(tiny_scorer, "prompted", [COMPLIANT]).fingerprint == PromptedScorer(
        tiny_scorer, "prompted", [COMPLIANT]
    ).fingerprint


def test_the_cache_never_answers_a_prompted_request_with_another_rule(
    tiny_scorer: TransformersScorer, tmp_path: Path
) -> None:
    cache = ScoreCache(tmp_path / "scores")
    [plain] = CachedScorer(tiny_scorer, cache).score_texts([DOCUMENT])
    prompted_layer = CachedScorer(PromptedScorer(tiny_scorer, "prompted", [COMPLIANT]), cache)
    [prompted] = prompted_layer.score_texts([DOCUMENT])
    assert (cache.hits, cache.misses) == (0, 2)
    assert not np.allclose(prompted.nll[1:], plain.nll[1:])
    [again] = prompted_layer.score_texts([DOCUMENT])  # its own entry now
    assert cache.hits == 1
    np.testing.assert_array_equal(again.nll, prompted.nll)
    [other] = CachedScorer(PromptedScorer(tiny_scorer, "prompted", [VIOLATING]), cache).score_texts([DOCUMENT])
    assert cache.misses == 3 and not np.allclose(other.nll, prompted.nll)


def test_chat_template_special_tokens_are_ids_in_the_prefix(tiny_model_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "templated"
    shutil.copytree(tiny_model_dir, folder)
    (folder / "chat_template.jinja").write_text(TINY_TEMPLATE, encoding="utf-8")
    scorer = load_scorer(str(folder), device="cpu", dtype="fp32", context_tokens=128, stride=96, cache_dir=tmp_path / "c")
    prompted = PromptedScorer(scorer, "prompted", [COMPLIANT])
    [prefix] = prompted.prefixes
    start_id = scorer.loaded.tokenizer.convert_tokens_to_ids("<s>")
    assert int(prefix[0]) == start_id and (prefix == start_id).sum() == 2  # the system and user turns
    [scores] = prompted.score_texts([DOCUMENT])
    assert len(prefix) + len(scores) <= 128  # one piece: one pass
    fed = np.concatenate([prefix, scores.token_ids])
    np.testing.assert_allclose(scores.nll, reference_nll(scorer, fed, len(prefix)), atol=1e-5)


def test_a_prompt_too_long_for_the_window_is_refused(tiny_scorer: TransformersScorer) -> None:
    with pytest.raises(ModelError, match="shorter instruction or a larger stride"):
        PromptedScorer(tiny_scorer, "prompted", ["a long instruction " * 20])


def test_bos_models_feed_bos_before_the_prompt(tmp_path: Path) -> None:
    from tests.fakes import build_tiny_model

    folder = build_tiny_model(tmp_path / "bos", bos=True)
    scorer = load_scorer(str(folder), device="cpu", dtype="fp32", context_tokens=64, stride=48, cache_dir=tmp_path / "c")
    [prefix] = PromptedScorer(scorer, "prompted", [COMPLIANT]).prefixes
    assert scorer.bos_id is not None and int(prefix[0]) == scorer.bos_id and (prefix == scorer.bos_id).sum() == 1


def test_reusing_the_prompt_state_gives_the_re_fed_scores(tiny_scorer: TransformersScorer) -> None:
    texts = [DOCUMENT * 9, "x = 1\n", DOCUMENT, "", DOCUMENT * 3]
    reused = PromptedScorer(tiny_scorer, "contrast", [VIOLATING, COMPLIANT]).score_passes(texts)
    refed = PromptedScorer(tiny_scorer, "contrast", [VIOLATING, COMPLIANT], reuse_prompt_state=False).score_passes(texts)
    for a_passes, b_passes in zip(reused, refed):
        for a, b in zip(a_passes, b_passes):
            assert np.array_equal(a.token_ids, b.token_ids)
            np.testing.assert_allclose(a.nll, b.nll, atol=1e-5)
            assert np.isfinite(a.nll).all()
