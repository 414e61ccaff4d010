"""What a scan reports: kinds asked for, allow comments, overlaps, the baseline; explain traces it."""
