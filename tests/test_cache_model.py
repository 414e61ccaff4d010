"""The score cache with the real default model (slow, marked ``model``): a second scan of an
unchanged file loads no weights (not even torch) and reports byte for byte the same."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.model

ROOT = Path(__file__).resolve().parents[1]
SECRET = "sk_live_51Hq8ZrT2LkP0vX9mN4tB7wCeY3uJ6aD"
SOURCE = f'''import os

STRIPE_KEY = "{SECRET}"


def charge(amount: int) -> dict:
    return {{"amount": amount, "key": STRIPE_KEY}}
'''
RUN = """
import json, sys
from smscan.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, **{name: name in sys.modules for name in ("ctranslate2", "torch", "transformers")}}))
"""


def run_files(folder: Path, report: Path) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", RUN, "files", "billing.py", "--format", "json", "-o", str(report)],
        cwd=folder, env=env, capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def without_times(report: Path) -> bytes:
    data = json.loads(report.read_text())
    data["stats"].pop("seconds")
    data["stats"].pop("tokens_per_second")
    return json.dumps(data, indent=2).encode()


def test_a_rescan_loads_no_weights_reports_the_same_and_stores_no_text(tmp_path: Path, score_cache_dir: Path) -> None:
    from smscan.model.load import load_scorer

    (tmp_path / "billing.py").write_text(SOURCE)
    first = run_files(tmp_path, tmp_path / "first.json")
    second = run_files(tmp_path, tmp_path / "second.json")

    # A credential finding; the first run loads the model (CTranslate2 for the default model on
    # CPU), the rescan loads no runtime at all.
    assert first == {"code": 1, "ctranslate2": True, "torch": False, "transformers": False}
    assert second == {"code": 1, "ctranslate2": False, "torch": False, "transformers": False}
    assert without_times(tmp_path / "first.json") == without_times(tmp_path / "second.json")
    stored = b"".join(p.read_bytes() for p in score_cache_dir.rglob("*") if p.is_file())
    ids = load_scorer(device="cpu").tokenize([SOURCE, SECRET])
    assert len(stored) > 0
    for needle in (SECRET.encode(), SECRET[8:20].encode(), SOURCE.encode(),
                   ids[0].token_ids.astype("<i8").tobytes()[:32], ids[1].token_ids.astype("<i8").tobytes(),
                   ids[1].token_ids.astype("<i4").tobytes(), ids[1].token_ids.astype("<u2").tobytes()):
        assert needle not in stored
    assert np.all(ids[1].token_ids < 1 << 16)  # so the <u2 needle above is the ids' exact bytes
