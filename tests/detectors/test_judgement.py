"""The learned credential judgement: its features, its JSON reader, cheap first, and explain."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from smscan.detectors.credential_rule import CredentialRule
from smscan.detectors.judgement.detector import LearnedCredentialDetector, learned_reasons
from smscan.detectors.judgement.features import (
    CHEAP_FEATURES,
    FEATURE_INDEX,
    FEATURES,
    cheap_features,
    file_type,
    scored_text,
    shape_features,
    surprise_features,
)
from smscan.detectors.judgement.model import Judgement
from smscan.detectors.slots import find_slots
from smscan.engine.windows import fixed_windows
from smscan.errors import SmscanError
from tests.detectors.scores import char_scores

KEY = "Zq8Lw2Rt5Yx9"
VENDOR = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
TEXT = f'api_token = "{KEY}"\ntheme = "blue"\nstripe = "{VENDOR}"\n'


def tiny_judgement(**cheap_extra: float) -> str:
    """A judgement file written by hand: every number below is chosen for exact results."""
    return json.dumps({
        "format": "smscan-judgement", "version": 1, "kind": "credential",
        "cheap": {
            "features": ["name:secret", "rules:keep", "vendor_format"], "mean": [0, 0, 0], "scale": [1, 1, 1],
            "coef": [3.0, 1.0, 4.0], "intercept": -2.0, "sure_out": -1.5, "sure_in": 3.0, **cheap_extra,
        },
        "full": {"features": ["rate", "name:secret"], "mean": [2.0, 0.0], "scale": [2.0, 1.0], "coef": [1.0, 0.5],
                 "intercept": -1.0},
    })


def test_shape_features_count_classes_entropy_and_changes() -> None:
    assert shape_features("aaaa") == [math.log(4), 0.25, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    features = shape_features("aB3-")
    assert features[1:9] == [1.0, 4.0, 0.25, 0.25, 0.25, 0.25, 2.0, 0.75]


def test_cheap_features_read_the_name_the_place_and_the_rules_verdict() -> None:
    slots = {TEXT[s.start:s.end]: s for s in find_slots(TEXT)}
    key = dict(zip(CHEAP_FEATURES, cheap_features(TEXT, slots[KEY], CredentialRule(), path="app/settings.py")))
    colour = dict(zip(CHEAP_FEATURES, cheap_features(TEXT, slots["blue"], CredentialRule(), path="app/settings.py")))
    vendor = dict(zip(CHEAP_FEATURES, cheap_features(TEXT, slots[VENDOR], CredentialRule(), path="docs/a.md")))

    assert (key["name:secret"], key["place:string"], key["rules:keep"], key["rules:evidence"]) == (1.0, 1.0, 1.0, 1.0)
    assert (key["line_secret_words"], key["file:code"], key["log_length"]) == (1.0, 1.0, math.log(12))
    assert (colour["name:neutral"], colour["rules:keep"], colour["name:secret"]) == (1.0, 0.0, 0.0)
    assert (vendor["vendor_format"], vendor["place:vendor"], vendor["name:none"], vendor["file:doc"]) == (1.0, 1.0, 1.0, 1.0)
    assert vendor["rules:evidence"] == 0.5  # the rules' vendor bonus, unnamed


@pytest.mark.parametrize(("value", "words", "code"), [
    ("urllib3.exceptions.SSLError", True, False),
    ("smscan/scoring/chain.py::build_scorer", True, True),
    ("Response.headers['location']", True, True),
    ("{self.username}:{realm}", True, True),
    ("KTJlDq2AGGGlqG8riKdT7p980AW8RlU5", False, False),
    ("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", False, False),
])
def test_names_and_code_read_as_words_and_random_keys_do_not(value: str, words: bool, code: bool) -> None:
    features = dict(zip(CHEAP_FEATURES, shape_features(value)))
    assert (features["word_share"] >= 0.5) is words
    assert features["code_syntax"] == float(code)


def test_file_types() -> None:
    assert [file_type(p) for p in ("README.md", "x/.env", "Dockerfile", "a/b.py", "conf/app.yaml", ".netrc")] == [
        "doc", "config", "shell", "code", "config", "config"]


def test_surprise_features_exact_on_one_token_per_character() -> None:
    text = f'api_token = "{KEY}"\n'
    start = text.index(KEY)
    scores = char_scores(text, [(start, start + len(KEY))], high=9.0, low=1.0)
    scored = scored_text(scores.nll, scores.char_starts, scores.char_ends, fixed_windows(scores.nll, size=4))
    cheap = cheap_features(text, find_slots(text)[0], CredentialRule())
    surprise = dict(zip(FEATURES[len(CHEAP_FEATURES):], surprise_features(scored, text, start, start + len(KEY), cheap)))

    # The line's other 14 scored characters (the first token has no score) cost 1 nat each.
    file_rate = (12 * 9.0 + 14 * 1.0) / 26
    assert surprise == pytest.approx({
        "rate": 9.0, "window": 9.0, "token_mean": 9.0, "token_max": 9.0, "chars_per_token": 1.0,
        "rate_minus_line": 8.0, "rate_minus_file": 9.0 - file_rate, "rate_x_secret_name": 9.0, "rate_x_rules_keep": 9.0,
    })


def test_surprise_features_are_none_without_a_scored_token() -> None:
    text = f'api_token = "{KEY}"\n'
    scores = char_scores(text[:5])  # only the first five characters scored
    scored = scored_text(scores.nll, scores.char_starts, scores.char_ends, fixed_windows(scores.nll, size=4))
    assert surprise_features(scored, text, 13, 25, np.zeros(len(CHEAP_FEATURES))) is None


def test_the_reader_computes_exact_log_odds_and_pushes() -> None:
    judgement = Judgement.from_json(tiny_judgement(), where="tiny.json")
    x = np.zeros(len(FEATURES))
    x[FEATURE_INDEX["rate"]] = 9.0
    x[FEATURE_INDEX["name:secret"]] = 1.0

    assert judgement.full.log_odds(judgement.full.select(x, FEATURE_INDEX)) == -1.0 + 3.5 + 0.5
    assert judgement.full.pushes(judgement.full.select(x, FEATURE_INDEX)) == [("rate", 3.5), ("name:secret", 0.5)]
    assert (judgement.sure_out, judgement.sure_in, len(judgement.digest)) == (-1.5, 3.0, 16)


@pytest.mark.parametrize("bad, message", [
    ("{", "not JSON"),
    (json.dumps({"format": "other", "version": 1}), "not a smscan-judgement file"),
    (tiny_judgement(features=["name:secret", "no_such_feature", "vendor_format"]), "unknown features no_such_feature"),
    (tiny_judgement(coef=[1.0, 2.0]), "one finite number per feature"),
    (tiny_judgement(scale=[1.0, 0.0, 1.0]), "every scale positive"),
    (tiny_judgement(sure_out=4.0), "sure_out must not be above sure_in"),
])
def test_the_reader_refuses_a_bad_file_with_one_message(bad: str, message: str) -> None:
    with pytest.raises(SmscanError, match=message):
        Judgement.from_json(bad, where="bad.json")


def test_cheap_first_only_the_undecided_slot_reaches_the_model() -> None:
    detector = LearnedCredentialDetector(judgement=Judgement.from_json(tiny_judgement(), where="tiny.json"))
    key_start = TEXT.index(KEY)
    # cheap log-odds: the key -2 + 3 + 1 = 2 (undecided); "blue" -2 (out); the vendor key -2 + 1 + 4 = 3 (in).
    assert detector.regions(TEXT, "app/settings.py") == [(key_start, key_start + len(KEY))]

    scores = char_scores(TEXT, [(key_start, key_start + len(KEY))], high=9.0, low=1.0)
    found = {TEXT[c.char_start:c.char_end]: c for c in detector.candidates(TEXT, scores, path="app/settings.py")}

    assert set(found) == {KEY, VENDOR}
    assert found[KEY].score == 3.0 and found[KEY].details["decided"] == "model"
    assert found[VENDOR].score == 3.0 and found[VENDOR].details["decided"] == "cheap"
    assert found[VENDOR].details["pushes"] == [("vendor_format", 4.0), ("rules:keep", 1.0)]


def test_a_learned_rule_in_a_thresholds_entry_selects_the_learned_detector() -> None:
    from smscan.detectors import make_detector

    detector = make_detector("credential", {"rule": "credential-learned"})
    assert isinstance(detector, LearnedCredentialDetector)
    assert detector.rule()["rule"] == "credential-learned"
    with pytest.raises(SmscanError, match="calibrate again"):
        make_detector("credential", {"rule": "credential-learned", "judgement": "0000000000000000"})


def test_explain_names_the_features_that_pushed_a_value_in_or_out() -> None:
    from smscan.decide.explain import explain_document
    from smscan.records import Detection, Document
    from smscan.rules.resolve import Rules
    from tests.reports.scans import fixture_rules
    from tests.scorers import RandomWordScorer

    surprise, _ = fixture_rules()
    detector = LearnedCredentialDetector(judgement=Judgement.from_json(tiny_judgement(), where="tiny.json"))
    [scores] = RandomWordScorer().score_texts([TEXT])
    explanation = explain_document(
        Document("app/settings.py", TEXT, group="g"), scores, Rules(surprise, (Detection(detector, 2.5, "test"),)),
        window=4, threshold=3.0, consensus=1, first_line=1, last_line=3, model="random-word-scorer",
    )
    vendor = [v for v in explanation.spans if v.kind == "credential" and v.line == 3]
    assert vendor and vendor[0].reported
    assert vendor[0].reasons[:3] == (
        "at or above the threshold by 0.50",
        "decided before the model: cheap log-odds 3.00 (a value in a vendor, 32 characters)",
        "features that pushed it: vendor_format in 4.00, rules:keep in 1.00",
    )


def test_reasons_of_a_model_decision() -> None:
    details = {"decided": "model", "surprise": 4.5, "cheap": 0.5, "place": "string", "length": 12,
               "pushes": [("rate", 1.25), ("name:secret", -0.5)]}
    assert learned_reasons(1.7, details) == [
        "learned log-odds 1.70, surprise 4.50 nats/char, cheap log-odds 0.50 (a value in a string, 12 characters)",
        "features that pushed it: rate in 1.25, name:secret out 0.50",
    ]


@pytest.mark.parametrize("text", [
    # Sizes a linear judgement does in under 2 s of CPU (0.3 ms a slot), with room for a busy machine.
    "'{' + ','.join(f'\"k{i}\":\"v{i}\"' for i in range(5000)) + '}'",
    "'{' + ', '.join(f'\"k{i}\": {i}' for i in range(5000)) + '}'",
    "'x = \"a\"' + ' ' * 200000 + '!'",
])
def test_hostile_lines_are_judged_in_seconds_by_the_learned_judgement(text: str) -> None:
    from tests.detectors.test_hostile_values import finishes

    judge = """
from smscan.detectors.judgement.detector import LearnedCredentialDetector
LearnedCredentialDetector().regions(TEXT, "a.json")
"""
    assert finishes(f"TEXT = {text}\n", judge)
