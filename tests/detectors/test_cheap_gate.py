"""The cheap gate: slots the rules keep but the packaged cheap judgement settles skip the model."""

from __future__ import annotations

import numpy as np
import pytest

from smscan.detectors.cheap_gate import CheapGate
from smscan.detectors.credential import CredentialDetector, CredentialRule
from smscan.detectors.credential_evidence import judge_slot, judged_slots
from smscan.detectors.judgement.features import FEATURE_INDEX, cheap_features
from smscan.detectors.credential_rule import CHEAP_GATE
from smscan.detectors.slots import find_slots
from smscan.engine.windows import fixed_windows
from smscan.errors import SmscanError
from tests.detectors.scores import surprising_values

CALL = 'msg = "parse_header_links()"\n'
PASSWORD = 'DB_PASSWORD = "Zq8xP1sV9kL2wQ"\n'


def _values(text: str, spans: list[tuple[int, int]]) -> list[str]:
    return [text[start:end] for start, end in spans]


def test_a_call_expression_the_rules_keep_is_settled_before_the_model() -> None:
    ungated = CredentialRule(cheap_gate=None)
    assert "parse_header_links()" in [CALL[j.start : j.end] for j in judged_slots(CALL, ungated)]
    detector = CredentialDetector()
    assert detector.regions(CALL, "app.py") == []
    scores = surprising_values(CALL, ["parse_header_links()"])
    assert detector.candidates(CALL, scores, path="app.py") == []
    # Without the gate the same surprise makes it a candidate: the gate, not the rules, left it out.
    assert CredentialDetector(ungated).candidates(CALL, scores, path="app.py")


def test_a_password_under_its_name_still_reaches_the_model() -> None:
    detector = CredentialDetector()
    assert _values(PASSWORD, detector.regions(PASSWORD, "settings.py")) == ["Zq8xP1sV9kL2wQ"]
    found = detector.candidates(PASSWORD, surprising_values(PASSWORD, ["Zq8xP1sV9kL2wQ"]), path="settings.py")
    assert [PASSWORD[c.char_start : c.char_end] for c in found] == ["Zq8xP1sV9kL2wQ"]


def test_the_cut_off_is_the_rules_and_is_saved_with_it() -> None:
    gate = CheapGate.packaged(CredentialRule(), CHEAP_GATE)
    slot = next(s for s in find_slots(CALL) if CALL[s.start : s.end].startswith("parse_"))
    log_odds = gate.log_odds(CALL, slot, "app.py", judge_slot(CALL, slot, CredentialRule(), path="app.py"))
    assert log_odds <= CHEAP_GATE
    # The rules' evidence handed in is the one the full feature computation finds itself.
    cheap = gate.judgement.cheap
    assert log_odds == cheap.log_odds(cheap.select(cheap_features(CALL, slot, CredentialRule(), path="app.py"), FEATURE_INDEX))
    looser = CredentialRule(cheap_gate=log_odds - 1.0)
    assert _values(CALL, CredentialDetector(looser).regions(CALL, "app.py")) == ["parse_header_links()"]
    assert CredentialRule().as_dict()["cheap_gate"] == CHEAP_GATE
    assert CredentialRule.from_dict({"cheap_gate": None}).cheap_gate is None
    assert CredentialRule.from_dict({}).cheap_gate == CHEAP_GATE


@pytest.mark.parametrize("bad", ["-2", True, float("nan"), [1]])
def test_a_cut_off_that_is_not_a_number_is_refused(bad: object) -> None:
    with pytest.raises(SmscanError, match="cheap_gate"):
        CredentialRule.from_dict({"cheap_gate": bad})


def _key_block(lines: int = 26) -> str:
    rng = np.random.default_rng(3)
    alphabet = np.array(list("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"))
    body = "\n".join("".join(rng.choice(alphabet, 64)) for _ in range(lines))
    return f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\n"


def test_a_private_key_block_is_judged_on_its_first_lines_and_reported_whole() -> None:
    text = _key_block()
    detector = CredentialDetector()
    (region,) = detector.regions(text, "server.key")
    assert region[0] == 0 and region[1] == 320 < len(text.rstrip())
    # Only the sample is scored (the rest has no token), and the block is still found, whole.
    sampled = surprising_values(text[:320], [text[28:320]])
    found = detector.candidates(text, sampled, path="server.key")
    assert [(c.char_start, c.char_end) for c in found] == [(0, len(text) - 1)]
    # A typed body (the same letter over and over) does not surprise on its sample either.
    assert detector.candidates(text, surprising_values(text[:320], []), path="server.key")[0].score < 3.0


def test_a_short_key_block_is_scored_whole() -> None:
    text = _key_block(lines=2)
    (region,) = CredentialDetector().regions(text, "tiny.key")
    assert region == (0, len(text) - 1)


def test_explain_names_the_gate_for_a_surprising_settled_slot() -> None:
    detector = CredentialDetector()
    scores = surprising_values(CALL, ["parse_header_links()"])
    dropped = detector.dropped(CALL, scores, fixed_windows(scores.nll, size=4), tau=3.0, near=1.0, path="app.py")
    reasons = [reason for item in dropped for reason in item.reasons]
    assert any(reason.startswith("settled before the model by the cheap judgement") for reason in reasons)
