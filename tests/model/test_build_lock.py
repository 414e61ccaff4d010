"""Two processes that find the default model missing at once convert it once: the second waits
on the build lock, then uses the first one's folder (real processes, a stand-in conversion)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

from smscan.model import pull
from smscan.model.store import build_lock

ROOT = Path(__file__).resolve().parents[2]
FAKE_GGUF = b"GGUF" + bytes(range(256)) * 16

# Pulls with FAKE_GGUF pinned and a conversion that logs its pid and, in the first process,
# holds on until the test creates the release file (so the second surely finds no model yet).
_PULL = """
import hashlib, os, sys, time
from pathlib import Path
sys.path.insert(0, {root!r})
from smscan.model import pull
gguf, cache, log, release = (Path(arg) for arg in sys.argv[1:5])
pull.DEFAULT_GGUF_SHA256 = hashlib.sha256(gguf.read_bytes()).hexdigest()
def convert(source, out, report):
    with log.open("a") as stream:
        stream.write(f"{{os.getpid()}}\\n")
    while not release.exists():
        time.sleep(0.02)
    (out / "model.safetensors").write_bytes(b"w" * 4096)
    (out / "tokenizer.json").write_text("{{}}")
pull.convert_gguf = convert
def report(stage, done, total):
    print(stage, flush=True)
print(pull.pull_default_model(from_file=gguf, cache_dir=cache, progress=report, ct2_dtypes=()), flush=True)
"""


def _pull_command(tmp_path: Path) -> tuple[list[str], Path, Path, Path]:
    """A child pull of a fake GGUF (the command, its cache, its conversions log, its release file)."""
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(FAKE_GGUF)
    cache, log, release = tmp_path / "cache", tmp_path / "conversions.log", tmp_path / "release"
    script = tmp_path / "pull.py"
    script.write_text(_PULL.format(root=str(ROOT)))
    return [sys.executable, str(script), str(gguf), str(cache), str(log), str(release)], cache, log, release


def _wait_for(predicate, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_two_pulls_at_once_convert_once_and_share_the_folder(tmp_path: Path) -> None:
    command, cache, log, release = _pull_command(tmp_path)
    first = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for(lambda: log.exists() and log.read_text().strip(), "the first conversion to start")
    second = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert second.stdout is not None
    assert second.stdout.readline().strip() == "wait"  # blocked on the lock, not converting
    release.touch()
    out_first, err_first = first.communicate(timeout=60)
    out_second, err_second = second.communicate(timeout=60)

    assert first.returncode == 0, err_first
    assert second.returncode == 0, err_second
    assert len(log.read_text().split()) == 1  # one conversion for two pulls
    folder = cache / "models" / pull.DEFAULT_MODEL_NAME
    assert out_first.splitlines()[-1] == out_second.splitlines()[-1] == str(folder)
    assert "verify" in out_second  # it checked the folder the first one installed
    assert [p.name for p in folder.parent.iterdir()] == [pull.DEFAULT_MODEL_NAME]  # no staging left
    pinned = hashlib.sha256(FAKE_GGUF).hexdigest()
    original = pull.DEFAULT_GGUF_SHA256
    try:
        pull.DEFAULT_GGUF_SHA256 = pinned
        assert pull.is_default_cache_intact(folder)
    finally:
        pull.DEFAULT_GGUF_SHA256 = original


def test_the_lock_of_a_killed_builder_is_released(tmp_path: Path) -> None:
    final = tmp_path / "cache" / "models" / "m"
    holder = subprocess.Popen(
        [sys.executable, "-c", (
            f"import sys, time; sys.path.insert(0, {str(ROOT)!r}); from pathlib import Path; "
            "from smscan.model.store import build_lock\n"
            f"with build_lock(Path({str(final)!r})):\n    print('held', flush=True); time.sleep(600)"
        )],
        stdout=subprocess.PIPE, text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    waits: list[bool] = []
    holder.kill()
    holder.wait()
    holder.stdout.close()
    with build_lock(final, on_wait=lambda: waits.append(True)) as waited:
        assert os.path.exists(final.parent.parent / "locks" / "m.lock")
    assert (waited, waits) == (False, [])


def test_a_pull_killed_mid_conversion_leaves_nothing_the_next_pull_does_not_repair(tmp_path: Path) -> None:
    command, cache, log, release = _pull_command(tmp_path)
    killed = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait_for(lambda: log.exists() and log.read_text().strip(), "the conversion to start")
    killed.kill()  # SIGKILL: no cleanup runs
    killed.wait()
    models = cache / "models"
    left = sorted(p.name for p in models.iterdir())
    assert left and all(name.startswith(f".tmp-{pull.DEFAULT_MODEL_NAME}-") for name in left)  # no half model

    release.touch()
    again = subprocess.run(command, capture_output=True, text=True, timeout=60)

    assert again.returncode == 0, again.stderr
    assert [p.name for p in models.iterdir()] == [pull.DEFAULT_MODEL_NAME]  # the leftovers are gone
    assert len(log.read_text().split()) == 2
