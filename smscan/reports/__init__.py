"""Reports: the terminal view and the machine-readable formats."""
