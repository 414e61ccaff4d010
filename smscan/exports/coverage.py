"""How well an export's masks hit labelled targets: target coverage and collateral masking.

The paper's figure 4 measures, over labelled data, the share of target content that is masked
(coverage) and the share of everything else that is masked too (collateral). Here both are
counted in code points of the exported texts: an exported record is matched to a labelled text
with exactly the same content (a text record's text, or a chat message's content), so the labels
file need not follow the export's order. Labels use the calibration shapes
(``docs/thresholds-format.md``): credential spans, or dead-code lines (a line's visible content
is its target span).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from smscan.calibration.labels import LabelledText, read_labels
from smscan.errors import SmscanError


def target_spans(document: LabelledText) -> list[tuple[int, int]]:
    """A labelled text's target spans: its spans, or its labelled lines' visible content."""
    spans = list(document.spans)
    if document.lines:
        starts = [0] + [i + 1 for i, c in enumerate(document.text) if c == "\n"]
        for line in document.lines:
            if 1 <= line <= len(starts):
                lo = starts[line - 1]
                hi = starts[line] - 1 if line < len(starts) else len(document.text)
                content = document.text[lo:hi]
                stripped = content.strip()
                if stripped:
                    first = lo + content.index(stripped)
                    spans.append((first, first + len(stripped)))
    return sorted(spans)


def measure(length: int, targets: list[tuple[int, int]], masked: list[tuple[int, int]]) -> tuple[int, int, int, int]:
    """(target chars, masked target chars, other chars, masked other chars) of one text."""
    is_target = bytearray(length)
    is_masked = bytearray(length)
    for a, b in targets:
        is_target[a:b] = b"\x01" * (min(b, length) - a)
    for a, b in masked:
        is_masked[a:b] = b"\x01" * (min(b, length) - a)
    target = sum(is_target)
    both = sum(t & m for t, m in zip(is_target, is_masked))
    masked_count = sum(is_masked)
    return target, both, length - target, masked_count - both


def coverage_report(output: Path, labels: Path, *, text_field: str | None = None) -> dict[str, Any]:
    """Target coverage and collateral masking rate of an exported JSONL against a labels file.

    Args:
        output: the export (JSONL records with ``smscan.masked_spans``).
        labels: labelled texts (credential spans or dead-code lines).
        text_field: the exported text field (default ``text``; chats: ``messages``).

    Returns:
        ``{"matched_texts", "target_chars", "target_coverage", "collateral_rate", ...}``.

    Raises:
        SmscanError: unreadable labels or export, or no exported text matches a labelled one.
    """
    by_text: dict[str, list[tuple[int, int]]] = {}
    for document in read_labels(labels):
        by_text.setdefault(document.text, target_spans(document))
    totals = [0, 0, 0, 0]
    matched = 0
    try:
        handle = output.open(encoding="utf-8")
    except OSError as error:
        raise SmscanError(f"{output}: cannot read the export: {error.strerror}") from error
    with handle:
        for line in handle:
            record = json.loads(line)
            for text, masked in _texts(record, text_field):
                if text in by_text:
                    matched += 1
                    for i, value in enumerate(measure(len(text), by_text[text], masked)):
                        totals[i] += value
    if matched == 0:
        raise SmscanError(f"{labels}: no exported text matches a labelled text; nothing to measure")
    target, covered, other, collateral = totals
    return {
        "labels": str(labels),
        "matched_texts": matched,
        "unit": "code point",
        "target_chars": target,
        "target_coverage": round(covered / target, 6) if target else None,
        "collateral_rate": round(collateral / other, 6) if other else None,
        "masked_chars": covered + collateral,
    }


def _texts(record: dict[str, Any], text_field: str | None) -> list[tuple[str, list[tuple[int, int]]]]:
    spans = record.get("smscan", {}).get("masked_spans", [])
    if text_field is None and isinstance(record.get("messages"), list):
        out = []
        for number, message in enumerate(record["messages"]):
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, str):
                out.append((content, [(a, b) for m, a, b in spans if m == number]))
        return out
    text = record.get(text_field or "text")
    return [(text, [(a, b) for a, b in spans])] if isinstance(text, str) else []
