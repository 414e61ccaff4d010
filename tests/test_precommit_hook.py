"""The hooks with real git and the real `pre-commit` tool, in temporary repositories.

The hook runs in a subprocess, where the pytest fixture cannot reach, so an ``smscan`` wrapper on
PATH runs this checkout's CLI with the fake scorer installed (tests/scorers.py) and
raw surprise at threshold 3 from the repository's config (``TEST_CONFIG``). One test, marked ``model``, runs the real
default model instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import commit_files, run_git, stage_files, write_files
from tests.scorers import TEST_CONFIG, write_smscan_wrapper

ROOT = Path(__file__).resolve().parents[1]
SECRET = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"  # what the fake scorer flags
RANDOM_KEY = "9fQ2xZ7mK4pL8wR3vN6tY1bC5hJ0dG2s"  # 32 random characters
# The default model gives a random key about 4.3 nats a character token, so its most surprising
# 4-token window scores about 5.2 nats: under the default raw threshold (6.0), over 5.0, while the
# clean line stays under 5.0 (measured with the default model). The real-model test sets 5.0.
REAL_MODEL_THRESHOLD = "5.0"

# Read before any fixture points HOME at a temporary folder.
MODEL_CACHE = os.environ.get("SMSCAN_CACHE") or str(
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "smscan"
)

pytestmark = pytest.mark.skipif(shutil.which("pre-commit") is None, reason="pre-commit is not installed")


@pytest.fixture
def hook_env(tmp_path: Path, git_env: Path) -> dict[str, str]:
    """Environment for git and pre-commit subprocesses: the smscan wrapper (fake scorer) first on PATH."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    write_smscan_wrapper(bin_dir, fake=True)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    env.pop("CI", None)
    return env


@pytest.fixture
def project(git_repo: Path) -> Path:
    write_files(git_repo, {".smscan.toml": TEST_CONFIG})
    commit_files(git_repo, {"app.py": "".join(f"value_{i} = {i}\n" for i in range(1, 13))}, "start")
    return git_repo


def run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=300)


def try_repo(project: Path, env: dict[str, str], *extra: str) -> subprocess.CompletedProcess[str]:
    return run(["pre-commit", "try-repo", str(ROOT), "smscan", "--verbose", *extra], project, env)


def test_try_repo_blocks_a_staged_secret_and_passes_a_clean_change(project: Path, hook_env) -> None:
    stage_files(project, {"app.py": (project / "app.py").read_text() + f"key = '{SECRET}'\n"})
    blocked = try_repo(project, hook_env)
    assert blocked.returncode == 1, blocked.stdout + blocked.stderr
    assert "app.py" in blocked.stdout and "surprise" in blocked.stdout
    stage_files(project, {"app.py": (project / "app.py").read_text().replace(SECRET, "settings.KEY")})
    passed = try_repo(project, hook_env)
    assert passed.returncode == 0, passed.stdout + passed.stderr


def test_try_repo_commit_reports_only_the_changed_lines(project: Path, hook_env) -> None:
    commit_files(project, {"old.py": f"old = '{SECRET}'\n" + "x = 1\n" * 10}, "an old secret")
    stage_files(project, {"old.py": (project / "old.py").read_text() + "y = 2\n"})
    result = try_repo(project, hook_env)
    assert result.returncode == 0, result.stdout + result.stderr


def test_try_repo_all_files_scans_whole_files(project: Path, hook_env) -> None:
    commit_files(project, {"old.py": f"old = '{SECRET}'\n"}, "an old secret")
    result = try_repo(project, hook_env, "--all-files")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "old.py" in result.stdout


def test_pre_commit_refs_scan_what_the_range_added(project: Path, hook_env) -> None:
    base = run_git(project, "rev-parse", "HEAD").strip()
    commit_files(project, {"old.py": f"old = '{SECRET}'\n"}, "pushed secret")
    result = try_repo(project, hook_env, "--from-ref", base, "--to-ref", "HEAD")
    assert result.returncode == 1 and "old.py" in result.stdout, result.stdout + result.stderr


def test_installed_plain_hook_blocks_a_commit_with_a_secret(project: Path, hook_env) -> None:
    installed = run(["smscan", "install-hook"], project, hook_env)
    assert installed.returncode == 0, installed.stderr
    write_files(project, {"app.py": (project / "app.py").read_text() + f"key = '{SECRET}'\n"})
    blocked = run(["git", "commit", "-q", "-am", "add a key"], project, hook_env)
    assert blocked.returncode != 0
    assert "app.py" in blocked.stdout + blocked.stderr
    assert run_git(project, "log", "--format=%s", "-1").strip() == "start"
    write_files(project, {"app.py": (project / "app.py").read_text().replace(SECRET, "settings.KEY")})
    passed = run(["git", "commit", "-q", "-am", "use settings"], project, hook_env)
    assert passed.returncode == 0, passed.stdout + passed.stderr


@pytest.mark.model
def test_real_model_blocks_a_random_api_key_in_a_real_commit(tmp_path: Path, git_repo: Path, git_env: Path) -> None:
    bin_dir = tmp_path / "real-bin"
    bin_dir.mkdir()
    write_smscan_wrapper(bin_dir, fake=False)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    env["SMSCAN_CACHE"] = MODEL_CACHE  # the user's model cache, not the test's empty HOME
    assert len(RANDOM_KEY) == 32
    write_files(git_repo, {".smscan.toml": f'threshold = {REAL_MODEL_THRESHOLD}\nkinds = ["surprise"]\n'})
    commit_files(git_repo, {"settings.py": "DEBUG = False\nTIMEOUT = 30\n"}, "start")
    keyed = f"DEBUG = False\nTIMEOUT = 30\nAPI_KEY = \"{RANDOM_KEY}\"\n"
    clean = "DEBUG = False\nTIMEOUT = 30\nRETRIES = 3\n"

    # pre-commit runs the hook from this repository's manifest on the staged change.
    stage_files(git_repo, {"settings.py": keyed})
    tried = run(["pre-commit", "try-repo", str(ROOT), "smscan", "--verbose"], git_repo, env)
    assert tried.returncode == 1, tried.stdout + tried.stderr
    assert "settings.py" in tried.stdout

    # `git commit` with the installed plain hook: blocked with the key, through without it.
    assert run(["smscan", "install-hook"], git_repo, env).returncode == 0
    blocked = run(["git", "commit", "-q", "-m", "add a key"], git_repo, env)
    assert blocked.returncode != 0, blocked.stdout + blocked.stderr
    assert "settings.py" in blocked.stdout + blocked.stderr
    stage_files(git_repo, {"settings.py": clean})
    passed = run(["git", "commit", "-q", "-m", "add retries"], git_repo, env)
    assert passed.returncode == 0, passed.stdout + passed.stderr
