"""What an export masks and writes: the rule, the detections, the mode and the labeller."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from smscan.engine.masking import MaskRule
from smscan.judge.values import ValueRule
from smscan.kinds import SURPRISE
from smscan.records import DatasetRecord
from smscan.records import Detection

Mode = Literal["mask", "redact"]
SURPRISE_PLACEHOLDER = "<MASKED>"


@dataclass(frozen=True, slots=True)
class ExportPlan:
    """What an export masks and writes.

    Attributes:
        rule: raw Surprise Masking, or None for detector findings only.
        detections: detectors with their thresholds.
        mode: ``mask`` (spans for training) or ``redact`` (text with placeholders, for release).
        placeholders: kind -> placeholder in redact mode (defaults: ``<MASKED>`` for surprise,
            ``<CREDENTIAL>``, ``<DEAD_CODE>``).
        labeler: adds downstream ``input_ids``/``attention_mask``/``labels`` to a record
            (``exports/labels.py``); None adds none.
        value_threshold: with a ``rule``, mask value-aware (``exports/values.py``: values whose
            randomness reaches this masked whole with their repeats, code structure by ``rule``);
            None masks by ``rule`` alone (the paper's rule, ``--masking paper``). ``smscan
            export`` masks value-aware by default.
    """

    rule: MaskRule | None
    detections: tuple[Detection, ...] = ()
    mode: Mode = "mask"
    placeholders: dict[str, str] = field(default_factory=dict)
    labeler: Callable[[DatasetRecord, list[list[tuple[int, int]]]], dict[str, Any]] | None = None
    value_threshold: float | None = None

    @property
    def values(self) -> ValueRule | None:
        """The value-aware rule, or None when the raw rule alone masks (``--masking paper``)."""
        if self.rule is None or self.value_threshold is None:
            return None
        return ValueRule(self.rule, value_threshold=self.value_threshold)

    def rule_dict(self) -> dict[str, Any]:
        kinds = ([SURPRISE] if self.rule is not None else []) + [d.detector.kind for d in self.detections]
        out: dict[str, Any] = {"kinds": kinds}
        if self.rule is not None:
            out[SURPRISE] = self.rule.as_dict()
            values = self.values
            out[SURPRISE].update(values.as_dict() if values is not None else {"masking": "paper"})
        for detection in self.detections:
            out[detection.detector.kind] = detection.as_dict()
        out["mode"] = self.mode
        return out

    def placeholder(self, kind: str) -> str:
        if kind in self.placeholders:
            return self.placeholders[kind]
        return SURPRISE_PLACEHOLDER if kind == SURPRISE else f"<{kind.upper().replace('-', '_')}>"
