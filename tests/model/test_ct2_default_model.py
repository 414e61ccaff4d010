"""The CTranslate2 runtime on the real default model: torch fp32's tokens and scores, no torch.

Slow (the real model, and a one-time CTranslate2 conversion on a fresh cache); marked ``model``.
"""

from __future__ import annotations

import colorsys
import json
import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from smscan.rules.thresholds_file import packaged_thresholds
from smscan.config.settings import DEFAULT_SURPRISE_THRESHOLD
from smscan.engine.windows import fixed_windows
from smscan.model.ct2 import CT2Scorer
from smscan.model.load import load_scorer
from smscan.model.scorer import TransformersScorer

pytestmark = pytest.mark.model

REPOSITORY = Path(__file__).resolve().parents[2]
# Offsets must match transformers' fast tokenizer on what code holds: multi-byte characters,
# emoji split over byte tokens, CRLF, tabs, a BOM, NUL, lone surrogates.
ODD_TEXTS = [
    "\ufeffimport os\r\nprint('😀 你好 café')\r\n",
    "emoji 👩‍💻 CJK 日本語\tend\t\t\n",
    "x\x00y = 'ключ'  # naïve\r\n\r\n",
    "bad \udcff byte",
]


@pytest.fixture(scope="module")
def ct2_scorer(default_model_dir: Path) -> CT2Scorer:
    scorer = load_scorer(device="cpu", runtime="ctranslate2")
    assert isinstance(scorer, CT2Scorer)
    return scorer


def code_texts() -> list[str]:
    """Real code: two short files and one long enough for four 512-token chunks."""
    short = [Path(str(module.__file__)).read_text(encoding="utf-8")[:1500] for module in (colorsys, textwrap)]
    return short + [Path(str(shlex.__file__)).read_text(encoding="utf-8")[:7000]]


def test_ct2_fp32_matches_torch_fp32_on_real_code(ct2_scorer: CT2Scorer, real_scorer: TransformersScorer) -> None:
    torch = real_scorer if real_scorer.settings.dtype == "fp32" else load_scorer(device="cpu", dtype="fp32", runtime="torch")
    texts = code_texts() + ODD_TEXTS
    got, want = ct2_scorer.score_texts(texts), torch.score_texts(texts)
    assert len(want[2]) > 3 * 512  # chunked: the stride path is compared too
    thresholds = [DEFAULT_SURPRISE_THRESHOLD] + [
        entry["threshold"] for entry in packaged_thresholds()["kinds"].values()
    ]
    flips = windows = 0
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a.token_ids, b.token_ids)
        np.testing.assert_array_equal(a.char_starts, b.char_starts)
        np.testing.assert_array_equal(a.char_ends, b.char_ends)
        assert np.isnan(a.nll[0]) and np.isfinite(a.nll[1:]).all()
        assert np.abs(a.nll[1:] - b.nll[1:]).max() < 2e-3
        ours, theirs = fixed_windows(a.nll, size=4).scores, fixed_windows(b.nll, size=4).scores
        valid = np.isfinite(ours) & np.isfinite(theirs)
        windows += int(valid.sum())
        flips += sum(int(((ours[valid] >= t) != (theirs[valid] >= t)).sum()) for t in thresholds)
    assert windows > 2000
    assert flips == 0


def test_ct2_int8_drift_is_bounded(ct2_scorer: CT2Scorer) -> None:
    int8 = load_scorer(device="cpu", dtype="int8")
    texts = code_texts()[:2]
    for a, b in zip(int8.score_texts(texts), ct2_scorer.score_texts(texts)):
        np.testing.assert_array_equal(a.token_ids, b.token_ids)
        drift = np.abs(a.nll[1:] - b.nll[1:])
        assert 0 < drift.mean() < 1.5  # it does shift: that is why int8 needs its own thresholds


def test_a_scan_on_the_ct2_runtime_imports_neither_torch_nor_transformers(
    default_model_dir: Path, tmp_path: Path
) -> None:
    (tmp_path / "app.py").write_text('import os\n\nTOKEN = "ghp_8fK2mQ9xLr4Tz7VbN1cW5yH3jP6sD0aE"\nprint(os.name)\n')
    probe = (
        "import json, sys\n"
        "from smscan.cli import main\n"
        "code = main(['files', 'app.py', '--format', 'json', '-o', 'report.json'])\n"
        "print(json.dumps({'code': code, 'loaded': sorted(m for m in ('torch', 'transformers') if m in sys.modules)}))\n"
    )
    environ = {key: value for key, value in os.environ.items() if key not in ("SMSCAN_MODEL", "SMSCAN_SCORE_CACHE")}
    environ["PYTHONPATH"] = os.pathsep.join([str(REPOSITORY), environ.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=environ, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["loaded"] == []
    assert result["code"] in (0, 1)
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert "+ct2-fp32" in json.dumps(report)  # the report says which runtime made the scores
