"""bench/deadcode_variants_gen.py: the split, and attacks that write dead code the evidence sees."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bench.deadcode_heldout_gen import load_generator
from bench.deadcode_variants_gen import make_attacks, split_of
from smscan.detectors.python_dead import dead_lines

# The shared generator lives beside the checkout (../shared), or beside the folder of worktrees.
GENERATOR = next(
    (folder / "shared" / "bench" / "deadcode_gen.py" for folder in Path(__file__).resolve().parents[1].parents
     if (folder / "shared" / "bench" / "deadcode_gen.py").exists()),
    Path("shared/bench/deadcode_gen.py"),
)
PROGRAM = "def total_len(words, sep):\n    joined = sep.join(words)\n    size = len(joined)\n    return size\n"


def test_the_split_is_a_stable_half_of_the_task_ids() -> None:
    dev = [task for task in range(1, 975) if split_of(task) == "dev"]

    assert 400 < len(dev) < 575
    assert [split_of(task) for task in (1, 2, 3)] == [split_of(task) for task in (1, 2, 3)]


@pytest.mark.skipif(not GENERATOR.exists(), reason="the shared generator is outside this checkout")
@pytest.mark.parametrize("attack", ["fixed2", "random2", "natural1", "natural2"])
def test_each_variant_attack_injects_dead_code_the_evidence_covers(attack: str) -> None:
    generator = load_generator(GENERATOR)
    generator.PUBLIC_ATTACKS.update(make_attacks(generator))

    for seed in range(5):
        out = generator.poison(PROGRAM, generator.PUBLIC_ATTACKS[attack], random.Random(seed))
        assert out is not None
        code, lines = out
        compile(code, "<poisoned>", "exec")
        assert len(lines) == (1 if attack == "natural1" else 2)
        assert set(lines) <= set(dead_lines(code + "\n"))
