"""Whether a run of letters reads as a word: the letter pairs English and code words are made of.

Random letters (a workspace id's random part that drew no digit: ``iqsqfapghp``) string together
pairs that words seldom hold (``qs``, ``sq``, ``qf``, ``hp``); words and identifiers, even rare or
glued ones (``getattribute``, ``iterrows``, ``werkzeug``), keep to common pairs. The table gives
each pair a level 0-9 from the log of how many distinct words of Python's standard library
(identifiers split at case changes and underscores, docstrings, comments) hold it; rebuild it with
``python -m bench.letter_pairs_table DIR``. A run whose mean pair level is low reads as no word.
"""

from __future__ import annotations

import string
from itertools import pairwise

# Row: first letter, column: second letter (a-z); from the Python 3.11 standard library.
_LEVELS = (
    "47774564736878473878655563",
    "65546433653744642664612253",
    "73657437627754843767643251",
    "75568543833644743665644342",
    "75887765534778576988566753",
    "63456732721634742655623241",
    "63448356612656540665533233",
    "73447333604444731546523143",
    "76777672434779863788362526",
    "40325201303211420231401010",
    "53447344622534442464424031",
    "74568444824745752466643272",
    "86358433724564770365632141",
    "74778684736646753578664342",
    "56774664525778671877766533",
    "74557545604744763766634161",
    "32322211110322224342621100",
    "85669564815666862777654262",
    "64758557825655674578745362",
    "85659537833655763876645364",
    "66656553613767561777322312",
    "64327332601333531333242222",
    "63446325612435531553223311",
    "43545523501443450446332432",
    "43445332502455461455344233",
    "52326212500221420222202022",
)
_INDEX = {letter: i for i, letter in enumerate(string.ascii_lowercase)}
# The least mean level of the 8+-letter words of the development texts is 5.29 (`werkzeug`);
# random letters average 4.3 (median of 10-letter runs).
_MIN_WORD_LEVEL = 5.0


def pair_level(word: str) -> float:
    """The mean level (0-9) of ``word``'s adjacent letter pairs, case ignored.

    Example:
        >>> pair_level("iqsqfapghp") < 5.0 < pair_level("getattribute")
        True
    """
    letters = [_INDEX[c] for c in word.lower() if c in _INDEX]
    if len(letters) < 2:
        return 9.0
    total = sum(int(_LEVELS[a][b]) for a, b in pairwise(letters))
    return total / (len(letters) - 1)


def reads_as_word(word: str) -> bool:
    """Whether the letters of ``word`` pair as a word's do (see the module docstring)."""
    return pair_level(word) >= _MIN_WORD_LEVEL
