"""Rebuild the letter-pair table of :mod:`smscan.detectors.letter_pairs` from a source tree.

Counts, for each pair of adjacent letters, the distinct words holding it among the words of the
``.py`` files under a directory (identifiers split at case changes and underscores, docstrings
and comments included: English and code vocabulary alike), and prints the 26 rows of levels
0-9 (``round(9 * log(count + 1) / log(max + 1))``) to paste into the module.

    python -m bench.letter_pairs_table /usr/lib/python3.11
"""

from __future__ import annotations

import argparse
import math
import re
import string
from collections import Counter
from itertools import pairwise
from pathlib import Path

_WORD = re.compile(r"[A-Za-z]+")
_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def pair_levels(root: Path) -> list[str]:
    """26 rows of 26 digits: row = first letter, column = second."""
    words: set[str] = set()
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(errors="ignore")
        for word in _WORD.findall(text):
            words.update(part.lower() for part in _PART.findall(word))
    pairs = Counter(a + b for word in words for a, b in pairwise(word))
    top = max(pairs.values())
    letters = string.ascii_lowercase
    return [
        "".join(str(min(9, round(9 * math.log(pairs[a + b] + 1) / math.log(top + 1)))) for b in letters)
        for a in letters
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="a directory of Python sources (e.g. the standard library)")
    for row in pair_levels(parser.parse_args().root):
        print(f'    "{row}"')


if __name__ == "__main__":
    main()
