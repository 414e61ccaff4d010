"""How well an export's masks hit labelled targets: target coverage and collateral masking.

The paper's figure 4 measures, over labelled data, the share of target content that is masked
(target coverage, the TPR) and the share of everything else that is masked too (collateral
masking rate, the FPR). An exported record is matched to a labelled text with exactly the same
content (a text record's text, or a supervised chat message's content), so the labels file need
not follow the export's order. Labels use the calibration shapes (``docs/thresholds-format.md``):
credential spans, or dead-code lines (a line's visible content is its target span).

Three units, each counted over the matched texts:

- code points: a code point is a target when a labelled span holds it, masked when a masked span
  holds it;
- reference tokens (the paper's unit, and that of ``calibrate --kind surprise``): the matched text
  tokenized by the reference model alone (a chat message without the conversation before it); a
  token is a target when it overlaps a labelled span by a code point, masked when it overlaps a
  masked span (raw masking masks whole reference tokens, so these are exactly its masked tokens);
- downstream tokens (with ``--tokenizer``): the tokens of the written ``input_ids`` that overlap
  the matched text; a target as above, masked when its written label is -100.

Tokens of zero width (special tokens) are in no unit.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from smscan.sources.labels import LabelledText, read_labels
from smscan.engine.spans import merge_touching
from smscan.errors import SmscanError
from smscan.exports.labels import IGNORE_INDEX, DownstreamLabeler, overlaps
from smscan.records import DatasetRecord, TokenScores
from smscan.sources.datasets import DEFAULT_ROLES, RecordFormat, parse_record

Tokenize = Callable[[Sequence[str]], list[TokenScores]]
# Matched texts tokenized by the reference model at once (one tokenizer call per batch).
_TOKENIZE_BATCH = 64


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
    is_target = np.zeros(length, dtype=np.bool_)
    is_masked = np.zeros(length, dtype=np.bool_)
    for a, b in targets:
        is_target[a:b] = True
    for a, b in masked:
        is_masked[a:b] = True
    return _counts(is_target, is_masked)


def _counts(is_target: np.ndarray, is_masked: np.ndarray) -> tuple[int, int, int, int]:
    target = int(is_target.sum())
    both = int((is_target & is_masked).sum())
    return target, both, int(is_target.size) - target, int(is_masked.sum()) - both


def measure_tokens(
    offsets: np.ndarray, targets: list[tuple[int, int]], masked: np.ndarray
) -> tuple[int, int, int, int]:
    """(target tokens, masked target tokens, other tokens, masked other tokens) of one text.

    Args:
        offsets: (tokens, 2) code-point offsets of the tokens to count.
        targets: the text's labelled spans.
        masked: bool per token.

    Example:
        >>> measure_tokens(np.array([[0, 2], [2, 4], [4, 6]]), [(3, 4)], np.array([False, True, True]))
        (1, 1, 2, 1)
    """
    offsets = np.asarray(offsets, dtype=np.int64).reshape(-1, 2)
    wide = offsets[:, 1] > offsets[:, 0]
    return _counts(overlaps(offsets, _disjoint(targets))[wide], np.asarray(masked, dtype=np.bool_)[wide])


def _disjoint(spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    # overlaps() wants sorted, disjoint, non-empty intervals; labelled spans may touch or nest.
    return merge_touching(sorted((start, end) for start, end in spans if end > start))


@dataclass(slots=True)
class _Tally:
    """Pooled counts of one unit."""

    target: int = 0
    covered: int = 0
    other: int = 0
    collateral: int = 0

    def add(self, counts: tuple[int, int, int, int]) -> None:
        self.target += counts[0]
        self.covered += counts[1]
        self.other += counts[2]
        self.collateral += counts[3]

    def as_dict(self) -> dict[str, Any]:
        return {
            "targets": self.target,
            "others": self.other,
            "masked": self.covered + self.collateral,
            "target_coverage": round(self.covered / self.target, 6) if self.target else None,
            "collateral_rate": round(self.collateral / self.other, 6) if self.other else None,
        }


def reference_tokenizer(scorer: Any) -> Tokenize:
    """How ``scorer`` tokenizes, without running the model when it can (``scorer.tokenize``)."""
    tokenize: Tokenize = getattr(scorer, "tokenize", None) or scorer.score_texts
    return tokenize


def coverage_report(
    output: Path,
    labels: Path,
    *,
    text_field: str | None = None,
    roles: Sequence[str] = DEFAULT_ROLES,
    reference: Tokenize | None = None,
    downstream: DownstreamLabeler | None = None,
) -> dict[str, Any]:
    """Target coverage and collateral masking rate of an export against a labels file.

    Args:
        output: the export (JSONL or Parquet records with ``smscan.masked_spans``).
        labels: labelled texts (credential spans or dead-code lines).
        text_field: the exported text field (default ``text``; chats: ``messages``).
        roles: the chat roles the export supervised; other messages are not matched.
        reference: the reference model's tokenizer (:func:`reference_tokenizer`); None leaves
            out the reference-token figures.
        downstream: the export's ``--tokenizer``; None leaves out the downstream-token figures.

    Returns:
        ``labels``, ``matched_texts``, the code-point figures at the top level (``unit``,
        ``target_chars``, ``target_coverage``, ``collateral_rate``, ``masked_chars``), and
        ``reference_tokens`` / ``downstream_tokens`` (``targets``, ``others``, ``masked``,
        ``target_coverage``, ``collateral_rate``) when asked for.

    Raises:
        SmscanError: unreadable labels or export, written ``input_ids`` that ``downstream`` does
            not reproduce, or no exported text matching a labelled one.

    Example::

        report = coverage_report(Path("out.jsonl"), Path("labels.jsonl"),
                                 reference=reference_tokenizer(scorer))
        report["reference_tokens"]["target_coverage"]
    """
    by_text: dict[str, list[tuple[int, int]]] = {}
    for document in read_labels(labels):
        by_text.setdefault(document.text, target_spans(document))
    fmt = RecordFormat(text_field=text_field, roles=tuple(roles))
    chars, tokens, downstream_tally = _Tally(), _Tally(), _Tally()
    pending: list[tuple[str, list[tuple[int, int]]]] = []
    matched = 0

    def flush() -> None:
        if reference is not None and pending:
            for (text, masked), scores in zip(pending, reference([text for text, _ in pending])):
                offsets = np.stack([scores.char_starts, scores.char_ends], axis=1)
                tokens.add(measure_tokens(offsets, by_text[text], overlaps(offsets, _disjoint(masked))))
        pending.clear()

    for number, record in enumerate(_records(output), start=1):
        parsed = parse_record(record, number - 1, fmt)
        if not isinstance(parsed, DatasetRecord):
            continue
        hits = [hit for hit in _texts(record, parsed) if hit[1] in by_text]
        for _, text, masked in hits:
            matched += 1
            chars.add(measure(len(text), by_text[text], masked))
            pending.append((text, masked))
        if len(pending) >= _TOKENIZE_BATCH:
            flush()
        if downstream is not None and hits:
            _add_downstream(downstream_tally, downstream, record, parsed, hits, by_text, where=f"{output}:{number}")
    flush()
    if matched == 0:
        raise SmscanError(f"{labels}: no exported text matches a labelled text; nothing to measure")
    in_chars = chars.as_dict()
    report: dict[str, Any] = {
        "labels": str(labels),
        "matched_texts": matched,
        "unit": "code point",
        "target_chars": chars.target,
        "target_coverage": in_chars["target_coverage"],
        "collateral_rate": in_chars["collateral_rate"],
        "masked_chars": in_chars["masked"],
    }
    if reference is not None:
        report["reference_tokens"] = tokens.as_dict()
    if downstream is not None:
        report["downstream_tokens"] = {"tokenizer": downstream.name, **downstream_tally.as_dict()}
    return report


def _records(output: Path) -> Iterator[dict[str, Any]]:
    if output.name.lower().endswith(".parquet"):
        try:
            import pyarrow.parquet as pq

            parquet = pq.ParquetFile(output)
            for batch in parquet.iter_batches(batch_size=256):
                yield from batch.to_pylist()
        except (ImportError, OSError, ValueError) as error:
            raise SmscanError(f"{output}: cannot read the export: {error}") from error
        return
    try:
        handle = output.open(encoding="utf-8")
    except OSError as error:
        raise SmscanError(f"{output}: cannot read the export: {error.strerror}") from error
    with handle:
        for line in handle:
            yield json.loads(line)


def _texts(record: dict[str, Any], parsed: DatasetRecord) -> list[tuple[int, str, list[tuple[int, int]]]]:
    """Each supervised text of a record: its number (a chat's message index), text and masked spans."""
    spans = record.get("smscan", {}).get("masked_spans", [])
    if parsed.is_chat:
        return [
            (number, text, [(a, b) for m, a, b in spans if m == number])
            for number, (text, ok) in enumerate(zip(parsed.texts, parsed.supervised))
            if ok
        ]
    return [(0, parsed.texts[0], [(a, b) for a, b in spans])]


def _add_downstream(
    tally: _Tally,
    labeler: DownstreamLabeler,
    record: dict[str, Any],
    parsed: DatasetRecord,
    hits: list[tuple[int, str, list[tuple[int, int]]]],
    by_text: dict[str, list[tuple[int, int]]],
    *,
    where: str,
) -> None:
    """Count the written downstream tokens of each matched text of one record."""
    if parsed.is_chat:
        rendered, bounds = labeler.render(parsed)
        special = False
    else:
        rendered, bounds, special = parsed.texts[0], [(0, len(parsed.texts[0]))], True
    encoded = labeler.tokenizer(rendered, add_special_tokens=special, return_offsets_mapping=True)
    written = record.get("input_ids")
    labels = record.get("labels")
    if list(encoded["input_ids"]) != written or not isinstance(labels, list) or len(labels) != len(written):
        raise SmscanError(
            f"{where}: the record's input_ids and labels were not written by --tokenizer {labeler.name}; "
            "give the tokenizer the export used"
        )
    offsets = np.asarray(encoded["offset_mapping"], dtype=np.int64).reshape(-1, 2)
    masked = np.asarray(labels, dtype=np.int64) == IGNORE_INDEX
    for number, text, _ in hits:
        lo, hi = bounds[number]
        inside = overlaps(offsets, [(lo, hi)])
        targets = [(lo + a, lo + b) for a, b in by_text[text]]
        tally.add(measure_tokens(offsets[inside], targets, masked[inside]))
