"""Calibration: labelled data, threshold choice, metrics (paper B.4) and saved thresholds."""
