from __future__ import annotations

import multiprocessing
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from smscan.scoring.cache import ScoreCache, default_cache_dir
from smscan.scoring.cache_database import DATABASE_NAME
from smscan.scoring.cache_entries import cache_key, decode_entry, encode_entry
from smscan.scoring.cached_scorer import CachedScorer
from smscan.records import TokenScores
from tests.scorers import RandomWordScorer


class CountingScorer:
    """Scores each character as one token with NLL = its code point / 100; counts calls."""

    fingerprint = "sha256:fake"
    settings: dict[str, Any] = {"context_tokens": 8, "stride": 4, "dtype": "fp32"}

    def __init__(self) -> None:
        self.scored: list[str] = []
        self.id_offset = 0  # a different "tokenizer": same offsets, other ids

    def tokenize(self, texts: Sequence[str]) -> list[TokenScores]:
        out = []
        for text in texts:
            n = len(text)
            out.append(TokenScores(np.arange(n, dtype=np.int64) + self.id_offset, np.arange(n, dtype=np.int64),
                                   np.arange(1, n + 1, dtype=np.int64), np.full(n, np.nan)))
        return out

    def score_texts(self, texts: Sequence[str]) -> list[TokenScores]:
        self.scored.extend(texts)
        out = []
        for text, tokens in zip(texts, self.tokenize(texts)):
            nll = np.array([ord(c) / 100 for c in text], dtype=np.float64)
            if len(text):
                nll[0] = np.nan
            out.append(TokenScores(tokens.token_ids, tokens.char_starts, tokens.char_ends, nll))
        return out

    def describe(self) -> dict[str, str]:
        return {"name": "fake"}


def same_scores(a: TokenScores, b: TokenScores) -> bool:
    return (
        np.array_equal(a.token_ids, b.token_ids)
        and np.array_equal(a.char_starts, b.char_starts)
        and np.array_equal(a.char_ends, b.char_ends)
        and np.array_equal(a.nll, b.nll, equal_nan=True)
        and a.nll.dtype == b.nll.dtype == np.float64
    )


def test_key_changes_with_model_settings_and_text() -> None:
    base = cache_key("m1", {"stride": 4}, "abc")

    assert cache_key("m1", {"stride": 4}, "abc") == base
    assert cache_key("m2", {"stride": 4}, "abc") != base
    assert cache_key("m1", {"stride": 8}, "abc") != base
    assert cache_key("m1", {"stride": 4}, "abd") != base


def test_cached_scorer_scores_each_text_once(tmp_path: Path) -> None:
    inner = CountingScorer()
    scorer = CachedScorer(inner, ScoreCache(tmp_path))

    first = scorer.score_texts(["ab", "cd"])
    second = scorer.score_texts(["cd", "ef", "ab"])

    assert inner.scored == ["ab", "cd", "ef"]
    assert same_scores(second[0], first[1])
    assert same_scores(second[2], first[0])
    assert (scorer.cache.hits, scorer.cache.misses) == (2, 3)
    assert scorer.describe() == {"name": "fake"}
    assert scorer.fingerprint == "sha256:fake"


def test_a_text_repeated_in_one_call_is_scored_once(tmp_path: Path) -> None:
    inner = CountingScorer()
    scorer = CachedScorer(inner, ScoreCache(tmp_path))

    scores = scorer.score_texts(["key", "ab", "key", "cd", "key"])

    assert inner.scored == ["key", "ab", "cd"]
    assert len(scores) == 5
    assert same_scores(scores[0], scores[2]) and same_scores(scores[0], scores[4])
    assert same_scores(scores[3], CountingScorer().score_texts(["cd"])[0])
    assert (scorer.cache.hits, scorer.cache.misses) == (0, 5)
    assert scorer.score_texts(["key"]) and inner.scored == ["key", "ab", "cd"]


@pytest.mark.parametrize(
    "texts",
    [
        ["api_key = 'q8Zr2LkP0vX9mN4tB7wC'\n", "", "x = 1\n", "é🙂\r\n\ttab"],
        ["same", "same", "def f():\n    return 2\n" * 50],
    ],
)
def test_a_hit_equals_fresh_scoring(tmp_path: Path, texts: list[str]) -> None:
    fresh = RandomWordScorer().score_texts(texts)
    CachedScorer(RandomWordScorer(), ScoreCache(tmp_path)).score_texts(texts)
    inner = RandomWordScorer()

    again = CachedScorer(inner, ScoreCache(tmp_path)).score_texts(texts)

    assert inner.texts == []
    assert all(same_scores(a, b) for a, b in zip(again, fresh))


def test_a_new_fingerprint_or_settings_key_misses(tmp_path: Path) -> None:
    cache = ScoreCache(tmp_path)
    CachedScorer(CountingScorer(), cache).score_texts(["ab"])
    other_model = CountingScorer()
    other_model.fingerprint = "sha256:other"
    other_settings = CountingScorer()
    other_settings.settings = {**CountingScorer.settings, "dtype": "bf16"}

    CachedScorer(other_model, cache).score_texts(["ab"])
    CachedScorer(other_settings, cache).score_texts(["ab"])

    assert other_model.scored == ["ab"]
    assert other_settings.scored == ["ab"]


def test_tokens_that_differ_from_the_entry_are_a_miss(tmp_path: Path) -> None:
    cache = ScoreCache(tmp_path)
    CachedScorer(CountingScorer(), cache).score_texts(["abc"])
    retokenized = CountingScorer()
    retokenized.id_offset = 7

    [scores] = CachedScorer(retokenized, cache).score_texts(["abc"])

    assert retokenized.scored == ["abc"]
    assert scores.token_ids.tolist() == [7, 8, 9]


def test_entries_store_float32_only_when_it_is_exact() -> None:
    tokens = CountingScorer().tokenize(["abcd"])[0]
    exact = TokenScores(tokens.token_ids, tokens.char_starts, tokens.char_ends,
                        np.array([np.nan, 1.5, 2.25, np.float32(3.1)], dtype=np.float64))
    inexact = TokenScores(tokens.token_ids, tokens.char_starts, tokens.char_ends,
                          np.array([np.nan, 0.1, 0.2, 0.3], dtype=np.float64))

    assert len(encode_entry(exact)) < len(encode_entry(inexact))
    assert same_scores(decode_entry(encode_entry(exact), tokens), exact)  # type: ignore[arg-type]
    assert same_scores(decode_entry(encode_entry(inexact), tokens), inexact)  # type: ignore[arg-type]
    assert decode_entry(encode_entry(exact)[:-1], tokens) is None
    assert decode_entry(b"", tokens) is None


def test_no_text_or_token_ids_are_stored(tmp_path: Path) -> None:
    secret = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
    text = f'STRIPE_KEY = "{secret}"\nprint("hello")\n'
    scorer = RandomWordScorer()
    [scores] = CachedScorer(scorer, ScoreCache(tmp_path)).score_texts([text])
    [secret_token] = [i for i, (a, b) in enumerate(zip(scores.char_starts, scores.char_ends)) if text[a:b] == secret]
    secret_id = int(scores.token_ids[secret_token])
    stored = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())

    assert stored  # the entry is there
    for needle in (
        secret.encode(), secret.encode("utf-16-le"), text.encode(), b"hello",
        scores.token_ids.astype("<i8").tobytes(), scores.token_ids.astype("<i4").tobytes(),
        np.int64(secret_id).astype("<i8").tobytes(), np.int64(secret_id).astype(">i8").tobytes(),
        np.uint32(secret_id).astype("<u4").tobytes(),
    ):
        assert needle not in stored


def put(cache: ScoreCache, name: str, size: int) -> None:
    cache.put_many({cache_key("m", {}, name): bytes(size)})


def present(cache: ScoreCache, *names: str) -> list[str]:
    return [name for name in names if cache.contains(cache_key("m", {}, name))]


def test_eviction_drops_the_least_recently_used_first(tmp_path: Path) -> None:
    cache = ScoreCache(tmp_path, max_bytes=1000)
    for name in "abc":
        put(cache, name, 300)
    cache.get_many([cache_key("m", {}, "a")])  # a is now the most recently used

    put(cache, "d", 300)  # 1200 > 1000: evict down to 900

    assert present(cache, "a", "b", "c", "d") == ["a", "c", "d"]


def test_the_cache_stays_within_its_bound(tmp_path: Path) -> None:
    cache = ScoreCache(tmp_path, max_bytes=10_000)
    for i in range(200):
        put(cache, str(i), 97 + i % 13)

    info = cache.info()

    assert 0.8 * 10_000 < info.bytes_stored <= 10_000
    assert present(cache, "199") == ["199"]
    assert present(cache, "0") == []


def test_a_damaged_entry_is_a_miss_and_is_replaced(tmp_path: Path) -> None:
    inner = CountingScorer()
    cache = ScoreCache(tmp_path)
    first = CachedScorer(inner, cache).score_texts(["ab"])
    with sqlite3.connect(tmp_path / DATABASE_NAME) as db:
        db.execute("UPDATE entries SET value = ?", (b"smc1 damaged",))

    second = CachedScorer(inner, cache).score_texts(["ab"])
    third = CachedScorer(inner, cache).score_texts(["ab"])

    assert inner.scored == ["ab", "ab"]
    assert same_scores(first[0], second[0]) and same_scores(first[0], third[0])


@pytest.mark.parametrize("damage", [b"not a database at all" * 100, b"SQLite format 3\x00" + b"\xff" * 5000])
def test_a_damaged_database_is_a_miss_then_rebuilt(tmp_path: Path, damage: bytes) -> None:
    inner = CountingScorer()
    CachedScorer(inner, ScoreCache(tmp_path)).score_texts(["ab"])
    for path in tmp_path.iterdir():
        path.unlink()
    (tmp_path / DATABASE_NAME).write_bytes(damage)

    cache = ScoreCache(tmp_path)
    CachedScorer(inner, cache).score_texts(["ab"])
    CachedScorer(inner, cache).score_texts(["ab"])

    assert inner.scored == ["ab", "ab"]
    assert cache.disabled is None
    assert cache.info().entries == 1


def test_an_unusable_folder_turns_the_cache_off_without_failing(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    inner = CountingScorer()
    cache = ScoreCache(blocker / "scores")

    CachedScorer(inner, cache).score_texts(["ab"])
    CachedScorer(inner, cache).score_texts(["ab"])

    assert inner.scored == ["ab", "ab"]
    assert cache.disabled is not None and "scores" in cache.disabled


def test_clear_deletes_the_database_and_entries_of_the_old_format(tmp_path: Path) -> None:
    cache = ScoreCache(tmp_path)
    put(cache, "a", 100)
    (tmp_path / "ab").mkdir()
    (tmp_path / "ab" / f"ab{'0' * 62}.npz").write_bytes(b"old entry with token ids")

    freed = cache.clear()

    assert freed > 0
    assert list(tmp_path.iterdir()) == []
    assert cache.info().entries == 0


def test_default_dir_follows_the_environment(tmp_path: Path) -> None:
    assert default_cache_dir({"SMSCAN_SCORE_CACHE": str(tmp_path)}) == tmp_path
    assert default_cache_dir({"SMSCAN_CACHE": str(tmp_path)}) == tmp_path / "scores"
    assert default_cache_dir({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "smscan" / "scores"


def hammer(root: str, seed: int, rounds: int) -> int:
    """Put, get and evict in a tiny cache; returns how many reads came back wrong."""
    rng = np.random.default_rng(seed)
    cache = ScoreCache(Path(root), max_bytes=20_000)
    scorer = CountingScorer()
    wrong = 0
    for _ in range(rounds):
        names = [f"text-{int(i)}-" * int(i % 7 + 1) for i in rng.integers(0, 60, size=5)]
        keys = [cache_key("m", {}, name) for name in names]
        if rng.random() < 0.5:
            cache.put_many({key: encode_entry(s) for key, s in zip(keys, scorer.score_texts(names))})
        stored = cache.get_many(keys)
        for name, key in zip(names, keys):
            if key in stored:
                [expected] = scorer.score_texts([name])
                decoded = decode_entry(stored[key], scorer.tokenize([name])[0])
                wrong += decoded is None or not same_scores(decoded, expected)
    return wrong


def test_two_processes_writing_and_evicting_at_once_never_corrupt_an_entry(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    with context.Pool(2) as pool:
        wrong = pool.starmap(hammer, [(str(tmp_path), seed, 300) for seed in (1, 2)])

    assert wrong == [0, 0]
    with sqlite3.connect(tmp_path / DATABASE_NAME) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        (total,) = db.execute("SELECT SUM(size) FROM entries").fetchone()
    assert 0 < total <= 20_000


def test_the_kept_total_follows_replacements_and_evictions(tmp_path: Path) -> None:
    cache = ScoreCache(tmp_path, max_bytes=1000)
    for size in (100, 250, 40):
        put(cache, "same", size)  # replaced, not added
    for i in range(30):
        put(cache, str(i), 90)

    with sqlite3.connect(tmp_path / DATABASE_NAME) as db:
        (kept,) = db.execute("SELECT value FROM totals WHERE name = 'bytes'").fetchone()
        (summed,) = db.execute("SELECT SUM(size) FROM entries").fetchone()
    assert kept == summed <= 1000


def test_the_first_write_is_counted_once(tmp_path: Path) -> None:
    cache = ScoreCache(tmp_path)
    put(cache, "a", 100)
    with sqlite3.connect(tmp_path / DATABASE_NAME) as db:
        assert db.execute("SELECT value FROM totals WHERE name = 'bytes'").fetchone() == (cache.info().bytes_stored,)
