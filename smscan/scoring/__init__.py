"""The scorer chain: score cache -> warm worker client -> the model in this process.

    chain.py            ``build_scorer``: the one place the chain is assembled
    cache.py            the score cache (``cache_database.py`` its SQLite file, ``cache_entries.py`` its entries)
    cached_scorer.py    ``CachedScorer``: answers texts the cache has seen, scores the rest below it
    lazy.py             ``LazyScorer``: loads what is below only on the first miss
    judgements.py       a document's candidates, remembered beside its scores
    worker_address.py   where a worker's socket lives (a 0700 folder of the user's) and its key
    worker_protocol.py  length-prefixed frames (JSON header + raw little-endian arrays), no pickle
    worker_client.py    ``WorkerClient`` and ``WorkerScorer`` (the ``Scorer`` protocol, with an in-process fallback)
    worker_spawn.py     start a worker detached (``smscan serve --detach``, ``worker = "auto"``)

Every layer has the ``Scorer`` protocol (``smscan/model/scorer.py``).
"""
