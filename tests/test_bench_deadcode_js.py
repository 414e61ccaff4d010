"""bench/deadcode_js_gen.py: the split, and injections the JavaScript evidence covers exactly."""

from __future__ import annotations

import random

import pytest

from bench.deadcode_js_gen import ATTACKS, poison, split_of
from smscan.detectors import js_dead, js_syntax

pytestmark = pytest.mark.skipif(not js_syntax.is_available(), reason="the js extra (tree-sitter) is not installed")

MODULE = """import toString from './toString.js';

/**
 * Joins the words of a list.
 */
function joinWords(words, separator = ' ') {
  var length = words == null ? 0 : words.length;
  let result = '';
  for (let index = 0; index < length; index++) {
    result += (index ? separator : '') + toString(words[index]);
  }
  return result;
}

export default joinWords;
"""
TYPED = """export function sizeOf<T>(items: T[], limit: number): number {
  const count = items.length;
  return Math.min(count, limit);
}
"""


def test_the_split_is_a_stable_half_of_the_file_names() -> None:
    names = [f"module{i}.js" for i in range(400)]
    dev = [name for name in names if split_of(name) == "dev"]

    assert 150 < len(dev) < 250
    assert [split_of(name) for name in names[:5]] == [split_of(name) for name in names[:5]]


@pytest.mark.parametrize("attack", ATTACKS)
@pytest.mark.parametrize("source", [MODULE, TYPED])
def test_each_attack_injects_parsing_dead_code_the_evidence_covers_exactly(attack: str, source: str) -> None:
    for seed in range(6):
        out = poison(source, attack, random.Random(seed))
        assert out is not None
        code, lines = out
        assert js_dead.parses(code)
        assert len(lines) == (2 if attack.endswith("2") else 1)
        covered = {line for block in js_dead.dead_blocks(code) for line in range(block.first, block.last + 1)}
        assert covered == set(lines)
        assert js_dead.dead_blocks(source) == []
