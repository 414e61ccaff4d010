"""Remembered candidates: a rescan judges only what changed, reports the same, stores no text."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from smscan.scoring.cache import ScoreCache
from smscan.scoring.cache_database import DATABASE_NAME
from smscan.scoring.cached_scorer import CachedScorer
from smscan.detectors import make_detector
from smscan.detectors.credential import CredentialDetector
import smscan.scoring.judgements as judgements
from smscan.scoring.judgements import JudgementMemo
from smscan.judge.scan import scan
from smscan.records import ScanResult
from smscan.records import Document
from smscan.records import Detection
from tests.scorers import RandomWordScorer

KEY = "aZ3kQ9xL2mP8vR4tY7wB1nC6"


def detections(bonus: float = 2.0) -> list[Detection]:
    rule = {"statistic": "window", "secret_bonus": bonus, "token_penalty": 2.0}
    return [Detection(make_detector("credential", rule), 3.0, "test"), Detection(make_detector("dead-code"), 2.8, "test")]


def documents(edited: str = "") -> list[Document]:
    return [
        Document("app/settings.py", f'api_key = "{KEY}"\nname = "service"\n', group="g"),
        Document("app/views.py", f"def view(request):\n    return render(request)\n{edited}", group="g"),
        Document("deploy.sh", f"export TOKEN={KEY}\n", group="g"),
    ]


class Counting:
    """Counts the documents a detector judges."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.judged: list[int] = []
        original = CredentialDetector.candidates

        def counted(detector: CredentialDetector, text: str, scores, *, path: str = ""):  # type: ignore[no-untyped-def]
            self.judged.append(len(text))
            return original(detector, text, scores, path=path)

        monkeypatch.setattr(CredentialDetector, "candidates", counted)


def run(tmp_path: Path, docs: list[Document], found: list[Detection]) -> tuple[ScanResult, RandomWordScorer]:
    model = RandomWordScorer()
    cache = ScoreCache(tmp_path / "scores")
    scorer = CachedScorer(model, cache)
    memo = JudgementMemo(cache, fingerprint=model.fingerprint, settings_key=model.settings.key(),
                         detectors=[d.detector for d in found])
    return scan(docs, scorer, None, detections=found, judgements=memo), model


def summary(result: ScanResult) -> list[tuple[str, str, int, int, float, list]]:
    # Details in their order: reports print them as the detector made them.
    return [(f.path, f.kind, f.char_start, f.char_end, f.score, list(f.details.items())) for f in result.findings]


def test_an_unchanged_rescan_judges_nothing_and_reports_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counting = Counting(monkeypatch)
    first, _ = run(tmp_path, documents(), detections())
    assert len(counting.judged) == 3 and first.findings
    second, model = run(tmp_path, documents(), detections())
    assert len(counting.judged) == 3  # nothing judged again
    assert model.texts == []  # nothing scored
    assert summary(second) == summary(first)
    assert second.stats.tokens_scored == first.stats.tokens_scored


def test_an_edited_document_is_judged_again_and_only_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counting = Counting(monkeypatch)
    run(tmp_path, documents(), detections())
    edited, _ = run(tmp_path, documents(edited=f'    token = "{KEY}"\n'), detections())
    assert len(counting.judged) == 4
    assert any(f.path == "app/views.py" and f.kind == "credential" for f in edited.findings)


def test_another_rule_judges_everything_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counting = Counting(monkeypatch)
    run(tmp_path, documents(), detections(bonus=2.0))
    run(tmp_path, documents(), detections(bonus=0.5))
    assert len(counting.judged) == 6


def test_diff_scans_are_not_remembered(tmp_path: Path) -> None:
    memo = JudgementMemo(ScoreCache(tmp_path), fingerprint="f", settings_key="s", detectors=[])
    assert memo.key(Document("a.py", "x = 1\n", changed_lines=((1, 1),))) is None
    assert memo.key(Document("a.py", "x = 1\n")) != memo.key(Document("b.py", "x = 1\n"))


def test_a_damaged_entry_is_judged_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counting = Counting(monkeypatch)
    first, _ = run(tmp_path, documents(), detections())
    with sqlite3.connect(tmp_path / "scores" / DATABASE_NAME) as db:
        db.execute("UPDATE entries SET value = CAST('{not json' AS BLOB)")
    again, _ = run(tmp_path, documents(), detections())
    assert len(counting.judged) == 6 and summary(again) == summary(first)


def test_no_text_is_stored(tmp_path: Path) -> None:
    run(tmp_path, documents(), detections())
    stored = b"".join(p.read_bytes() for p in (tmp_path / "scores").rglob("*") if p.is_file())
    assert stored and KEY.encode() not in stored and KEY[5:15].encode() not in stored
    assert b"api_key" not in stored and b"render(request)" not in stored


def test_changed_detector_code_judges_everything_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # An upgrade or an edit of a detector must not answer from what its older code remembered.
    counting = Counting(monkeypatch)
    run(tmp_path, documents(), detections())
    monkeypatch.setattr("smscan.scoring.judgements.detector_code_digest", lambda: "other code")
    run(tmp_path, documents(), detections())
    assert len(counting.judged) == 6


def test_installing_the_js_extra_judges_everything_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The same JavaScript has syntax evidence with tree-sitter and none without it.
    counting = Counting(monkeypatch)
    monkeypatch.setattr("smscan.detectors.js_syntax.grammar_versions", lambda: "")
    run(tmp_path, documents(), detections())
    monkeypatch.setattr("smscan.detectors.js_syntax.grammar_versions", lambda: "tree-sitter 0.26.1")
    run(tmp_path, documents(), detections())
    assert len(counting.judged) == 6


def test_the_code_digest_follows_the_detector_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = judgements.detector_code_digest()
    fake_package = tmp_path / "smscan"
    for folder in ("detectors", "plan", "scoring"):
        (fake_package / folder).mkdir(parents=True)
    for name in ("plan/pieces.py", "plan/regions.py", "scoring/judgements.py"):
        (fake_package / name).write_text("")
    (fake_package / "detectors" / "credential.py").write_text("x = 1\n")
    monkeypatch.setattr(judgements, "__file__", str(fake_package / "scoring" / "judgements.py"))
    judgements.detector_code_digest.cache_clear()
    first = judgements.detector_code_digest()
    (fake_package / "detectors" / "credential.py").write_text("x = 2\n")
    judgements.detector_code_digest.cache_clear()
    assert judgements.detector_code_digest() != first != before
    judgements.detector_code_digest.cache_clear()
