"""A worker serving the real default model scores exactly as this process does (marked `model`)."""

from __future__ import annotations

import numpy as np
import pytest

from smscan.config.settings import Settings
from smscan.scoring.chain import build_model_scorer
from smscan.scoring.worker_client import WorkerScorer, connect_worker
from tests.worker.conftest import Workers

pytestmark = pytest.mark.model

TEXTS = [
    "def mean(values):\n    return sum(values) / len(values)\n",
    'PAYMENTS_API_KEY = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"\n',
    "",
]


def test_the_worker_scores_the_default_model_as_in_process(workers: Workers) -> None:
    workers.start("--device", "cpu", "--threads", "1", fake=False)
    settings = Settings(device="cpu", threads=1)
    served = connect_worker(settings, fallback=lambda: pytest.fail("fell back"), environ=workers.env)
    assert isinstance(served, WorkerScorer)
    local = build_model_scorer(settings, environ=workers.env)
    assert (served.fingerprint, served.settings.key()) == (local.fingerprint, local.settings.key())
    assert served.describe() == local.describe()
    for got, want in zip(served.score_texts(TEXTS), local.score_texts(TEXTS)):
        for name in ("token_ids", "char_starts", "char_ends", "nll"):
            np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
    for got, want in zip(served.tokenize(TEXTS), local.tokenize(TEXTS)):
        np.testing.assert_array_equal(got.token_ids, want.token_ids)
        np.testing.assert_array_equal(got.char_ends, want.char_ends)
        assert np.isnan(got.nll).all()
