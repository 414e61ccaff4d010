"""Moved to :mod:`smscan.calibration.surprise` (calibration lives in calibration/); kept for imports."""

from smscan.calibration.surprise import (
    SurpriseCalibration,
    calibrate_surprise,
    cross_validate_surprise,
)

__all__ = ["SurpriseCalibration", "calibrate_surprise", "cross_validate_surprise"]
