"""How a masked record is written: spans per text, the masked fraction, redaction, labels.

Chats are scored as one text, each message rendered as ``"{role}:\\n{content}\\n\\n"``, so later
messages are scored in the context of earlier ones; spans are reported per message and only
supervised messages' spans are kept.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from smscan.records import DatasetRecord

if TYPE_CHECKING:
    from smscan.exports.plan import ExportPlan

Span = tuple[int, int, str]
"""``[start, end)`` in the scored text, and the kind that masked it."""


def render_chat(roles: Sequence[str], contents: Sequence[str]) -> tuple[str, list[tuple[int, int]]]:
    """A chat as one text to score, and each message content's ``[start, end)`` in it.

    Example:
        >>> render_chat(["user", "assistant"], ["hi", "yo"])
        ('user:\\nhi\\n\\nassistant:\\nyo\\n\\n', [(6, 8), (21, 23)])
    """
    parts: list[str] = []
    bounds: list[tuple[int, int]] = []
    length = 0
    for role, content in zip(roles, contents):
        head = f"{role}:\n"
        start = length + len(head)
        bounds.append((start, start + len(content)))
        parts.append(f"{head}{content}\n\n")
        length += len(head) + len(content) + 2
    return "".join(parts), bounds


def output_record(
    record: DatasetRecord,
    bounds: list[tuple[int, int]],
    spans: list[Span],
    plan: ExportPlan,
    rule_dict: dict[str, Any],
    model: dict[str, Any],
) -> dict[str, Any]:
    """The record as written: its input fields and an ``smscan`` field with its spans.

    Args:
        record: the input record.
        bounds: each text's ``[start, end)`` in the scored text.
        spans: masked spans in the scored text (any order, overlaps allowed).
        plan: the export's plan (mode, placeholders, labeler).
        rule_dict: ``plan.rule_dict()``, computed once per export.
        model: what the record says about the model.

    Raises:
        SmscanError: the downstream tokenizer cannot label the record.
    """
    intervals = [b for b, ok in zip(bounds, record.supervised) if ok]
    per_text: list[list[tuple[int, int, str]]] = [[] for _ in record.texts]
    for start, end, kind in _merge(spans):
        for number, (lo, hi) in enumerate(bounds):
            a, b = max(start, lo), min(end, hi)
            if a < b and record.supervised[number]:
                per_text[number].append((a - lo, b - lo, kind))
    supervised_chars = sum(hi - lo for lo, hi in intervals)
    masked_chars = sum(b - a for spans_ in per_text for a, b, _ in spans_)
    fraction = round(masked_chars / supervised_chars, 6) if supervised_chars else 0.0
    masked_spans: list[list[int]] = []
    kinds: list[str] = []
    for number, spans_ in enumerate(per_text):
        for a, b, kind in spans_:
            masked_spans.append([number, a, b] if record.is_chat else [a, b])
            kinds.append(kind)
    out = dict(record.data)
    info: dict[str, Any] = {
        "masked_spans": masked_spans,
        "masked_fraction": fraction,
        **({"span_kinds": kinds} if plan.detections else {}),
        "rule": rule_dict,
        "model": model,
    }
    if plan.mode == "redact":
        redacted = [_redact(text, spans_, plan) for text, spans_ in zip(record.texts, per_text)]
        if record.is_chat:
            out[record.field] = [
                {**message, "content": text} for message, text in zip(record.data[record.field], redacted)
            ]
        else:
            out[record.field] = redacted[0]
    elif plan.labeler is not None:
        out.update(plan.labeler(record, [[(a, b) for a, b, _ in s] for s in per_text]))
    out["smscan"] = info
    return out


def _merge(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Sorted spans with overlapping or touching ones merged (the first kind wins)."""
    merged: list[tuple[int, int, str]] = []
    for start, end, kind in sorted(spans):
        if merged and start <= merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], end), last[2])
        else:
            merged.append((start, end, kind))
    return merged


def _redact(text: str, spans: list[tuple[int, int, str]], plan: ExportPlan) -> str:
    parts: list[str] = []
    previous = 0
    for start, end, kind in spans:
        parts.append(text[previous:start])
        parts.append(plan.placeholder(kind))
        previous = end
    parts.append(text[previous:])
    return "".join(parts)


def raw_json(record: DatasetRecord) -> str:
    return json.dumps(record.data, ensure_ascii=False, default=str)


