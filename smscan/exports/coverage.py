"""Moved to :mod:`smscan.calibration.coverage` (calibration lives in calibration/); kept for imports."""

from smscan.calibration.coverage import (
    coverage_report,
    measure,
    measure_tokens,
    reference_tokenizer,
    target_spans,
)

__all__ = ["coverage_report", "measure", "measure_tokens", "reference_tokenizer", "target_spans"]
