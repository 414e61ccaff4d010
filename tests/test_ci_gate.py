"""The CI gate (hooks/ci-diff, run by action.yml and hooks/gitlab-ci.yml) on real repositories.

smscan runs in a subprocess through a wrapper with the fake scorer (tests/scorers.py), scanning
raw surprise at threshold 3 from the repository's config.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import commit_files, run_git, write_files
from tests.scorers import TEST_CONFIG, write_smscan_wrapper

ROOT = Path(__file__).resolve().parents[1]
GATE = ROOT / "hooks" / "ci-diff"
SECRET = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"  # what the fake scorer flags
RANDOM_KEY = "9fQ2xZ7mK4pL8wR3vN6tY1bC5hJ0dG2s"
# Read before any fixture points HOME at a temporary folder.
MODEL_CACHE = os.environ.get("SMSCAN_CACHE") or str(
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "smscan"
)


@pytest.fixture
def gate_env(tmp_path: Path, git_env: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    write_smscan_wrapper(bin_dir, fake=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SMSCAN_")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env['PATH']}"
    env["CI"] = "true"
    return env


@pytest.fixture
def pull_request(git_repo: Path) -> Path:
    """A repository whose branch `feature` adds a file with a secret to `main`'s one clean commit."""
    write_files(git_repo, {".smscan.toml": TEST_CONFIG})
    commit_files(git_repo, {"app.py": "value = 1\n"}, "start")
    run_git(git_repo, "branch", "-M", "main")
    run_git(git_repo, "checkout", "-q", "-b", "feature")
    commit_files(git_repo, {"keys.py": f"key = '{SECRET}'\n"}, "add a key")
    return git_repo


def gate(repo: Path, env: dict[str, str], **variables: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(GATE)], cwd=repo, env={**env, **variables}, capture_output=True, text=True, check=False, timeout=300
    )


def test_findings_fail_the_gate_with_a_log_report_sarif_and_a_next_step(pull_request: Path, gate_env) -> None:
    result = gate(pull_request, gate_env, SMSCAN_BASE="main")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "keys.py" in result.stdout
    assert SECRET not in result.stdout + result.stderr  # CI logs are redacted
    assert "smscan explain" in result.stderr and "baseline" in result.stderr
    sarif = json.loads((pull_request / "smscan.sarif").read_text())
    [run] = sarif["runs"]
    assert [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]] == ["keys.py"]
    assert SECRET not in (pull_request / "smscan.sarif").read_text()


def test_a_clean_range_passes_and_still_writes_sarif(pull_request: Path, gate_env) -> None:
    run_git(pull_request, "checkout", "-q", "main")
    run_git(pull_request, "checkout", "-q", "-b", "clean")
    commit_files(pull_request, {"app.py": "value = 2\n"}, "tweak")
    result = gate(pull_request, gate_env, SMSCAN_BASE="main", SMSCAN_SARIF="out/report.sarif")
    assert result.returncode == 0, result.stdout + result.stderr
    assert json.loads((pull_request / "out" / "report.sarif").read_text())["runs"][0]["results"] == []


def test_inputs_pass_to_smscan(pull_request: Path, gate_env) -> None:
    write_files(pull_request, {"strict.toml": 'threshold = 20.0\nkinds = ["surprise"]\n'})
    strict = gate(pull_request, gate_env, SMSCAN_BASE="main", SMSCAN_CONFIG="strict.toml", SMSCAN_SARIF="")
    assert strict.returncode == 0, strict.stdout + strict.stderr
    assert not (pull_request / "smscan.sarif").exists()
    # The fake scorer has no calibrated dead-code threshold: the kinds input reached the scan.
    kinds = gate(pull_request, gate_env, SMSCAN_BASE="main", SMSCAN_KINDS="dead-code")
    assert kinds.returncode == 2 and "dead-code threshold" in kinds.stderr
    extra = gate(pull_request, gate_env, SMSCAN_BASE="main", SMSCAN_ARGS="--format json --quiet", SMSCAN_SARIF="")
    assert extra.returncode == 1 and json.loads(extra.stdout)["findings"], extra.stderr


@pytest.mark.parametrize(
    "variables",
    [
        {"SMSCAN_BASE": "main", "SMSCAN_ARGS": "$(touch PWNED) `touch PWNED` ; touch PWNED"},
        {"SMSCAN_BASE": "main;touch PWNED"},
        {"SMSCAN_BASE": "main", "SMSCAN_KINDS": "credential$(touch PWNED)"},
        {"SMSCAN_BASE": "main", "SMSCAN_SARIF": "x; touch PWNED"},
    ],
)
def test_inputs_cannot_run_commands(pull_request: Path, gate_env, variables: dict[str, str]) -> None:
    result = gate(pull_request, gate_env, **variables)
    assert not (pull_request / "PWNED").exists()
    assert "Traceback" not in result.stderr


def test_a_missing_base_is_one_clear_error(pull_request: Path, gate_env) -> None:
    result = gate(pull_request, gate_env)
    assert result.returncode == 2
    assert result.stderr.strip().startswith("smscan ci-diff: SMSCAN_BASE is not set")


def test_the_action_passes_inputs_only_through_the_environment() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    steps = action["runs"]["steps"]
    scripts = [step["run"] for step in steps if "run" in step]
    assert scripts and all("${{" not in script for script in scripts)
    [scan] = [step for step in steps if "ci-diff" in step.get("run", "")]
    assert set(scan["env"]) >= {"SMSCAN_BASE", "SMSCAN_KINDS", "SMSCAN_BASELINE", "SMSCAN_CONFIG", "SMSCAN_ARGS"}
    assert os.access(GATE, os.X_OK)


def test_the_gitlab_template_runs_the_same_gate() -> None:
    job = yaml.safe_load((ROOT / "hooks" / "gitlab-ci.yml").read_text())["smscan"]
    assert job["variables"]["GIT_DEPTH"] == "0"
    assert any("smscan-ci-diff" in line and "CI_MERGE_REQUEST_DIFF_BASE_SHA" in line for line in job["script"])


@pytest.mark.model
def test_real_model_gate_blocks_a_key_a_pull_request_adds(tmp_path: Path, git_repo: Path, gate_env) -> None:
    # The default kinds and packaged thresholds, with the real default model.
    bin_dir = tmp_path / "real-bin"
    bin_dir.mkdir()
    write_smscan_wrapper(bin_dir, fake=False)
    env = {**gate_env, "PATH": f"{bin_dir}{os.pathsep}{gate_env['PATH']}", "SMSCAN_CACHE": MODEL_CACHE}
    commit_files(git_repo, {"settings.py": "DEBUG = False\nTIMEOUT = 30\n"}, "start")
    run_git(git_repo, "branch", "-M", "main")
    run_git(git_repo, "checkout", "-q", "-b", "feature")
    commit_files(git_repo, {"settings.py": f'DEBUG = False\nTIMEOUT = 30\nAPI_KEY = "{RANDOM_KEY}"\n'}, "key")
    result = gate(git_repo, env, SMSCAN_BASE="main")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "credential" in result.stdout and RANDOM_KEY not in result.stdout + result.stderr
    [run] = json.loads((git_repo / "smscan.sarif").read_text())["runs"]
    assert [r["ruleId"] for r in run["results"]] == ["credential"]
