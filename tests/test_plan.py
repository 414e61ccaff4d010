"""The scoring plan: which pieces are scored for which kinds, and how their scores reach detectors."""

from __future__ import annotations

import numpy as np
import pytest

from smscan.detectors import make_detector
from smscan.engine.masking import MaskRule as SurpriseRule
from smscan.judge.scan import scan
from smscan.records import Detection
from smscan.plan.pieces import document_scores, plan_pieces
from smscan.records import Document
from smscan.plan.regions import Piece, pieces_for_targets, pieces_to_score
from tests.scorers import RandomWordScorer

# A format no rule names: an invented prefix, then random characters (RandomWordScorer finds the
# 20-character alphanumeric run random: NLL 12 on it, 1 elsewhere).
ZORBL = "zorbl~Q7vX2mK9pL4nR8tW3yB6"
ZORBL_VALUE_START = len("zorbl~")
WINDOW = {"statistic": "window", "secret_bonus": 2.0, "token_penalty": 2.0}
FILLER = "".join(f"setting_{i}: value {i} of the long list of plain settings\n" for i in range(30))


def credential(threshold: float = 3.0) -> Detection:
    return Detection(make_detector("credential", WINDOW), threshold=threshold)


# --- regions: context, right edge, merging, diff restriction -------------------------------------


def test_a_target_gets_left_context_cut_at_the_earliest_line_start_in_reach() -> None:
    text = "x" * 200 + "\n" + "a = 1\nb = 2\nkey = 'V4lue9xyZ'\nc = 3\n"
    start = text.index("V4lue")

    (piece,) = pieces_for_targets(Document("c.py", text), [(start, start + 9)], context_chars=15)

    # Line starts within 15 characters before the value: 'b = 2' (13 before) is the earliest;
    # 'a = 1' starts 19 before.
    assert piece.text == "b = 2\nkey = 'V4lue9xyZ'"
    assert text[piece.offset : piece.offset + len(piece.text)] == piece.text


def test_on_a_long_line_the_context_starts_after_a_space_and_the_right_end_before_one() -> None:
    left = " ".join(f"w{i}" for i in range(60))
    right = " ".join(f"r{i}" for i in range(60))
    text = f"{left} token=Zq8x {right}\n"
    start = text.index("Zq8x")

    (piece,) = pieces_for_targets(Document("m.js", text), [(start, start + 4)], context_chars=30, right_chars=20)

    assert piece.offset > 0 and text[piece.offset] == " "  # starts on a space: no word is cut
    assert piece.offset >= start - 30
    end = piece.offset + len(piece.text)
    assert text[end] == " " and start + 4 < end <= start + 4 + 20  # ends before a space


def test_the_rest_of_the_line_is_kept_so_the_value_ends_where_the_file_ends_it() -> None:
    text = 'a = 1\ntoken = "Zq8xP1sV9kL2", retries=3\nnext = 2\n'
    start = text.index("Zq8x")

    (piece,) = pieces_for_targets(Document("c.py", text), [(start, start + 12)])

    assert piece.text.endswith('"Zq8xP1sV9kL2", retries=3')


def test_pieces_that_overlap_or_touch_merge_and_distant_ones_stay_apart() -> None:
    text = FILLER + "k1 = 'Zq8xP1sV9kL2'\nk2 = 'Zq8xP1sV9kL3'\n" + FILLER + "k3 = 'Zq8xP1sV9kL4'\n"
    targets = [(text.index(v), text.index(v) + 12) for v in ("Zq8xP1sV9kL2", "Zq8xP1sV9kL3", "Zq8xP1sV9kL4")]

    pieces = pieces_for_targets(Document("c.yaml", text), targets)

    assert len(pieces) == 2
    assert "kL2" in pieces[0].text and "kL3" in pieces[0].text and "kL4" in pieces[1].text
    assert pieces[0].offset + len(pieces[0].text) < pieces[1].offset


def test_diff_scans_plan_only_targets_on_changed_lines() -> None:
    text = "a = 'Zq8xP1sV9kL2'\nb = 1\nc = 'Zq8xP1sV9kL3'\n"
    targets = [(5, 17), (text.index("Zq8xP1sV9kL3"), text.index("Zq8xP1sV9kL3") + 12)]

    # Line 1 is in line 3's context, but only line 3 changed: only line 3's value is a target.
    (piece,) = pieces_for_targets(Document("c.py", text, changed_lines=((3, 3),)), targets)

    assert piece.text.endswith("c = 'Zq8xP1sV9kL3'\n")  # the last line: trailing newline kept
    assert pieces_for_targets(Document("c.py", text, changed_lines=((2, 2),)), targets) == []


# --- plan: which kinds need what ------------------------------------------------------------------


def test_surprise_needs_whole_documents() -> None:
    document = Document("c.yaml", f"name: demo\nkey: {ZORBL}\n")

    assert plan_pieces(document, [credential().detector], whole=True) == pieces_to_score(document)


def test_credential_plans_only_values_that_survive_the_model_free_judgement() -> None:
    text = FILLER + f"service:\n  url: https://example.org/api\n  zorbl_key: {ZORBL}\n  id: 3\n" + FILLER

    (piece,) = plan_pieces(Document("c.yaml", text), [credential().detector])

    assert ZORBL in piece.text and len(piece.text) < 200  # the URL is no credential: not planned


def test_dead_code_plans_evidence_lines_of_python_and_whole_files_elsewhere() -> None:
    dead = make_detector("dead-code")
    python = "\n".join(f"setting_{i} = {i}" for i in range(200)) + "\ndef f(x):\n    return x\n    x = 1\n"
    # Go has no syntax evidence (JavaScript has, with the js extra: tests/detectors/test_js_dead.py).
    go = "func f(x int) int {\n\treturn x\n\tx = 1\n}\n"

    (piece,) = plan_pieces(Document("m.py", python), [dead])
    assert piece.text.endswith("    x = 1\n") and 0 < len(piece.text) <= dead.context_chars + len("    x = 1\n")
    assert plan_pieces(Document("m.go", go), [dead]) == [Piece(0, go)]
    # Python without evidence needs nothing scored; a file dead code does not apply to neither.
    assert plan_pieces(Document("ok.py", "def f(x):\n    return x\n"), [dead]) == []
    assert plan_pieces(Document("notes.md", go), [dead]) == []


def test_a_dead_code_evidence_line_is_planned_with_the_code_after_it_for_its_prior() -> None:
    dead = make_detector("dead-code")
    head = "\n".join(f"setting_{i} = {i}" for i in range(200))
    tail = "\n".join(f"after_{i} = {i}" for i in range(200))
    text = f"{head}\ndef f(x):\n    return x\n    x = 1\n{tail}\n"

    (piece,) = plan_pieces(Document("m.py", text), [dead])

    evidence = text.index("    x = 1")
    after = piece.offset + len(piece.text) - evidence
    assert dead.context_chars - 20 <= after <= dead.context_chars + 20
    assert evidence - piece.offset <= dead.context_chars
    # A short file is planned whole, trailing newline included: the same text a whole scan scores.
    short = "def f(x):\n    return x\n    x = 1\n\n"
    assert plan_pieces(Document("s.py", short), [dead]) == [Piece(0, short)]


def test_sparse_scores_put_each_piece_in_document_offsets() -> None:
    scorer = RandomWordScorer()
    text = FILLER + "a = 1\n"
    pieces = [Piece(0, text[:10]), Piece(100, text[100:120])]

    sparse = document_scores(pieces, scorer.score_texts([p.text for p in pieces]))

    assert sparse.char_starts[0] == 0 and sparse.char_ends[-1] == 120
    gap = int(np.flatnonzero(sparse.char_starts[1:] != sparse.char_ends[:-1])[0]) + 1
    assert sparse.char_starts[gap] == 100 and np.isnan(sparse.nll[gap])  # a piece's first token
    whole = scorer.score_texts([text])[0]
    assert document_scores([Piece(0, text)], [whole]) is whole


# --- the pipeline through the plan ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("deploy/config.yaml", FILLER + f"service:\n  name: billing\n  zorbl_token: {ZORBL}\n  retries: 3\n" + FILLER),
        ("scripts/run.sh", "#!/bin/sh\n" + "".join(f"echo step {i}\n" for i in range(40))
         + f"export ZORBL_SECRET='{ZORBL}'\n./run --verbose\n"),
    ],
)
def test_an_invented_format_is_found_through_the_plan_as_through_whole_files(path: str, text: str) -> None:
    planned_scorer, whole_scorer = RandomWordScorer(), RandomWordScorer()

    planned = scan([Document(path, text)], planned_scorer, None, detections=[credential()])
    whole = scan([Document(path, text)], whole_scorer, None, detections=[credential()], whole_documents=True)

    (finding,) = planned.findings
    assert text[finding.char_start : finding.char_end] == ZORBL
    # This scorer's NLLs do not depend on context, so planned and whole scores agree exactly.
    assert [(f.char_start, f.char_end, f.score) for f in planned.findings] == [
        (f.char_start, f.char_end, f.score) for f in whole.findings
    ]
    assert sum(map(len, planned_scorer.texts)) < len(text) / 3


def test_with_surprise_enabled_every_kind_reads_the_whole_document() -> None:
    scorer = RandomWordScorer()
    text = FILLER + f"zorbl_token: {ZORBL}\n"

    scan([Document("c.yaml", text)], scorer, SurpriseRule(window=4, threshold=3.0), detections=[credential()])

    assert scorer.texts == [text]


def test_a_file_no_enabled_kind_needs_is_not_scored() -> None:
    scorer = RandomWordScorer()
    dead = Detection(make_detector("dead-code"), threshold=3.0)

    result = scan([Document("ok.py", "def f(x):\n    return x\n"), Document("notes.md", "plain words\n")],
                  scorer, None, detections=[credential(), dead])

    assert scorer.texts == [] and result.findings == [] and result.stats.files_scanned == 2


def test_dead_code_evidence_lines_are_judged_in_their_context_only() -> None:
    # 200 live lines, one unreachable store with a random name; plain-line rule plus evidence.
    head = "\n".join(f"setting_{i} = {i}" for i in range(200))
    text = f"{head}\ndef f(x):\n    return x\n    Zq8xP1sV9kL2m4n5 = 1\n"
    scorer = RandomWordScorer()
    rule = {"evidence_bonus": 2.0, "min_context": 4, "shrink": 0.0}
    detection = Detection(make_detector("dead-code", rule), threshold=3.0)

    result = scan([Document("m.py", text)], scorer, None, detections=[detection])

    (finding,) = result.findings
    assert finding.start.line == 203 and finding.details["evidence"] == "unreachable"
    (scored,) = scorer.texts
    assert scored.endswith("    Zq8xP1sV9kL2m4n5 = 1\n") and len(scored) < len(text) / 2


def test_a_diff_scan_scores_only_changed_targets_and_keeps_python_evidence() -> None:
    head = "\n".join(f"setting_{i} = {i}" for i in range(200))
    text = (f"{head}\nold_token = 'Zq8xP1sV9kL2m4n5'\n{head}\ndef f(x):\n    return x\n"
            f"    Zq8xP1sV9kL2m4n6 = 1\nnew_token = 'Zq8xP1sV9kL2m4n7'\n")
    lines = text.count("\n")
    scorer = RandomWordScorer()
    dead = Detection(make_detector("dead-code", {"evidence_bonus": 2.0, "min_context": 4, "shrink": 0.0}), threshold=3.0)

    result = scan([Document("m.py", text, changed_lines=((lines - 1, lines),))], scorer, None,
                  detections=[credential(), dead])

    # The unreachable store and the new token changed; the old token did not and is not scored.
    assert sorted((f.kind, f.start.line) for f in result.findings) == [("credential", lines), ("dead-code", lines - 1)]
    assert all("Zq8xP1sV9kL2m4n5" not in scored for scored in scorer.texts)
