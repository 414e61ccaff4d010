"""`--plot` on eval and calibrate: a PNG with the ROC curve and score distributions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from smscan.calibration.plots import plot_scores, roc_points
from tests.cli_runner import Cli
from tests.conftest import write_key_labels

pytest.importorskip("matplotlib", reason="the 'plot' extra is not installed")

PNG = b"\x89PNG\r\n\x1a\n"
KEYS = ["q8Zt3kPx0wLm9Rv2Yc7Hn4Bd", "Lm9Rv2q8Zt3kPx0wHn4BdYc7", "Hn4Bd0wLm9Rv2q8Zt3kPxYc7"]


@pytest.fixture
def labels(tmp_path: Path) -> Path:
    return write_key_labels(tmp_path / "labels.jsonl", KEYS)


def test_roc_points_run_from_origin_to_one() -> None:
    fpr, tpr = roc_points(np.array([0.2, 0.4, 0.6, -np.inf]), np.array([False, True, True, False]))
    assert (fpr[0], tpr[0], fpr[-1], tpr[-1]) == (0.0, 0.0, 1.0, 1.0)
    assert np.all(np.diff(fpr) >= 0)


def test_plot_scores_writes_a_png(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    scores = np.concatenate([rng.normal(2, 1, 500), rng.normal(6, 1, 50), [-np.inf] * 10])
    labels = np.concatenate([np.zeros(500, bool), np.ones(50, bool), np.zeros(10, bool)])
    path = tmp_path / "roc.png"
    plot_scores(path, scores, labels, threshold=4.5, title="test", unit="char", operating_point="best-f1")
    assert path.read_bytes().startswith(PNG)


def test_calibrate_and_eval_draw_plots(
    tmp_path: Path, labels: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    thresholds = tmp_path / "thresholds.json"
    cache = ["--score-cache", str(tmp_path / "cache")]
    assert cli.main(["calibrate", "--kind", "credential", "--labels", str(labels), "-o", str(thresholds),
                 "--plot", "calibrate.png", *cache]) == 0
    assert cli.main(["eval", "--kind", "credential", "--labels", str(labels), "--thresholds", str(thresholds),
                 "--plot", "eval.png", *cache]) == 0
    assert (tmp_path / "calibrate.png").read_bytes().startswith(PNG)
    assert (tmp_path / "eval.png").read_bytes().startswith(PNG)
