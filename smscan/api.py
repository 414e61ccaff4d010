"""The Python API for data pipelines: mask records in memory and get what ``smscan export`` writes.

    >>> from smscan import MaskRule, load_masking_scorer, mask_texts  # doctest: +SKIP
    >>> scorer = load_masking_scorer()                                 # doctest: +SKIP
    >>> mask_texts(["token = 'q8Zt3x...'"], scorer=scorer)              # doctest: +SKIP
    [{'text': "token = 'q8Zt3x...'", 'smscan': {'masked_spans': [[9, 18]], ...}}]

The default masking is ``smscan export``'s: value-aware (``masking="values"``: a surprising value
masked whole with its repeats in the group, code structure by ``rule``) plus the credential
detector's findings when the packaged thresholds were calibrated for the scorer's model;
``masking="paper"`` is the paper's raw window rule alone (``docs/export-format.md``).

With Hugging Face ``datasets``::

    masker = batch_masker(scorer, rule=MaskRule(), tokenizer="gpt2")
    dataset = dataset.map(masker, batched=True, batch_size=64)

Each output record is the input plus ``smscan`` (``masked_spans``, ``masked_fraction``, ``rule``,
``model``; docs/export-format.md), plus ``input_ids``/``attention_mask``/``labels`` with a
tokenizer, or with the text replaced by placeholders in ``mode="redact"``. Importing this module
never imports torch; loading a scorer or a tokenizer does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal

from smscan.errors import SmscanError
from smscan.exports.masked import export_groups
from smscan.exports.plan import ExportPlan, Mode
from smscan.engine.masking import MaskRule
from smscan.model.scorer import Scorer
from smscan.records import Detection
from smscan.sources.datasets import DEFAULT_ROLES, RecordFormat, parse_record

__all__ = ["MaskRule", "batch_masker", "load_masking_scorer", "mask_records", "mask_texts"]

Masking = Literal["values", "paper"]


def load_masking_scorer(model: str | None = None, *, device: str = "auto", deterministic: bool = False) -> Scorer:
    """Load the reference model as a Scorer (the default model is pulled on first use).

    Args:
        model: ``default``, a Hugging Face hub id or a local folder (None: the default model).
        device: ``auto``, ``cpu``, ``cuda`` or ``mps``.
        deterministic: fp32 and one chunk per forward pass, so scores do not depend on batching.

    Returns:
        The scorer to pass to :func:`mask_texts`, :func:`mask_records` or :func:`batch_masker`.

    Raises:
        ModelError: the model cannot be found, fetched or loaded.
    """
    from smscan.model.load import load_scorer

    extra: dict[str, Any] = {"dtype": "fp32", "batch_size": 1} if deterministic else {}
    return load_scorer(model, device=device, pull_if_missing=True, **extra)


def mask_records(
    records: Iterable[Mapping[str, Any]],
    *,
    scorer: Scorer,
    rule: MaskRule | None = None,
    text_field: str | None = None,
    roles: Sequence[str] = DEFAULT_ROLES,
    group_by: str | None = None,
    tokenizer: str | Any | None = None,
    mode: Mode = "mask",
    detections: Sequence[Detection] | None = None,
    placeholders: Mapping[str, str] | None = None,
    masking: Masking = "values",
    value_threshold: float | None = None,
) -> Iterator[dict[str, Any]]:
    """Mask records (``{"text": ...}`` or chats ``{"messages": [...]}``) as ``smscan export`` does.

    Args:
        records: dicts, each group's records contiguous when ``group_by`` is given.
        scorer: the reference model (:func:`load_masking_scorer`).
        rule: raw Surprise Masking rule (default ``MaskRule()``); None with ``detections`` masks
            detector findings only.
        text_field: the field to mask (default ``text``; chats: ``messages``).
        roles: chat roles whose messages are scored and masked.
        group_by: field that groups records for duplicate propagation (default: each record alone).
        tokenizer: a downstream tokenizer name or folder (or a ``DownstreamLabeler``): adds
            ``input_ids``, ``attention_mask`` and ``labels``.
        mode: ``mask`` or ``redact``.
        detections: detectors with their thresholds, for ``credential``/``dead-code`` findings
            (None: ``credential`` at its packaged threshold under ``masking="values"`` when
            calibrated for the scorer's model, as ``smscan export`` does; else none).
        placeholders: kind -> placeholder for ``redact``.
        masking: ``values`` (value-aware, the default) or ``paper`` (the raw rule alone).
        value_threshold: value-aware masking's value randomness threshold (None: the packaged
            default, ``smscan.rules.maskings.DEFAULT_VALUE_THRESHOLD``).

    Yields:
        Output records, in input order.

    Raises:
        SmscanError: a record that cannot be masked (the reason is named), a group that is
            not contiguous, or an unknown ``masking``.
    """
    if masking not in ("values", "paper"):
        raise SmscanError(f"masking must be 'values' or 'paper', got {masking!r}")
    detectors_only = rule is None and bool(detections)  # rule None with detections: findings alone
    if detections is None:
        detections = _default_detections(scorer) if masking == "values" else ()
    labeler = None
    if tokenizer is not None:
        from smscan.exports.labels import DownstreamLabeler

        labeler = tokenizer if isinstance(tokenizer, DownstreamLabeler) else DownstreamLabeler(str(tokenizer))
    if rule is None and not detectors_only:
        rule = MaskRule()
    if masking == "values" and rule is not None and value_threshold is None:
        from smscan.rules.maskings import DEFAULT_VALUE_THRESHOLD

        value_threshold = DEFAULT_VALUE_THRESHOLD
    plan = ExportPlan(rule, tuple(detections), mode=mode, placeholders=dict(placeholders or {}), labeler=labeler,
                      value_threshold=value_threshold if masking == "values" else None)
    fmt = RecordFormat(text_field=text_field, roles=tuple(roles), group_by=group_by)
    parsed = (parse_record(dict(record), index, fmt) for index, record in enumerate(records))
    describe = getattr(scorer, "describe", None)
    model = dict(describe()) if callable(describe) else {"fingerprint": scorer.fingerprint}
    for group in export_groups(parsed, scorer, plan, model=model):
        if group.rejected:
            first = group.rejected[0]
            raise SmscanError(f"record {first.index}: {first.reason}")
        yield from group.records


def _default_detections(scorer: Scorer) -> tuple[Detection, ...]:
    """``credential`` at its packaged threshold when it was calibrated for the scorer's model
    (resolved as an export resolves it, with no repository and no config)."""
    from smscan.config.settings import Settings
    from smscan.rules.flags import RuleFlags
    from smscan.rules.resolve import resolve_rules

    return resolve_rules(Settings(), RuleFlags(masking="values"), root=None, fingerprint=scorer.fingerprint, purpose="export").detections


def mask_texts(
    texts: Sequence[str],
    *,
    scorer: Scorer,
    rule: MaskRule | None = None,
    groups: Sequence[str] | None = None,
    tokenizer: str | Any | None = None,
    mode: Mode = "mask",
    masking: Masking = "values",
    value_threshold: float | None = None,
) -> list[dict[str, Any]]:
    """Mask plain texts; each result is ``{"text": ..., "smscan": {...}}`` (plus labels).

    Args:
        texts: the texts.
        scorer: the reference model.
        rule: the masking rule (default ``MaskRule()``).
        groups: a group key per text for duplicate propagation (default: each text alone);
            texts of one group must be contiguous.
        tokenizer: a downstream tokenizer, for ``input_ids``/``attention_mask``/``labels``.
        mode: ``mask`` or ``redact`` (``text`` then holds the redacted text).
        masking: ``values`` (value-aware plus credential findings, ``smscan export``'s default)
            or ``paper`` (the paper's raw rule alone).
        value_threshold: value-aware masking's value threshold (None: the packaged default).

    Returns:
        One dict per text, in order.

    Raises:
        SmscanError: groups are not contiguous, or an unknown ``masking``.
    """
    if groups is not None and len(groups) != len(texts):
        raise SmscanError(f"got {len(groups)} groups for {len(texts)} texts")
    records = [
        {"text": text, **({"group": groups[i]} if groups is not None else {})} for i, text in enumerate(texts)
    ]
    out = list(mask_records(records, scorer=scorer, rule=rule, tokenizer=tokenizer, mode=mode,
                            group_by="group" if groups is not None else None, masking=masking,
                            value_threshold=value_threshold))
    if groups is not None:
        for record in out:
            record.pop("group", None)
    return out


def batch_masker(
    scorer: Scorer,
    *,
    rule: MaskRule | None = None,
    text_field: str = "text",
    group_by: str | None = None,
    tokenizer: str | Any | None = None,
    mode: Mode = "mask",
    masking: Masking = "values",
) -> Callable[[dict[str, list[Any]]], dict[str, list[Any]]]:
    """A function for ``datasets.Dataset.map(..., batched=True)``: columns in, new columns out.

    It returns the ``smscan`` column (and ``input_ids``, ``attention_mask``, ``labels`` with a
    tokenizer; the redacted text column in ``redact`` mode). Duplicate propagation runs within a
    batch's groups, so with ``group_by`` keep each group inside one batch.

    Args:
        scorer: the reference model.
        rule: the masking rule (default ``MaskRule()``).
        text_field: the text column; a ``messages`` column makes chat records.
        group_by: a column that groups rows for duplicate propagation.
        tokenizer: a downstream tokenizer name or folder.
        mode: ``mask`` or ``redact``.
        masking: ``values`` (the default, as ``smscan export``) or ``paper``.

    Returns:
        The batch function.
    """
    labeler: Any = None
    if tokenizer is not None:
        from smscan.exports.labels import DownstreamLabeler

        labeler = DownstreamLabeler(str(tokenizer)) if not isinstance(tokenizer, DownstreamLabeler) else tokenizer

    def mask_batch(batch: dict[str, list[Any]]) -> dict[str, list[Any]]:
        columns = list(batch)
        size = len(batch[columns[0]]) if columns else 0
        rows = [{name: batch[name][i] for name in columns} for i in range(size)]
        field = None if "messages" in batch and text_field == "text" else text_field
        out = list(mask_records(rows, scorer=scorer, rule=rule, text_field=field, group_by=group_by,
                                tokenizer=labeler, mode=mode, masking=masking))
        new = ["smscan"] + (["input_ids", "attention_mask", "labels"] if labeler is not None else [])
        if mode == "redact":
            new.append("messages" if field is None else text_field)
        return {name: [record[name] for record in out] for name in new}

    return mask_batch
