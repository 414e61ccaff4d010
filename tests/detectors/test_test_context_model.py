"""Made-up values in test files, with the real default model and the packaged thresholds (marked `model`).

The python-dotenv 1.0.1 line the first-hour report (issue #15) found flagged, in a test file and
in a source file, beside a random key in a test file. One small scan.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from smscan.cli import main

pytestmark = pytest.mark.model

KEY = "Vq3XmR8kPz2LwN7tYb5HcJ4sQe9Df6Gu"
DOTENV_TEST = '''import pytest

from dotenv.cli import get_cli_string as c


def test_to_cli_string():
    assert c() == 'dotenv'
    assert c(path='/etc/.env') == 'dotenv -f /etc/.env'
    assert c(action='set', key='SECRET', value='=@asdfasf') == 'dotenv set SECRET =@asdfasf'
'''
CLIENT_TEST = f'''from acme import Client


def test_client_sends_the_key():
    client = Client(api_key="{KEY}")
    assert client.headers["X-Api-Key"]
'''


def test_made_up_values_in_tests_are_quiet_and_random_keys_are_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_utils.py").write_text(DOTENV_TEST)
    (tmp_path / "tests" / "test_client.py").write_text(CLIENT_TEST)
    # The same line outside the test folder: the model's surprise alone still reports it.
    (tmp_path / "examples.py").write_text(DOTENV_TEST)

    code = main(["repo", str(tmp_path), "--kinds", "credential", "--format", "json", "--no-redact"])

    report = json.loads(capsys.readouterr().out)
    found = sorted({(f["path"], f["preview"]) for f in report["findings"]})
    assert code == 1
    assert ("tests/test_client.py", KEY) in found
    assert ("examples.py", "=@asdfasf") in found
    assert not [path for path, _ in found if path == "tests/test_utils.py"]
