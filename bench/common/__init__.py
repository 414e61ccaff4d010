"""Helpers every benchmark of bench/ shares, one module per job.

- :mod:`bench.common.splits`: labelled splits (``labels.jsonl`` + ``corpus/`` + ``manifest.json``)
  read, copied and cut per file type; the shared scorer of ``shared/bench/secrets_eval`` found and loaded.
- :mod:`bench.common.runs`: the ``smscan`` of the running interpreter run on a folder, its JSON report read.
- :mod:`bench.common.sections`: a benchmark's own section of ``docs/BENCHMARKS.md`` written or replaced.
- :mod:`bench.common.listings`: values in printed listings masked the way smscan's reports mask them.
"""
