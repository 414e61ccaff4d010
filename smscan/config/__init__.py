"""Settings: find, parse and validate the configuration; the scoring rules and their instructions."""
