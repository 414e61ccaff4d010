"""Settings: defaults, discovery and validation (filled in by the config work)."""

from __future__ import annotations

# Mean NLL (nats/token) over a 4-token window at or above which a window is surprising.
# Provisional until measured with the default model; see docs/BENCHMARKS.md.
DEFAULT_SURPRISE_THRESHOLD = 6.0
DEFAULT_WINDOW_TOKENS = 4
DEFAULT_MAX_FILE_BYTES = 1_000_000
