"""Which pieces of a document each enabled kind needs scored, with their left context."""
