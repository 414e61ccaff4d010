from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from smscan.errors import ModelError
from smscan.model.fingerprint import fingerprint_default, fingerprint_folder, fingerprinted_files
from smscan.model.load import load_scorer
from smscan.model.source import is_default_model, resolve_model
from smscan.model.transformers_load import load_model
from smscan.model.default_model import CONVERSION_VERSION, DEFAULT_GGUF_SHA256, DEFAULT_MODEL_NAME, default_model_dir
from smscan.model.store import MANIFEST_NAME, write_manifest


def test_importing_smscan_model_loads_no_torch() -> None:
    code = (
        "import sys, smscan, smscan.model, smscan.model.load, smscan.model.scorer, smscan.model.pull\n"
        "heavy = [m for m in ('torch', 'transformers', 'tokenizers', 'huggingface_hub', 'safetensors', 'gguf')"
        " if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [(None, True), ("default", True), ("SmolLM2-135M-Instruct", True), (" smollm2-135m-instruct ", True),
     ("gpt2", False), ("./default", False)],
)
def test_is_default_model(spec: str | None, expected: bool) -> None:
    assert is_default_model(spec) is expected


def test_fingerprint_equal_for_copies_of_a_folder(tiny_model_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "another-name"
    shutil.copytree(tiny_model_dir, copy)
    (copy / "README.md").write_text("not part of the fingerprint")
    a = resolve_model(str(tiny_model_dir), cache_dir=tmp_path / "cache")
    b = resolve_model(str(copy), cache_dir=tmp_path / "cache")
    assert a.fingerprint == b.fingerprint
    assert a.fingerprint.short.startswith("sha256:") and len(a.fingerprint.short) == 7 + 16
    assert len(a.fingerprint.digest) == 64


def test_fingerprint_changes_with_the_weights(tiny_model_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "changed"
    shutil.copytree(tiny_model_dir, copy)
    before = fingerprint_folder(copy)
    with (copy / "model.safetensors").open("ab") as stream:
        stream.write(b"\0")
    assert fingerprint_folder(copy) != before


def test_fingerprint_hash_cache_is_used_and_refreshed(tiny_model_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "model"
    shutil.copytree(tiny_model_dir, folder)
    cache = tmp_path / "hashes.json"
    honest = fingerprint_folder(folder, hash_cache=cache)
    entries = json.loads(cache.read_text())
    assert set(entries) == {str(p.resolve()) for p in fingerprinted_files(folder)}
    # a cached hash is trusted while the file's size and mtime are unchanged...
    cache.write_text(json.dumps({path: [stamp, "0" * 64] for path, (stamp, _) in entries.items()}))
    assert fingerprint_folder(folder, hash_cache=cache) != honest
    # ...and recomputed once they change
    for path in fingerprinted_files(folder):
        os.utime(path, ns=(1, 1))
    assert fingerprint_folder(folder, hash_cache=cache) == honest
    cache.write_text("{garbled")
    assert fingerprint_folder(folder, hash_cache=cache) == honest


def test_default_fingerprint_is_the_gguf_and_conversion() -> None:
    a = fingerprint_default(DEFAULT_GGUF_SHA256, CONVERSION_VERSION)
    assert a == fingerprint_default(DEFAULT_GGUF_SHA256, CONVERSION_VERSION)
    assert a != fingerprint_default(DEFAULT_GGUF_SHA256, CONVERSION_VERSION + "x")


def test_folder_without_safetensors_is_refused(tiny_model_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "pickled"
    shutil.copytree(tiny_model_dir, folder)
    (folder / "model.safetensors").rename(folder / "pytorch_model.bin")
    with pytest.raises(ModelError, match=r"no \*\.safetensors"):
        resolve_model(str(folder), cache_dir=tmp_path)


def test_folder_without_a_causal_lm_is_refused(tiny_model_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "not-causal"
    shutil.copytree(tiny_model_dir, folder)
    (folder / "config.json").write_text('{"model_type": "vit"}')
    source = resolve_model(str(folder), cache_dir=tmp_path)
    with pytest.raises(ModelError, match="as a causal LM") as raised:
        load_model(source, device="cpu", dtype="fp32")
    assert "\n" not in str(raised.value)


def test_weights_of_another_architecture_are_refused(tiny_model_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "bert"
    shutil.copytree(tiny_model_dir, folder)
    (folder / "config.json").write_text('{"model_type": "bert", "vocab_size": 320, "is_decoder": true}')
    source = resolve_model(str(folder), cache_dir=tmp_path)
    with pytest.raises(ModelError, match="weights lack"):
        load_model(source, device="cpu", dtype="fp32")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no-such-org/no-such-model-xyz", "could not be fetched from the Hugging Face Hub"),
        ("./no/such/folder", "does not exist"),
        ("/definitely/not/here", "does not exist"),
    ],
)
def test_unknown_model_is_a_model_error(spec: str, message: str, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # never touch the network in unit tests
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    with pytest.raises(ModelError, match=message) as raised:
        resolve_model(spec, cache_dir=tmp_path)
    assert "\n" not in str(raised.value)


def test_a_file_is_not_a_model(tmp_path: Path) -> None:
    weights = tmp_path / "weights.safetensors"
    weights.write_bytes(b"")
    with pytest.raises(ModelError, match="is a file"):
        resolve_model(str(weights), cache_dir=tmp_path)


@pytest.mark.parametrize(("device", "dtype"), [("tpu", "auto"), ("cpu", "int4")])
def test_unknown_device_or_dtype(tiny_model_dir: Path, tmp_path: Path, device: str, dtype: str) -> None:
    with pytest.raises(ModelError, match="unknown"):
        load_scorer(str(tiny_model_dir), device=device, dtype=dtype, cache_dir=tmp_path)


def test_default_model_not_pulled_says_how(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="smscan model pull"):
        resolve_model(None, cache_dir=tmp_path)


def fake_default_cache(tiny_model_dir: Path, cache: Path) -> Path:
    """The tiny model installed where the converted default model lives, with a manifest."""
    folder = default_model_dir(cache)
    shutil.copytree(tiny_model_dir, folder)
    write_manifest(folder, model=DEFAULT_MODEL_NAME, gguf_sha256=DEFAULT_GGUF_SHA256,
                   conversion_version=CONVERSION_VERSION)
    return folder


def test_default_cache_loads_with_the_default_fingerprint(tiny_model_dir: Path, tmp_path: Path) -> None:
    fake_default_cache(tiny_model_dir, tmp_path)
    scorer = load_scorer("default", device="cpu", dtype="fp32", runtime="torch", cache_dir=tmp_path)
    assert scorer.loaded.source.is_default
    assert scorer.fingerprint == fingerprint_default(DEFAULT_GGUF_SHA256, CONVERSION_VERSION).short


def garble(path: Path) -> None:
    path.write_bytes(b"\x00garbled" * (path.stat().st_size // 8) + b"\x00" * (path.stat().st_size % 8))


@pytest.mark.parametrize(
    "damage",
    [
        lambda folder: (folder / "model.safetensors").unlink(),
        lambda folder: (folder / "config.json").write_text("{}" + " " * 10),
        lambda folder: garble(folder / "model.safetensors"),
        lambda folder: garble(folder / "tokenizer.json"),
        lambda folder: garble(folder / "config.json"),
        lambda folder: (folder / MANIFEST_NAME).write_text("{"),
        lambda folder: (folder / MANIFEST_NAME).unlink(),
    ],
    ids=["missing-weights", "wrong-size", "garbled-weights", "garbled-tokenizer", "garbled-config",
         "garbled-manifest", "missing-manifest"],
)
def test_corrupted_default_cache_is_a_model_error(tiny_model_dir: Path, tmp_path: Path, damage) -> None:
    folder = fake_default_cache(tiny_model_dir, tmp_path)
    damage(folder)
    with pytest.raises(ModelError) as raised:
        load_scorer(None, device="cpu", dtype="fp32", runtime="torch", cache_dir=tmp_path)
    message = str(raised.value)
    assert str(folder) in message
    assert "smscan model pull --force" in message
    assert "\n" not in message


def test_batch_size_defaults_per_device(tiny_model_dir: Path, tmp_path: Path) -> None:
    scorer = load_scorer(str(tiny_model_dir), device="cpu", dtype="fp32", cache_dir=tmp_path)
    assert scorer.settings.batch_size == 1
    assert load_scorer(str(tiny_model_dir), device="cpu", batch_size=6, cache_dir=tmp_path).settings.batch_size == 6
