"""The learned credential judgement: features of every candidate, a small model read from JSON.

- :mod:`.features`: the cheap and the surprise features of one slot;
- :mod:`.model`: the judgement file (two logistic models' parameters, no pickle) and its reader;
- :mod:`.detector`: :class:`~.detector.LearnedCredentialDetector`, cheap model first, the
  reference model only for what the cheap model leaves undecided.

Training is bench-only (``bench/judgement_train.py``, scikit-learn); only the parameters ship,
in ``credential_judgement.json``.
"""
