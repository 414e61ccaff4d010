"""Detectors turn token masks and cheap evidence into Findings."""
