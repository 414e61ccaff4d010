"""Kind ids are defined once (smscan/kinds.py); the config's literal and the registry agree with them."""

from __future__ import annotations

from typing import get_args

from smscan import kinds
from smscan.detectors import DETECTORS, KINDS


def test_the_config_literal_names_exactly_the_kind_constants() -> None:
    assert get_args(kinds.Kind) == (kinds.SURPRISE, kinds.CREDENTIAL, kinds.DEAD_CODE)


def test_every_detector_kind_is_a_kind_id_and_surprise_is_not_a_detector() -> None:
    assert set(DETECTORS) == {kinds.CREDENTIAL, kinds.DEAD_CODE}
    assert KINDS == (kinds.SURPRISE, *DETECTORS)
    assert all(DETECTORS[kind].from_rule({}).kind == kind for kind in DETECTORS)
