"""Surprise Masking, pure: windows, selection rules, token masks, duplicate propagation, spans."""
