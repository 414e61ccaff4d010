"""A real (tiny) model's scorer reports each forward pass while one call runs, and the score
cache relabels the passes of the texts it sends on to the caller's indices."""

from __future__ import annotations

from pathlib import Path

from smscan.scoring.cache import ScoreCache
from smscan.scoring.cached_scorer import CachedScorer
from smscan.model.passes import ForwardPass, listening
from smscan.model.scorer import TransformersScorer

TEXTS = ["x = 1\n" * 40, "short = 2\n", "def f(a):\n    return a * 3\n" * 12]


def test_every_forward_pass_is_reported_with_its_texts_and_tokens(tiny_scorer: TransformersScorer) -> None:
    notices: list[ForwardPass] = []
    with listening(notices.append):
        scores = tiny_scorer.score_texts(TEXTS)

    assert len(notices) > 2  # several passes in one call (batch_size 3, 64-token windows)
    total = notices[0].total
    assert [n.done for n in notices] == [sum(n.tokens for n in notices[: i + 1]) for i in range(len(notices))]
    assert notices[-1].done == total and all(n.total == total for n in notices)
    assert total >= sum(len(s) for s in scores)  # every token is fed at least once
    assert {i for n in notices for i in n.texts} == {0, 1, 2}


def test_nothing_is_reported_without_a_listener_and_after_it(tiny_scorer: TransformersScorer) -> None:
    notices: list[ForwardPass] = []
    with listening(notices.append):
        pass
    tiny_scorer.score_texts(TEXTS[:1])
    assert notices == []


def test_the_score_cache_reports_indices_into_the_callers_texts(tiny_scorer: TransformersScorer, tmp_path: Path) -> None:
    cached = CachedScorer(tiny_scorer, ScoreCache(tmp_path))
    cached.score_texts([TEXTS[1]])  # now a hit: only texts 0 and 2 of the next call are scored
    notices: list[ForwardPass] = []
    with listening(notices.append):
        cached.score_texts([TEXTS[0], TEXTS[1], TEXTS[2]])
    assert {i for n in notices for i in n.texts} == {0, 2}
