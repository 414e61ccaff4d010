"""The SARIF 2.1.0 report: valid against the official schema, stable content fingerprints, no secret."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from smscan.records import ScanResult
from smscan.records import Document
from smscan.reports.sarif import FINGERPRINT_KEY, render_sarif
from tests.reports.scans import (
    LONG_LINE_SECRET, MODEL, SECRET, SETTINGS_PY, fixture_scan, rule_dict,
)

SCHEMA = json.loads((Path(__file__).parents[1] / "data" / "sarif-schema-2.1.0.json").read_text("utf-8"))


def sarif(result: ScanResult, **kwargs: Any) -> dict[str, Any]:
    text = render_sarif(
        result, model=MODEL, rule=rule_dict(), config_source="defaults", values=result.values, **kwargs
    )
    return json.loads(text)


@pytest.mark.parametrize("no_redact", [False, True])
def test_the_log_is_valid_against_the_official_schema(no_redact: bool) -> None:
    log = sarif(fixture_scan(), no_redact=no_redact, suppressed={"inline": 0})
    jsonschema.Draft4Validator.check_schema(SCHEMA)
    errors = sorted(jsonschema.Draft4Validator(SCHEMA).iter_errors(log), key=str)
    assert errors == []
    log["runs"][0]["columnKind"] = "bytes"  # the validator is live: a wrong value fails
    assert list(jsonschema.Draft4Validator(SCHEMA).iter_errors(log))


def test_an_empty_scan_is_a_valid_log_with_no_results() -> None:
    log = sarif(ScanResult())
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    assert log["runs"][0]["results"] == []


def test_the_run_names_the_tool_its_version_rules_and_column_kind() -> None:
    run = sarif(fixture_scan())["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "smscan"
    assert driver["version"] == "0.1.0"
    assert [rule["id"] for rule in driver["rules"]] == ["surprise", "credential", "dead-code"]
    assert run["columnKind"] == "unicodeCodePoints"
    for result in run["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
    assert run["properties"]["model"]["fingerprint"] == "sha256:random-word-scorer"
    assert run["properties"]["stats"]["skipped_by_reason"] == {"binary": 1}


def test_results_have_physical_locations_with_regions() -> None:
    run = sarif(fixture_scan())["runs"][0]
    credential = next(r for r in run["results"] if r["ruleId"] == "credential")
    location = credential["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "app/settings.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 4, "startColumn": 12, "endLine": 4, "endColumn": 36}
    assert credential["level"] == "error"


def test_columns_count_code_points_not_utf16_units() -> None:
    # An astral character before the value: one code point, two UTF-16 units.
    text = f'note = "\U0001F600"\napi_key = "{SECRET}"\n'.replace("note", "\U0001F600note")
    result = fixture_scan([Document("emoji.py", text, group="g")])
    run = sarif(result)["runs"][0]
    credential = next(r for r in run["results"] if r["ruleId"] == "credential")
    assert credential["locations"][0]["physicalLocation"]["region"]["startColumn"] == 12


def test_paths_are_uri_references() -> None:
    result = fixture_scan([Document("dir with space/ü.py", f'api_key = "{SECRET}"\n', group="g")])
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif(result)["runs"][0]["results"]}
    assert uris == {"dir%20with%20space/%C3%BC.py"}


def fingerprints(result: ScanResult) -> dict[str, str]:
    return {r["ruleId"]: r["partialFingerprints"][FINGERPRINT_KEY] for r in sarif(result)["runs"][0]["results"]}


def test_fingerprints_come_from_content_not_line_numbers() -> None:
    before = fingerprints(fixture_scan([Document("app/settings.py", SETTINGS_PY, group="g")]))
    moved = "# a comment\n# and another\n" + SETTINGS_PY
    after = fingerprints(fixture_scan([Document("app/settings.py", moved, group="g")]))
    assert before["credential"] == after["credential"]
    assert before["dead-code"] == after["dead-code"]


def test_the_fingerprint_is_the_json_reports_and_changes_with_the_value() -> None:
    result = fixture_scan()
    by_rule = {r["ruleId"]: r for r in sarif(result)["runs"][0]["results"] if "settings" in json.dumps(r["locations"])}
    finding = next(f for f in result.findings if f.kind == "credential" and f.path == "app/settings.py")
    assert by_rule["credential"]["partialFingerprints"] == {FINGERPRINT_KEY: finding.fingerprint}
    other = fixture_scan([Document("app/settings.py", SETTINGS_PY.replace(SECRET, SECRET[::-1]), group="g")])
    assert fingerprints(other)["credential"] != finding.fingerprint


def test_no_flagged_value_appears_by_default() -> None:
    text = render_sarif(fixture_scan(), model=MODEL, rule=rule_dict(), config_source="defaults", values=fixture_scan().values)
    assert SECRET not in text
    assert LONG_LINE_SECRET not in text
    assert "snippet" not in text
    assert "q8Zt…[24 chars]" in text


def test_no_redact_puts_values_in_messages_and_snippets() -> None:
    result = fixture_scan()
    log = sarif(result, no_redact=True)
    credential = next(r for r in log["runs"][0]["results"] if r["ruleId"] == "credential")
    assert credential["locations"][0]["physicalLocation"]["region"]["snippet"] == {"text": SECRET}
    assert SECRET in credential["message"]["text"]
