"""The CTranslate2 runtime on the tiny model installed as the default: same tokens, same scores.

The tiny random-init Llama stands in for the default model (``fake_default_cache``), so the real
conversion, storage and scoring paths run offline in seconds. The real default model is compared
in ``test_ct2_default_model.py``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from smscan.errors import ModelError
from smscan.model import ct2_model
from smscan.model.ct2 import CT2Scorer
from smscan.model.ct2_model import ct2_model_dir, ensure_ct2_model, is_ct2_model_intact
from smscan.model.load import load_scorer
from smscan.model.default_model import default_model_dir
from smscan.model.scorer import TransformersScorer
from smscan.model.scoring_settings import ScoringSettings
from smscan.model.store import MANIFEST_NAME
from tests.fakes import build_tiny_model
from tests.model.test_load import fake_default_cache, garble

TEXTS = [
    "def main(argv):\n    return 0\n",
    "héllo wörld, 你好世界 😀 — naïve café\r\n\tx = 1\r\n",
    "",
    "a",
    "import os\nimport sys\n\nAPI_KEY = os.environ['API_KEY']\n" * 6,  # several chunks at ctx 16
    "lone \udc80 surrogate",
]


@pytest.fixture(scope="module")
def ct2_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache root whose default model is the tiny model, with its fp32 CTranslate2 copy made."""
    cache = tmp_path_factory.mktemp("ct2-cache")
    fake_default_cache(build_tiny_model(tmp_path_factory.mktemp("tiny")), cache)
    ensure_ct2_model(default_model_dir(cache), "fp32", cache_dir=cache)
    return cache


def pair(cache: Path, **window: int) -> tuple[CT2Scorer, TransformersScorer]:
    ct2 = load_scorer(None, device="cpu", runtime="ctranslate2", cache_dir=cache, **window)
    torch = load_scorer(None, device="cpu", dtype="fp32", runtime="torch", cache_dir=cache, **window)
    assert isinstance(ct2, CT2Scorer) and isinstance(torch, TransformersScorer)
    return ct2, torch


@pytest.mark.parametrize("window", [{}, {"context_tokens": 16, "stride": 5}], ids=["default-window", "chunked"])
def test_ct2_fp32_gives_the_torch_tokens_offsets_and_scores(ct2_cache: Path, window: dict[str, int]) -> None:
    ct2, torch = pair(ct2_cache, **window)
    got, want = ct2.score_texts(TEXTS), torch.score_texts(TEXTS)
    assert len(got) == len(want) == len(TEXTS)
    assert len(want[4]) > 40  # the repeated text spans several chunks of the small window
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a.token_ids, b.token_ids)
        np.testing.assert_array_equal(a.char_starts, b.char_starts)
        np.testing.assert_array_equal(a.char_ends, b.char_ends)
        np.testing.assert_array_equal(np.isnan(a.nll), np.isnan(b.nll))
        if len(a):
            assert np.isnan(a.nll[0])
            np.testing.assert_allclose(a.nll[1:], b.nll[1:], atol=1e-4)
    assert [len(scores) for scores in ct2.tokenize(TEXTS)] == [len(scores) for scores in want]


def test_ct2_scores_do_not_depend_on_batching(ct2_cache: Path) -> None:
    ct2, _ = pair(ct2_cache, context_tokens=16, stride=5)
    alone = [ct2.score_texts([text])[0] for text in TEXTS]
    batched = ct2.with_settings(batch_size=7).score_texts(TEXTS[::-1])[::-1]
    for a, b in zip(alone, batched):
        np.testing.assert_allclose(a.nll, b.nll, atol=1e-5, equal_nan=True)


def test_ct2_empty_input(ct2_cache: Path) -> None:
    ct2, _ = pair(ct2_cache)
    assert ct2.score_texts([]) == []
    [empty] = ct2.score_texts([""])
    assert len(empty) == 0


def test_ct2_fingerprint_and_settings_name_runtime_and_precision(ct2_cache: Path) -> None:
    ct2, torch = pair(ct2_cache)
    assert ct2.fingerprint == f"{torch.fingerprint}+ct2-fp32"
    assert ct2.settings.key() == "ctx512-stride384-ct2-fp32" != torch.settings.key()
    assert ct2.describe()["runtime"] == "ctranslate2" and torch.describe()["runtime"] == "torch"


def test_ct2_int8_is_its_own_fingerprint_and_close_to_fp32(ct2_cache: Path) -> None:
    int8 = load_scorer(None, device="cpu", dtype="int8", cache_dir=ct2_cache)
    ct2, _ = pair(ct2_cache)
    assert int8.fingerprint.endswith("+ct2-int8") and int8.settings.key().endswith("ct2-int8")
    assert (ct2_model_dir("int8", ct2_cache) / "model.bin").stat().st_size < (
        ct2_model_dir("fp32", ct2_cache) / "model.bin"
    ).stat().st_size
    got, want = int8.score_texts(TEXTS[:2]), ct2.score_texts(TEXTS[:2])
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a.token_ids, b.token_ids)
        assert np.nanmax(np.abs(a.nll - b.nll)) < 1.0  # a tiny random model: quantisation noise only


def test_bos_tokenizer_feeds_bos_like_torch(tmp_path: Path) -> None:
    fake_default_cache(build_tiny_model(tmp_path / "tiny", bos=True), tmp_path / "cache")
    ct2, torch = pair(tmp_path / "cache")
    assert ct2.loaded.bos_id == torch.bos_id is not None
    a, b = ct2.score_texts(TEXTS[:1])[0], torch.score_texts(TEXTS[:1])[0]
    assert np.isfinite(a.nll[0])  # scored after the BOS
    np.testing.assert_allclose(a.nll, b.nll, atol=1e-4)


def test_conversion_is_atomic_and_leaves_no_staging(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    source = fake_default_cache(build_tiny_model(tmp_path / "tiny"), cache)
    real_convert = ct2_model.convert_to_ct2

    def convert_then_die(source: Path, out: Path, dtype: str, *, model: object = None) -> None:
        real_convert(source, out, dtype, model=model)
        raise KeyboardInterrupt  # killed after the files were written, before the install

    monkeypatch.setattr(ct2_model, "convert_to_ct2", convert_then_die)
    with pytest.raises(KeyboardInterrupt):
        ensure_ct2_model(source, "fp32", cache_dir=cache)
    final = ct2_model_dir("fp32", cache)
    assert not final.exists()
    assert not list(final.parent.glob(".tmp-*"))
    monkeypatch.setattr(ct2_model, "convert_to_ct2", real_convert)
    assert ensure_ct2_model(source, "fp32", cache_dir=cache) == final
    manifest = json.loads((final / MANIFEST_NAME).read_text(encoding="utf-8"))
    assert set(manifest["files"]) == {"model.bin", "config.json", "vocabulary.json"}
    assert manifest["conversion_version"].endswith("|ctranslate2/1-float32")
    assert is_ct2_model_intact("fp32", cache_dir=cache)
    assert not list(final.parent.glob(".tmp-*"))


def test_first_use_makes_the_ct2_copy_and_an_outdated_one_is_remade(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    fake_default_cache(build_tiny_model(tmp_path / "tiny"), cache)
    folder = ct2_model_dir("fp32", cache)
    assert not folder.exists()
    load_scorer(None, device="cpu", runtime="ctranslate2", cache_dir=cache)
    assert (folder / "model.bin").is_file()
    manifest_path = folder / MANIFEST_NAME
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    manifest["conversion_version"] = "an-older-conversion"
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    load_scorer(None, device="cpu", runtime="ctranslate2", cache_dir=cache)
    assert json.loads(manifest_path.read_text(encoding="utf-8"))["conversion_version"] != "an-older-conversion"


@pytest.mark.parametrize(
    "damage",
    [
        lambda folder: garble(folder / "model.bin"),
        lambda folder: (folder / "model.bin").unlink(),
        lambda folder: garble(folder / "vocabulary.json"),
        lambda folder: (folder / MANIFEST_NAME).write_text("{"),
        lambda folder: (folder / MANIFEST_NAME).unlink(),
    ],
    ids=["garbled-weights", "missing-weights", "garbled-vocabulary", "garbled-manifest", "missing-manifest"],
)
def test_damaged_ct2_folder_is_one_model_error(ct2_cache: Path, tmp_path: Path, damage) -> None:
    cache = tmp_path / "cache"
    shutil.copytree(ct2_cache, cache)
    folder = ct2_model_dir("fp32", cache)
    damage(folder)
    with pytest.raises(ModelError) as raised:
        load_scorer(None, device="cpu", runtime="ctranslate2", cache_dir=cache)
    message = str(raised.value)
    assert str(folder) in message
    assert "smscan model pull --force" in message
    assert "\n" not in message
    assert not is_ct2_model_intact("fp32", cache_dir=cache)


def test_ct2_refuses_a_window_beyond_the_model_positions(ct2_cache: Path) -> None:
    with pytest.raises(ModelError, match="exceeds the 1024 positions"):
        load_scorer(None, device="cpu", runtime="ctranslate2", cache_dir=ct2_cache, context_tokens=2048, stride=1024)


def test_settings_reject_a_dtype_of_another_runtime() -> None:
    with pytest.raises(ValueError, match="ctranslate2"):
        ScoringSettings(runtime="ctranslate2", dtype="bf16")
    with pytest.raises(ValueError, match="torch"):
        ScoringSettings(dtype="int8")


def test_scorer_fingerprint_without_loading_matches_the_loaded_scorer(ct2_cache: Path) -> None:
    from smscan.model.load import scorer_fingerprint

    environ = {"SMSCAN_CACHE": str(ct2_cache)}
    for runtime, dtype in (("ctranslate2", "fp32"), ("auto", "int8"), ("torch", "fp32")):
        loaded = load_scorer(None, device="cpu", dtype=dtype, runtime=runtime, cache_dir=ct2_cache)
        assert scorer_fingerprint(None, device="cpu", dtype=dtype, runtime=runtime, environ=environ) == loaded.fingerprint
