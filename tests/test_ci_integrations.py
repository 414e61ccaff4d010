"""The CI integrations as written (issue #15): the Action's and the GitLab job's own scripts run
locally on a real pull-request repository, and the README's Action and pre-commit.ci notes match
the files they describe.

The scripts run with the fake scorer (tests/scorers.py) through the `gate_env` and
`pull_request` fixtures of tests/test_ci_gate.py.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import yaml

from tests.test_ci_gate import SECRET, gate_env, pull_request  # noqa: F401  (fixtures)

ROOT = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
README = (ROOT / "README.md").read_text()
_EXPRESSION = re.compile(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}")


def _step_env(step: dict, inputs: dict[str, str]) -> dict[str, str]:
    """A step's env as GitHub would set it: each `${{ inputs.X }}` replaced by the input's value."""
    def value(name: str) -> str:
        return inputs.get(name, str(ACTION["inputs"][name].get("default", "")))

    return {key: _EXPRESSION.sub(lambda m: value(m.group(1)), str(raw)) for key, raw in step.get("env", {}).items()}


def test_the_actions_scan_step_runs_as_written(pull_request: Path, gate_env: dict[str, str]) -> None:  # noqa: F811
    [scan] = [step for step in ACTION["runs"]["steps"] if "ci-diff" in step.get("run", "")]
    env = {**gate_env, **_step_env(scan, {"base": "main"}), "GITHUB_ACTION_PATH": str(ROOT)}

    result = subprocess.run([scan["shell"], "-c", scan["run"]], cwd=pull_request, env=env,
                            capture_output=True, text=True, check=False, timeout=300)

    assert result.returncode == 1, result.stdout + result.stderr
    assert "keys.py" in result.stdout and SECRET not in result.stdout + result.stderr
    sarif = json.loads((pull_request / ACTION["inputs"]["sarif"]["default"]).read_text())
    assert [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]] == ["keys.py"]


def test_the_gitlab_jobs_script_runs_as_written(pull_request: Path, gate_env: dict[str, str]) -> None:  # noqa: F811
    job = yaml.safe_load((ROOT / "hooks" / "gitlab-ci.yml").read_text())["smscan"]
    # What the README tells a user to do: copy hooks/ci-diff to ci/smscan-ci-diff.
    (pull_request / "ci").mkdir()
    (pull_request / "ci" / "smscan-ci-diff").write_bytes((ROOT / "hooks" / "ci-diff").read_bytes())
    (pull_request / "ci" / "smscan-ci-diff").chmod(0o755)
    variables = {key: value.replace("$CI_PROJECT_DIR", str(pull_request)) for key, value in job["variables"].items()}
    env = {**gate_env, **variables, "CI_MERGE_REQUEST_DIFF_BASE_SHA": "main"}
    # The install lines need the network; the copy check is the one before_script line that runs here.
    [check] = [line for line in job["before_script"] if "smscan-ci-diff" in line]

    results = [subprocess.run(["bash", "-c", line], cwd=pull_request, env=env, capture_output=True, text=True,
                              check=False, timeout=300) for line in [check, *job["script"]]]

    assert results[0].returncode == 0, results[0].stderr
    assert results[-1].returncode == 1, results[-1].stdout + results[-1].stderr
    assert (pull_request / job["artifacts"]["paths"][0]).exists()


def test_the_readme_shows_the_action_with_inputs_it_has() -> None:
    blocks = re.findall(r"```yaml\n(.*?)```", README, re.DOTALL)
    workflows = [yaml.safe_load(block) for block in blocks if "uses: OWNER/smscan@" in block]
    assert workflows, "README shows no workflow using the Action"
    steps = [step for job in workflows[0]["jobs"].values() for step in job["steps"]]
    [ours] = [step for step in steps if step.get("uses", "").startswith("OWNER/smscan@")]
    assert set(ours.get("with", {})) <= set(ACTION["inputs"])
    # Every input is named somewhere in the README, so a user can find it.
    assert [name for name in ACTION["inputs"] if not re.search(rf"\b{name}\b", README)] == []


def test_the_precommit_ci_note_skips_a_hook_that_exists() -> None:
    hook_ids = {hook["id"] for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    section = README.split("### pre-commit.ci", 1)[1].split("\n## ", 1)[0]
    skipped = re.search(r"ci: \{skip: \[([\w-]+)\]\}", section)
    assert skipped and skipped.group(1) in hook_ids
    assert "model" in section and "network" in section  # says why: the model download
