#!/usr/bin/env python3
"""Time one hostile input through the model-free credential judgement (no model).

    PYTHONPATH=CHECKOUT timeout 30 python bench/hostile_inputs.py CASE

Run from a checkout's root, once per checkout to compare; CASE is a key of ``JUDGED`` (given to
``judged_slots``), of ``SHAPES`` (given to ``is_other_identifier``), or ``plan+judge`` (``regions``
then ``candidates`` of every file of ``smscan/`` and ``docs/``, as a scan asks).
"""
from __future__ import annotations

import glob
import sys
import time
from pathlib import Path

from smscan.detectors.credential_evidence import judged_slots
from smscan.detectors.credential_rule import CredentialRule
from smscan.detectors.value_shapes import is_other_identifier

case = sys.argv[1]
JUDGED = {
 "ext26": 'mode = "x' + '.A1' * 26 + '.!"',
 "pw_ext26": 'password = "x' + '.A1' * 26 + '.!"',
 "image26": 'image = "x:1' + 'a' * 26 + '!"',
 "thing44": 'mode = "' + 'A' * 44 + '1!"',
 "pin50k": 'pin = "=1' + '.1' * 50000 + '!"',
 "braces20k": 'v = "' + '{{' * 20000 + '"',
 "labels8k": "\n".join(f"PW:a{i}=Xk9q{i}Zp" for i in range(8000)),
 "labels1MB": "\n".join(f"PW:a{i}=Xk9q{i}Zp" for i in range(55000)),
 "json20k": "{" + ",".join(f'"k{i}":"v{i}"' for i in range(20000)) + "}",
 "spaces40k": 'x = "a"' + " " * 40000 + "!",
 "scheme40k": "see " + "a." * 40000 + "!",
 "numbers10k": "{" + ", ".join(f'"k{i}": {i}' for i in range(10000)) + "}",
 "escaped40k": "x = " + 'a\\"' * 40000 + "!",
}
SHAPES = {"version50k": "1" + ".1" * 50000 + "!", "product50k": "a/1" + ".1" * 50000 + " !"}
if case == "plan+judge":
    from smscan.detectors.credential import CredentialDetector
    from tests.detectors.scores import char_scores
    texts = [Path(f).read_text(encoding="utf-8") for f in sorted(glob.glob("smscan/**/*.py", recursive=True)) + sorted(glob.glob("docs/*.md"))]
    scores = [char_scores(t) for t in texts]
    d = CredentialDetector()
    t = time.perf_counter()
    for x in texts: d.regions(x, "a.py")
    for x, s in zip(texts, scores): d.candidates(x, s, path="a.py")
    print(f"{case}: {time.perf_counter() - t:.2f} s ({len(texts)} files, {sum(map(len, texts))} chars)")
    sys.exit()
text = JUDGED.get(case) or SHAPES[case]
t = time.perf_counter()
judged_slots(text, CredentialRule()) if case in JUDGED else is_other_identifier(text)
print(f"{case}: {time.perf_counter() - t:.3f} s ({len(text)} chars)")
