"""The reference model: loading, fingerprinting and per-token scoring (torch imported lazily)."""
