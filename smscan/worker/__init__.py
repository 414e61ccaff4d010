"""The warm scoring worker: one process keeps the reference model loaded behind a private socket.

    protocol.py   length-prefixed frames (JSON header + raw little-endian arrays), no pickle
    address.py    where a worker's socket lives (a 0700 folder of the user's) and its key
    server.py     ``WorkerServer``: serves one loaded scorer, serialises scoring, stops when idle
    client.py     ``WorkerClient`` (requests) and ``WorkerScorer`` (the ``Scorer`` protocol, with
                  an in-process fallback), ``connect_worker`` used by ``model/chain.py``
    spawn.py      start a worker detached (``smscan serve --detach``, ``worker = "auto"``)

Nothing here imports torch or transformers: a command served by a worker never loads them.
"""
