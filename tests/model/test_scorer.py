from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smscan.errors import ModelError
from smscan.model.load import load_scorer
from smscan.model.scorer import TransformersScorer
from smscan.model.scoring_settings import ScoringSettings
from smscan.model.threads import allowed_cores
from smscan.records import TokenScores
from tests.fakes import build_tiny_model

TRICKY_TEXTS = [
    "",
    " ",
    "\n\n\t  \r\n",
    "def main():\n    return 0\n",
    "emoji 😀👩‍💻 and CJK 你好世界 and accents café naïve",
    "line one\r\nline two\r\n\tindented\ttab\r\n",
    "\ufeffimport os  # BOM first\n",
    "a",
    "日本語のテキスト",
    "x" * 300,
]


def joined(text: str, scores: TokenScores) -> str:
    return "".join(text[s:e] for s, e in zip(scores.char_starts, scores.char_ends))


def assert_well_formed(text: str, scores: TokenScores) -> None:
    n = len(scores)
    assert scores.token_ids.shape == scores.char_starts.shape == scores.char_ends.shape == (n,)
    assert scores.nll.shape == (n,)
    assert scores.token_ids.dtype == scores.char_starts.dtype == np.int64
    assert scores.nll.dtype == np.float64
    assert joined(text, scores) == text
    if n:
        assert scores.char_starts[0] == 0 and scores.char_ends[-1] == len(text)
        assert (scores.char_starts[1:] == scores.char_ends[:-1]).all()
        assert np.isnan(scores.nll[0])
        assert np.isfinite(scores.nll[1:]).all()
        assert (scores.nll[1:] >= 0).all()


@pytest.mark.parametrize("text", TRICKY_TEXTS)
def test_offsets_and_scores_are_well_formed(tiny_scorer: TransformersScorer, text: str) -> None:
    [scores] = tiny_scorer.score_texts([text])
    assert_well_formed(text, scores)


def test_empty_text_has_no_tokens(tiny_scorer: TransformersScorer) -> None:
    [scores] = tiny_scorer.score_texts([""])
    assert len(scores) == 0


def test_multibyte_fragments_get_empty_ranges(tiny_scorer: TransformersScorer) -> None:
    text = "😀"  # 4 UTF-8 bytes, not merged by the tiny tokenizer's few merges
    [scores] = tiny_scorer.score_texts([text])
    ranges = list(zip(scores.char_starts.tolist(), scores.char_ends.tolist()))
    assert len(ranges) > 1
    assert ranges[0] == (0, 1)
    assert all(start == end == 1 for start, end in ranges[1:])


def test_lone_surrogate_is_scored_in_place(tiny_scorer: TransformersScorer) -> None:
    text = "name = 'caf\udce9'\n"
    [scores] = tiny_scorer.score_texts([text])
    assert scores.char_ends[-1] == len(text)
    assert joined(text, scores) == text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(st.characters(codec="utf-8"), max_size=60))
def test_tokens_partition_any_text(tiny_scorer: TransformersScorer, text: str) -> None:
    [scores] = tiny_scorer.score_texts([text])
    assert joined(text, scores) == text
    assert (scores.char_starts <= scores.char_ends).all()


def test_scores_do_not_depend_on_batch_company(tiny_scorer: TransformersScorer) -> None:
    texts = [t for t in TRICKY_TEXTS if t] + ["print('hello world')\n" * 20]
    alone = [tiny_scorer.score_texts([text])[0] for text in texts]
    together = tiny_scorer.score_texts(texts)
    reversed_batch = tiny_scorer.score_texts(texts[::-1])[::-1]
    for single, batched, backwards in zip(alone, together, reversed_batch):
        np.testing.assert_array_equal(single.token_ids, batched.token_ids)
        np.testing.assert_allclose(single.nll, batched.nll, rtol=0, atol=1e-4, equal_nan=True)
        np.testing.assert_allclose(single.nll, backwards.nll, rtol=0, atol=1e-4, equal_nan=True)


def test_sliding_window_matches_full_context_on_first_chunk(tiny_scorer: TransformersScorer) -> None:
    text = "for i in range(10):\n\tprint(i, end='')\r\n" * 12
    full = tiny_scorer.with_settings(context_tokens=1024, stride=1000).score_texts([text])[0]
    chunked = tiny_scorer.with_settings(context_tokens=16, stride=10).score_texts([text])[0]
    assert len(full) > 60
    np.testing.assert_array_equal(full.token_ids, chunked.token_ids)
    np.testing.assert_allclose(chunked.nll[:16], full.nll[:16], rtol=0, atol=1e-4, equal_nan=True)
    assert np.isnan(chunked.nll[0]) and np.isfinite(chunked.nll[1:]).all()
    assert not np.allclose(chunked.nll[16:], full.nll[16:])  # later tokens saw less context


def test_settings_validate_and_key() -> None:
    assert ScoringSettings().key() == "ctx512-stride384-fp32"
    assert ScoringSettings(batch_size=32).key() == ScoringSettings().key()
    with pytest.raises(ValueError):
        ScoringSettings(context_tokens=8, stride=8)
    with pytest.raises(ValueError):
        ScoringSettings(batch_size=0)
    with pytest.raises(ValueError):
        ScoringSettings(dtype="auto")  # type: ignore[arg-type]


def test_describe_names_model_and_settings(tiny_scorer: TransformersScorer) -> None:
    described = tiny_scorer.describe()
    assert described["fingerprint"] == tiny_scorer.fingerprint
    assert described["fingerprint"].startswith("sha256:")  # type: ignore[union-attr]
    assert described["device"] == "cpu"
    assert described["settings"] == "ctx64-stride48-fp32"


def test_bf16_scores_close_to_fp32(tiny_model_dir: Path, tmp_path: Path) -> None:
    text = "def main(argv):\n    return 0\n" * 3
    fp32 = load_scorer(str(tiny_model_dir), device="cpu", dtype="fp32", cache_dir=tmp_path)
    bf16 = load_scorer(str(tiny_model_dir), device="cpu", dtype="bf16", cache_dir=tmp_path)
    assert bf16.settings.dtype == "bf16"
    a, b = fp32.score_texts([text])[0], bf16.score_texts([text])[0]
    np.testing.assert_allclose(a.nll, b.nll, rtol=0, atol=0.1, equal_nan=True)


def test_threads_setting_reaches_torch(tiny_model_dir: Path, tmp_path: Path) -> None:
    import torch

    before = torch.get_num_threads()
    if before == 1 and allowed_cores() == 1:
        pytest.skip("one allowed core: any thread count asked for is 1")
    wanted = 2 if before == 1 else 1  # differs from torch's current setting, so the test can fail
    try:
        load_scorer(str(tiny_model_dir), device="cpu", dtype="fp32", cache_dir=tmp_path, threads=wanted)
        assert torch.get_num_threads() == wanted
    finally:
        torch.set_num_threads(before)


def test_tokenize_matches_score_texts_tokens(tiny_scorer: TransformersScorer) -> None:
    text = "def main():\n    return 0\n"
    [tokens] = tiny_scorer.tokenize([text])
    [scores] = tiny_scorer.score_texts([text])
    np.testing.assert_array_equal(tokens.token_ids, scores.token_ids)
    np.testing.assert_array_equal(tokens.char_ends, scores.char_ends)
    assert np.isnan(tokens.nll).all()


def test_first_token_is_scored_after_a_default_bos(tmp_path: Path) -> None:
    folder = build_tiny_model(tmp_path / "with-bos", bos=True)
    scorer = load_scorer(str(folder), device="cpu", dtype="fp32", context_tokens=8, stride=5, cache_dir=tmp_path)
    plain = load_scorer(str(build_tiny_model(tmp_path / "plain")), device="cpu", dtype="fp32",
                        cache_dir=tmp_path)
    assert scorer.bos_id == 2 and plain.bos_id is None
    text = "for i in range(10):\n\tprint(i)\n"
    [scores] = scorer.score_texts([text])
    assert len(scores) > 8  # several chunks
    assert joined(text, scores) == text
    assert np.isfinite(scores.nll).all()  # the first token too, after BOS
    assert 2 not in scores.token_ids.tolist()  # BOS is context, not a token of the text
    np.testing.assert_array_equal(scores.token_ids, plain.tokenize([text])[0].token_ids)
    assert len(scorer.score_texts([""])[0]) == 0


def test_no_texts(tiny_scorer: TransformersScorer) -> None:
    assert tiny_scorer.score_texts([]) == []
    assert tiny_scorer.tokenize([]) == []


def test_context_longer_than_the_model_is_refused(tiny_scorer: TransformersScorer) -> None:
    with pytest.raises(ModelError, match="exceeds the 1024 positions"):
        tiny_scorer.with_settings(context_tokens=2048, stride=1024)


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def test_long_text_logs_no_length_warning(tiny_model_dir: Path, tmp_path: Path) -> None:
    # the tiny tokenizer says model_max_length=128; transformers would warn on stderr past it
    scorer = load_scorer(str(tiny_model_dir), device="cpu", dtype="fp32", cache_dir=tmp_path)
    records = _Records()
    logger = logging.getLogger("transformers")  # transformers' loggers stop propagating here
    logger.addHandler(records)
    try:
        [scores] = scorer.score_texts(["x = 1\n" * 400])
    finally:
        logger.removeHandler(records)
    assert len(scores) > 1024 and np.isfinite(scores.nll[1:]).all()
    assert records.messages == []
