#!/usr/bin/env python3
"""What the credential detector's places and evidence alone find, without the model.

    python -m bench.credential_structure --data DATA [--nll 2.5]

Every character of every file gets the same NLL (``--nll``, nats), so at the packaged threshold
(2.99) a value is reported exactly when its evidence lifts it there: with 2.5, a secret name
(+1) or a vendor format (+0.5) does, an unnamed value (0) or a bare token (-1) does not. Prints
recall over the labelled credentials, the missed ones' contexts (line left of the value, value
replaced by ``<V>``), the look-alikes flagged and the other spans flagged (their contexts: for
development sets only, never run it on a held-out split). No model is loaded.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from pathlib import Path

from smscan.rules.thresholds_file import packaged_thresholds
from smscan.detectors import make_detector
from smscan.records import TokenScores


def flat_scores(text: str, nll: float) -> TokenScores:
    import numpy as np

    starts = np.arange(len(text), dtype=np.int64)
    values = np.full(len(text), nll)
    if len(text):
        values[0] = np.nan
    return TokenScores(np.zeros(len(text), np.int64), starts, starts + 1, values)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--nll", type=float, default=2.5)
    args = parser.parse_args()
    threshold = float(packaged_thresholds()["kinds"]["credential"]["threshold"])
    detector = make_detector("credential")
    total: Counter[tuple[str, str]] = Counter()
    missed: Counter[tuple[str, str]] = Counter()
    negatives: Counter[str] = Counter()
    negatives_flagged: Counter[str] = Counter()
    contexts: dict[tuple[str, str], list[str]] = defaultdict(list)
    other = 0
    for line in (args.data / "labels.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        text = (args.data / "corpus" / row["path"]).read_text(encoding="utf-8")
        flagged = bytearray(len(text))
        for candidate in detector.candidates(text, flat_scores(text, args.nll)):
            if candidate.score >= threshold:
                flagged[candidate.char_start : candidate.char_end] = b"\1" * (candidate.char_end - candidate.char_start)
        positive = bytearray(len(text))
        for span in row["spans"]:
            start, end = span["start"], span["end"]
            positive[start:end] = b"\1" * (end - start)
            key = (row.get("ext_class", "?"), span.get("context", "?"))
            total[key] += 1
            if sum(flagged[start:end]) * 2 < end - start:
                missed[key] += 1
                left = text[text.rfind("\n", 0, start) + 1 : start][-60:]
                contexts[key].append(left + "<V>" + text[end : end + 20].split("\n")[0])
        for negative in row["negatives"]:
            negatives[negative["category"]] += 1
            negatives_flagged[negative["category"]] += any(flagged[negative["start"] : negative["end"]])
        index = 0
        while index < len(text):
            if flagged[index] and not positive[index]:
                other += 1
                while index < len(text) and flagged[index] and not positive[index]:
                    index += 1
            index += 1
    found = sum(total.values()) - sum(missed.values())
    print(f"recall {found / max(sum(total.values()), 1):.3f} ({found} of {sum(total.values())}), "
          f"look-alikes flagged {sum(negatives_flagged.values())} of {sum(negatives.values())}, other spans flagged {other}")
    for key in sorted(missed):
        print(f"  missed {key[0]} {key[1]}: {missed[key]} of {total[key]}, e.g. {contexts[key][0]!r}")
    for category in sorted(negatives_flagged):
        if negatives_flagged[category]:
            print(f"  look-alike {category}: {negatives_flagged[category]} of {negatives[category]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
