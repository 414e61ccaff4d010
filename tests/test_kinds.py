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


def test_every_kind_has_its_info_and_only_known_kinds_are_superseded() -> None:
    assert set(kinds.KIND_INFO) == set(get_args(kinds.Kind))
    assert all(info.kind == kind for kind, info in kinds.KIND_INFO.items())
    assert all(set(info.supersedes) <= set(kinds.KIND_INFO) for info in kinds.KIND_INFO.values())


def test_only_dead_code_shows_its_values_and_an_unknown_kind_is_redacted() -> None:
    assert [kind for kind in kinds.KIND_INFO if kinds.shows_values(kind)] == [kinds.DEAD_CODE]
    assert not kinds.shows_values("a-kind-from-a-newer-baseline")
