"""The rules every command uses: thresholds files, saved surprise entries, resolved once per command."""
