"""The one judging stage: plan, score, mask, find candidates and keep them, one group at a time."""
