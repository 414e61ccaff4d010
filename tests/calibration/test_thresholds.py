from __future__ import annotations

import json
from pathlib import Path

import pytest

from smscan.rules.thresholds_file import (
    PACKAGED,
    find_entry,
    is_same_scores,
    packaged_thresholds,
    read_thresholds_file,
    threshold_files,
    write_entry,
)
from smscan.errors import ThresholdsError


def entry(fingerprint: str = "sha256:aaa", threshold: float = 7.5) -> dict[str, object]:
    return {
        "fingerprint": fingerprint,
        "rule": {"rule": "credential-slots", "window": 4},
        "threshold": threshold,
        "operating_points": {"SM90": {"threshold": 6.0}},
    }


def test_calibrating_a_kind_adds_or_replaces_only_its_entry(tmp_path: Path) -> None:
    path = tmp_path / ".smscan" / "thresholds.json"

    write_entry(path, "credential", entry(threshold=7.5))
    write_entry(path, "dead-code", entry(threshold=3.5))
    write_entry(path, "credential", entry(threshold=8.0))

    data = json.loads(path.read_text())
    assert data["format"] == "smscan-thresholds"
    assert data["kinds"]["credential"]["threshold"] == 8.0
    assert data["kinds"]["dead-code"]["threshold"] == 3.5


def test_lookup_order_is_flag_config_repository_package(tmp_path: Path) -> None:
    flag = tmp_path / "flag.json"
    configured = tmp_path / "configured.json"
    write_entry(flag, "dead-code", entry(threshold=1.0))
    write_entry(configured, "credential", entry(threshold=2.0))
    write_entry(configured, "dead-code", entry(threshold=9.0))
    write_entry(tmp_path / ".smscan" / "thresholds.json", "credential", entry(threshold=3.0))

    files = threshold_files(tmp_path, flag=flag, configured="configured.json")

    assert [where for where, _ in files][-1] == PACKAGED
    assert find_entry(files, "dead-code", fingerprint="sha256:aaa", model="m").threshold == 1.0
    credential = find_entry(files, "credential", fingerprint="sha256:aaa", model="m")
    assert credential.threshold == 2.0
    assert credential.source == str(configured)
    assert credential.operating_point("SM90") == 6.0


def test_another_models_threshold_is_refused_naming_both_fingerprints(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    write_entry(path, "credential", entry(fingerprint="sha256:aaa"))

    with pytest.raises(ThresholdsError) as raised:
        find_entry([(str(path), read_thresholds_file(path))], "credential", fingerprint="sha256:bbb", model="org/other")

    message = str(raised.value)
    assert "sha256:aaa" in message and "sha256:bbb" in message
    assert "smscan calibrate --kind credential" in message and "--model org/other" in message


def test_a_kind_nobody_calibrated_says_how_to(tmp_path: Path) -> None:
    with pytest.raises(ThresholdsError, match="smscan calibrate --kind dead-code"):
        find_entry([], "dead-code", fingerprint="x", model="m")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not a JSON thresholds file"),
        ('{"format": "other"}', "not an smscan thresholds file"),
        ('{"format": "smscan-thresholds", "version": 9, "kinds": {}}', "version 9"),
        ('{"format": "smscan-thresholds", "version": 1, "kinds": {"credential": {"rule": {}}}}', "lacks 'fingerprint'"),
        ('{"format": "smscan-thresholds", "version": 1, "kinds": {"credential": {"rule": {}, "fingerprint": "x", "threshold": "7"}}}', "must be a number"),
    ],
)
def test_malformed_files_name_the_problem(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "t.json"
    path.write_text(content)

    with pytest.raises(ThresholdsError, match=message):
        read_thresholds_file(path)


def test_a_named_file_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ThresholdsError, match="not found"):
        threshold_files(tmp_path, flag=tmp_path / "missing.json")


def test_the_packaged_defaults_are_a_valid_file() -> None:
    assert isinstance(packaged_thresholds()["kinds"], dict)


def test_ct2_fp32_uses_the_weights_entries_and_int8_is_refused() -> None:
    from smscan.model.ct2 import ct2_fingerprint
    from smscan.model.fingerprint import fingerprint_default
    from smscan.model.default_model import CONVERSION_VERSION, DEFAULT_GGUF_SHA256

    weights = fingerprint_default(DEFAULT_GGUF_SHA256, CONVERSION_VERSION).short
    files = [(PACKAGED, packaged_thresholds())]
    for kind in ("credential", "dead-code"):
        torch_entry = find_entry(files, kind, fingerprint=weights, model="default")
        ct2_entry = find_entry(files, kind, fingerprint=ct2_fingerprint(weights, "fp32"), model="default")
        assert ct2_entry.threshold == torch_entry.threshold
        with pytest.raises(ThresholdsError) as raised:
            find_entry(files, kind, fingerprint=ct2_fingerprint(weights, "int8"), model="default")
        assert "int8 shifts them" in str(raised.value) and "--dtype int8" in str(raised.value)


def test_same_scores_is_symmetric_for_ct2_fp32_only() -> None:
    assert is_same_scores("sha256:ab+ct2-fp32", "sha256:ab")
    assert is_same_scores("sha256:ab+ct2-int8", "sha256:ab+ct2-int8")
    assert not is_same_scores("sha256:ab+ct2-int8", "sha256:ab+ct2-fp32")
    assert not is_same_scores("sha256:ab", "sha256:cd+ct2-fp32")
