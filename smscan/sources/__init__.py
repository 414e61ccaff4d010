"""Sources turn a scan target into Documents (and Skips with a reason)."""
