"""The warm scoring worker: one process keeps the reference model loaded behind a private socket.

    server.py     ``WorkerServer``: serves one loaded scorer, serialises scoring, stops when idle

What a client process needs to reach a worker (where its socket lives, the frames, the client and
the detached start) is part of the scorer chain: ``smscan/scoring/worker_*.py``. Nothing here
imports torch or transformers: a command served by a worker never loads them.
"""
