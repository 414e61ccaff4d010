"""A warm worker keeps what it judged of unchanged lines and functions (``slots.line_slots``,
``python_dead``'s memos) from one commit to the next: its answer must stay the answer of a fresh
process when the remembered code moves or changes, and when the config or baseline changes."""

from __future__ import annotations

import json

from smscan.rules.thresholds_file import packaged_thresholds
from tests.conftest import commit_files, init_repo, run_git, stage_files
from tests.scorers import RandomWordScorer
from tests.worker.conftest import Workers
from tests.worker.test_thin_client import entry, findings, heavy_modules, scans_served

# Random-looking words are what the fake scorer finds surprising (tests/scorers.py); the dead
# code reads names of 16 characters (no token run of a credential), the key is a string.
KEY = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"
CREDENTIAL_THRESHOLD = 0.4
CONFIG = 'kinds = ["credential", "dead-code"]\nworker = "use"\n'
BASE = '''import os


class Store:
    def put(self, key, value):
        spare = len(Wm4Qz8Rt2Lp6Xv9B)
        return value

    def get(self, key):
        return os.environ.get(key)


def helper(a):
    unused = a * 2
    return a
'''
ADDED = f'''

def added(a):
    total = len(Zr5Tq1Wm8Kx3Pv7L)
    return a


TOKEN = "{KEY}"
'''


def _planted(workers: Workers) -> None:
    """A repository whose thresholds file holds the packaged credential and dead-code rules,
    calibrated (as it says) for the fake scorer both the worker and the full command use."""
    init_repo(workers.cwd)
    fake = RandomWordScorer()
    packaged = packaged_thresholds()
    kinds = {
        kind: {**packaged["kinds"][kind], "fingerprint": fake.fingerprint, "model": "random-word-scorer", "scoring": fake.settings.key()}
        for kind in ("credential", "dead-code")
    }
    # The fake scores a whole word as one token: a random value's surprise per character is low.
    kinds["credential"]["threshold"] = CREDENTIAL_THRESHOLD
    thresholds = json.dumps({**packaged, "kinds": kinds})
    commit_files(workers.cwd, {".smscan.toml": CONFIG, ".smscan/thresholds.json": thresholds, "store.py": BASE})


def _alone(workers: Workers) -> list[dict[str, object]]:
    """The same command line in this process, with the worker off (a config saying so)."""
    off = workers.cwd.parent / "off.toml"
    off.write_text((workers.cwd / ".smscan.toml").read_text(encoding="utf-8").replace('"use"', '"off"'), encoding="utf-8")
    run = entry(workers, "staged", "-f", "json", "--config", str(off))
    assert run.returncode in (0, 1), run.stderr
    return findings(run)


def _thin(workers: Workers) -> list[dict[str, object]]:
    run = entry(workers, "staged", "-f", "json", "--config", str(workers.cwd / ".smscan.toml"), fake=False)
    assert run.returncode in (0, 1) and heavy_modules(run) == [] and "ignored" not in run.stderr, run.stderr
    return findings(run)


def test_a_warm_worker_rescanning_moved_and_changed_code_answers_as_a_fresh_process(workers: Workers) -> None:
    _planted(workers)
    stage_files(workers.cwd, {"store.py": BASE + ADDED})
    workers.start()
    first = _thin(workers)
    assert first == _alone(workers)
    assert {finding["kind"] for finding in first} == {"credential", "dead-code"}

    # Every remembered line and function moves down; one remembered method changes; new code.
    moved = "# header\n# two lines\n" + BASE.replace("return value", "spare2 = value\n        return value") + ADDED.replace(
        "added", "again"
    )
    stage_files(workers.cwd, {"store.py": moved})
    second = _thin(workers)
    assert second == _alone(workers)
    assert second != first and any(finding["start"]["line"] > 20 for finding in second)  # type: ignore[index]

    # A baseline named by a changed config is read on the next request, as a fresh process reads it.
    baseline = workers.smscan("baseline", ".", fake=True)
    assert baseline.returncode == 0, baseline.stderr
    (workers.cwd / ".smscan.toml").write_text(CONFIG + 'baseline = ".smscan-baseline.json"\n', encoding="utf-8")
    assert _thin(workers) == _alone(workers) == []
    (workers.cwd / ".smscan.toml").write_text(CONFIG, encoding="utf-8")
    assert _thin(workers) == second
    assert scans_served(workers) == 4


def test_a_rescan_after_a_commit_reads_the_new_head(workers: Workers) -> None:
    _planted(workers)
    stage_files(workers.cwd, {"store.py": BASE + ADDED})
    workers.start()
    assert _thin(workers)
    run_git(workers.cwd, "commit", "-q", "-m", "take the change")
    assert _thin(workers) == _alone(workers) == []  # nothing staged any more
    stage_files(workers.cwd, {"settings.py": f"API_TOKEN = '{KEY}'\n"})
    assert _thin(workers) == _alone(workers) != []

