"""Thread counts for a shared machine: never more than the allowed cores, the environment's
choice when the config leaves it to the machine, fewer torch threads when the machine is busy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from smscan.cli import main
from smscan.errors import ConfigError
from smscan.model.load import load_scorer
from smscan.model.threads import allowed_cores, choose_threads
from tests.conftest import commit_files

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("asked", "environ", "cores", "idle", "expected"),
    [
        (8, {}, 2, 2.0, 2),  # never more than the allowed cores
        (1, {}, 8, 8.0, 1),
        (3, {"SMSCAN_THREADS": "1"}, 8, 8.0, 3),  # the setting wins over the environment
        (0, {"SMSCAN_THREADS": "2", "OMP_NUM_THREADS": "1"}, 8, 0.0, 2),
        (0, {"SMSCAN_THREADS": "16"}, 4, 8.0, 4),
        (0, {"SMSCAN_THREADS": "0", "OMP_NUM_THREADS": "3,1"}, 8, 0.0, 3),  # 0: automatic
        (0, {"OMP_NUM_THREADS": "junk"}, 2, 2.0, 2),  # not a count: ignored
        (0, {}, 16, 16.0, 4),  # automatic: at most 4
        (0, {}, 2, 1.9, 2),  # an idle machine: every allowed core
        (0, {}, 2, 0.6, 1),  # busy: torch's threads would wait on each other
        (0, {}, 2, -4.0, 1),  # overloaded: still one
        (0, {}, 2, -4.0, 1),  # CTranslate2's threads wait on each other too
        (0, {}, 2, 1.9, 2),
        (0, {}, 1, 8.0, 1),
    ],
)
def test_choose_threads(asked: int, environ: dict[str, str], cores: int, idle: float, expected: int) -> None:
    assert choose_threads(asked, environ=environ, cores=cores, idle=idle) == expected


@pytest.mark.parametrize("value", ["abc", "-1", "1.5", "99999"])
def test_a_bad_smscan_threads_is_refused(value: str) -> None:
    with pytest.raises(ConfigError, match=f"SMSCAN_THREADS must be an integer 0..1024 .*got {value!r}"):
        choose_threads(0, environ={"SMSCAN_THREADS": value}, cores=2, idle=2.0)


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this platform")
def test_the_cpu_affinity_bounds_the_count() -> None:
    """A process pinned to one core (as taskset or a container cpuset pins it) gets one thread,
    whatever it asks for and however many cores the machine has."""
    code = (
        "import os; os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]}); "
        "from smscan.model.threads import allowed_cores, choose_threads; "
        "print(allowed_cores(), choose_threads(8, environ={}), "
        "choose_threads(0, environ={}))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert out.split() == ["1", "1", "1"]


def test_load_scorer_sets_torch_threads_within_the_allowed_cores(
    tiny_model_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch

    before = torch.get_num_threads()
    try:
        load_scorer(str(tiny_model_dir), device="cpu", dtype="fp32", cache_dir=tmp_path, threads=4096)
        assert torch.get_num_threads() == allowed_cores()
        monkeypatch.setenv("SMSCAN_THREADS", "1")
        load_scorer(str(tiny_model_dir), device="cpu", dtype="fp32", cache_dir=tmp_path)
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


def test_a_bad_smscan_threads_is_one_clear_error(
    git_repo: Path, tiny_model_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    commit_files(git_repo, {"a.py": "a = 1\n"})
    monkeypatch.chdir(git_repo)
    monkeypatch.setenv("SMSCAN_THREADS", "lots")
    code = main(["repo", ".", "--model", str(tiny_model_dir), "--kinds", "surprise", "--no-cache"])
    err = capsys.readouterr().err
    assert code == 2 and "SMSCAN_THREADS must be an integer" in err and "Traceback" not in err


@pytest.mark.parametrize("raw", ["²", "٣"])  # digits to str.isdigit, not to int() or OpenMP
def test_non_ascii_digits_are_a_config_error_or_ignored_never_a_traceback(raw: str) -> None:
    with pytest.raises(ConfigError, match="SMSCAN_THREADS must be an integer"):
        choose_threads(0, environ={"SMSCAN_THREADS": raw}, cores=2, idle=2.0)
    assert choose_threads(0, environ={"OMP_NUM_THREADS": raw}, cores=2, idle=2.0) == 2


def test_idle_cores_count_the_other_processes_running_now(monkeypatch: pytest.MonkeyPatch) -> None:
    from smscan.model import threads

    monkeypatch.setattr(threads.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(threads, "_running_now", lambda: 1.0)  # this process alone
    assert threads.idle_cores() == 2.0
    assert threads.choose_threads(0, environ={}, cores=2) == 2
    monkeypatch.setattr(threads, "_running_now", lambda: 3.0)  # two others hold both cores
    assert threads.choose_threads(0, environ={}, cores=2) == 1
    # Where the count is unknown, the one-minute load average stands in.
    monkeypatch.setattr(threads, "_running_now", lambda: None)
    monkeypatch.setattr(threads.os, "getloadavg", lambda: (1.6, 1.0, 1.0))
    assert threads.idle_cores() == pytest.approx(0.4)


@pytest.mark.skipif(not os.path.exists("/proc/stat"), reason="no /proc/stat on this platform")
def test_the_running_count_includes_this_process() -> None:
    from smscan.model.threads import _running_now

    count = _running_now(samples=3, pause_s=0.0)
    assert count is not None and count >= 1
