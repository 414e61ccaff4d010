"""The JSON report: its documented shape, a normalised golden, and the version."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from smscan.reports.json import VERSION, render_json
from smscan.reports.sarif import render_sarif
from tests.reports.golden import assert_golden
from tests.reports.scans import MODEL, fixture_scan, rule_dict

DOCS = Path(__file__).resolve().parents[2] / "docs" / "report-format.md"


def report() -> dict[str, Any]:
    result = fixture_scan()
    text = render_json(
        result, model=MODEL, rule=rule_dict(), config_source="defaults", values=result.values,
        suppressed={"inline": 0},
    )
    return json.loads(text)


def normalised(data: dict[str, Any]) -> str:
    """Sorted keys, no times or speeds (they vary from run to run)."""

    def scrub(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: scrub(v) for k, v in value.items() if k not in ("seconds", "tokens_per_second")}
        if isinstance(value, list):
            return [scrub(v) for v in value]
        return value

    return json.dumps(scrub(data), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_golden_json() -> None:
    assert_golden("report-json.txt", normalised(report()))


def test_golden_sarif() -> None:
    result = fixture_scan()
    log = json.loads(render_sarif(
        result, model=MODEL, rule=rule_dict(), config_source="defaults", values=result.values,
        suppressed={"inline": 0},
    ))
    assert_golden("report-sarif.txt", normalised(log))


def documented_example() -> dict[str, Any]:
    text = DOCS.read_text("utf-8")
    block = re.search(r"```json\n(.*?)```", text, re.DOTALL)
    assert block is not None
    return json.loads(block.group(1))


def test_the_documented_example_has_the_reports_shape_and_version() -> None:
    example, actual = documented_example(), report()
    assert example["version"] == actual["version"] == VERSION
    assert set(example) == set(actual)
    assert set(example["findings"][0]) == set(actual["findings"][0])
    assert set(example["stats"]) == set(actual["stats"])
    assert set(example["rule"]) == {"kinds", *example["rule"]["kinds"]}
    assert set(actual["rule"]) == {"kinds", *actual["rule"]["kinds"]}
