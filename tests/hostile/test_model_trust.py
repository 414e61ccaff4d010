"""A model folder planted with a malicious pickle and remote code: neither is loaded nor run.

The folder holds the tiny model's real safetensors weights, plus pickles that create a file when
unpickled (under the names transformers loads pickled weights and arguments from) and an
``auto_map`` in ``config.json`` and ``tokenizer_config.json`` naming a module of the folder that
creates a file when imported. smscan loads safetensors only and never trusts remote code, so the
scan works and neither file appears; the plants themselves are shown to be live.
"""

from __future__ import annotations

import json
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from smscan.cli import main
from smscan.model.load import load_scorer
from tests.conftest import commit_files
from tests.fakes import build_tiny_model


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny-model"))


class _Plant:
    """Unpickling it calls ``open(marker, "w")``: the file appears."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (str(self.marker), "w"))


def plant(tiny_model_dir: Path, tmp_path: Path) -> tuple[Path, Path, Path]:
    folder = tmp_path / "planted-model"
    shutil.copytree(tiny_model_dir, folder)
    ran_pickle, ran_code = tmp_path / "pickle-ran", tmp_path / "remote-code-ran"
    payload = pickle.dumps(_Plant(ran_pickle))
    for name in ("pytorch_model.bin", "training_args.bin", "optimizer.pt"):
        (folder / name).write_bytes(payload)
    (folder / "evil.py").write_text(
        f"open({str(ran_code)!r}, 'w').close()\n"
        "from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast\n"
        "class EvilConfig(LlamaConfig):\n    pass\n"
        "class EvilModel(LlamaForCausalLM):\n    config_class = EvilConfig\n"
        "class EvilTokenizer(PreTrainedTokenizerFast):\n    pass\n"
    )
    config = json.loads((folder / "config.json").read_text())
    config["auto_map"] = {"AutoConfig": "evil.EvilConfig", "AutoModelForCausalLM": "evil.EvilModel"}
    (folder / "config.json").write_text(json.dumps(config))
    tokenizer_config = json.loads((folder / "tokenizer_config.json").read_text())
    tokenizer_config["auto_map"] = {"AutoTokenizer": [None, "evil.EvilTokenizer"]}
    (folder / "tokenizer_config.json").write_text(json.dumps(tokenizer_config))
    return folder, ran_pickle, ran_code


def test_the_plants_are_live(tiny_model_dir: Path, tmp_path: Path) -> None:
    """Unpickling the weights file or importing the module does create the files."""
    folder, ran_pickle, ran_code = plant(tiny_model_dir, tmp_path)
    pickle.loads((folder / "pytorch_model.bin").read_bytes()).close()  # noqa: S301 - the point of the test
    subprocess.run([sys.executable, "-c", "import evil"], cwd=folder, check=True, capture_output=True)
    assert ran_pickle.exists() and ran_code.exists()


def test_a_planted_pickle_and_auto_map_are_neither_loaded_nor_run(tiny_model_dir: Path, tmp_path: Path) -> None:
    folder, ran_pickle, ran_code = plant(tiny_model_dir, tmp_path)
    scorer = load_scorer(str(folder), device="cpu", dtype="fp32", cache_dir=tmp_path / "cache")
    [scores] = scorer.score_texts(["x = 1\n"])
    assert len(scores.nll) > 1
    assert type(scorer.loaded.model).__module__.startswith("transformers.models.llama")
    assert type(scorer.loaded.tokenizer).__module__.startswith("transformers.")
    assert not ran_pickle.exists() and not ran_code.exists()
    assert "evil" not in sys.modules


def test_a_scan_with_the_planted_model_runs_nothing(
    tiny_model_dir: Path, tmp_path: Path, git_repo: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    folder, ran_pickle, ran_code = plant(tiny_model_dir, tmp_path)
    commit_files(git_repo, {"a.py": "a = 1\n"})
    monkeypatch.chdir(git_repo)
    code = main(["repo", ".", "--model", str(folder), "--kinds", "surprise", "--threshold", "99", "--no-cache"])
    assert code == 0, capsys.readouterr().err
    assert not ran_pickle.exists() and not ran_code.exists()
