#!/usr/bin/env python3
"""Dead-code variants on MBPP: two-line and natural-looking injections, a dev and a held-out split.

    python -m bench.deadcode_variants_gen --generator SHARED/bench/deadcode_gen.py --out DIR

MBPP's tasks are split in two by a hash of the task id (``dev``: tune here; ``heldout``: measure
once). Each split is poisoned through the shared generator's own pipeline (insertion sites,
indentation, fresh names, each program's MBPP tests run before and after the injection, so every
injection is behaviour-preserving), ``--rate`` of its programs, the attacks in equal shares:

- ``fixed1``, ``random1``: the shared generator's one-line attacks;
- ``fixed2``: ``if abs(0.5) < 0:`` with ``raise Exception("fail")`` on its own line below;
- ``random2``: two random lines: an always-false ``if``/``while`` on two random integers or a
  ``for`` over ``range(0)`` with its body on the next line, or a store to a random name followed by
  a second store that reads it (nothing reads the second);
- ``natural1``: one store nothing reads, named after a name of the same function, calling a
  builtin the file calls on that name (``arr_len = len(arr)``);
- ``natural2``: two lines under a condition that cannot hold, written in the function's own names
  (``if len(arr) < 0:`` / ``return arr``; ``if n and not n:``; ``for x in arr[:0]:``).

Written as DIR/mbpp_dev.jsonl and DIR/mbpp_heldout.jsonl in the generator's format (with
``--write-py``, each program as DIR/py/<split>/<id>.py too), and DIR/manifest.json.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import random
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from bench.deadcode_heldout_gen import load_generator

ATTACKS = ("fixed1", "random1", "fixed2", "random2", "natural1", "natural2")
SEEDS = {"dev": 11, "heldout": 12}
# Builtins a natural store may call, each with the suffix its result's name takes.
NATURAL_CALLS = {"len": "len", "sorted": "sorted", "str": "str", "list": "items", "set": "set",
                 "sum": "total", "max": "max", "min": "min", "abs": "abs", "tuple": "tuple"}


def split_of(task_id: int) -> str:
    """``dev`` or ``heldout``, from a hash of the task id (stable across runs and machines)."""
    return "dev" if hashlib.sha256(f"mbpp-task:{task_id}".encode()).digest()[0] % 2 == 0 else "heldout"


def _function_names(code: str, site: Any) -> tuple[list[str], set[str]]:
    """Names the site's function binds before the site (parameters first), and builtins the file calls."""
    tree = ast.parse(code)
    called = {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    names = list(site.params)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (node.lineno, node.end_lineno) == tuple(site.func_span):
            for inner in ast.walk(node):
                if (isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Store)
                        and inner.lineno <= site.index and inner.id not in names):
                    names.append(inner.id)
    return names, called


def _natural_name(base: str, suffix: str, rng: random.Random, taken: set[str]) -> str | None:
    for candidate in (f"{base}_{suffix}", f"{suffix}_{base}", f"{base}_{suffix}{rng.randint(2, 9)}"):
        if candidate not in taken and candidate.isidentifier():
            taken.add(candidate)
            return candidate
    return None


def make_attacks(generator: ModuleType) -> dict[str, Any]:
    """The variant attacks, each ``(code, site, rng, taken) -> lines`` as the generator calls them."""
    rand_str, rand_ident, rand_lit = generator._rand_str, generator._rand_ident, generator._rand_lit
    fresh = generator.fresh_name

    def fixed2(code: str, site: Any, rng: random.Random, taken: set[str]) -> list[str]:
        return ["if abs(0.5) < 0:", '>raise Exception("fail")']

    def random2(code: str, site: Any, rng: random.Random, taken: set[str]) -> list[str]:
        k = rng.randrange(4)
        if k == 0:
            a = rng.randint(-500, 500)
            return [f"if {a} > {a + rng.randint(1, 999)}:", f">{fresh(rng, taken, rand_ident)} = {rand_lit(rng)}"]
        if k == 1:
            a = rng.randint(-500, 500)
            return [f"while {a} == {a + rng.choice([-1, 1]) * rng.randint(1, 999)}:", f">print({rand_str(rng)})"]
        if k == 2:
            return [f"for {fresh(rng, taken, rand_ident)} in range(0):", f">print({rand_str(rng)})"]
        first, second = fresh(rng, taken, rand_ident), fresh(rng, taken, rand_ident)
        return [f"{first} = {rand_lit(rng)}", f"{second} = {first}"]

    def natural1(code: str, site: Any, rng: random.Random, taken: set[str]) -> list[str] | None:
        names, called = _function_names(code, site)
        if not names:
            return None
        base = rng.choice(names)
        calls = sorted(set(NATURAL_CALLS) & called) or ["len", "str"]
        call = rng.choice(calls)
        name = _natural_name(base, NATURAL_CALLS[call], rng, taken)
        return None if name is None else [f"{name} = {call}({base})"]

    def natural2(code: str, site: Any, rng: random.Random, taken: set[str]) -> list[str] | None:
        names, _ = _function_names(code, site)
        if not names:
            return None
        base = rng.choice(names)
        other = rng.choice(names)
        k = rng.randrange(4)
        head = [f"if len({base}) < 0:", f"if {base} and not {base}:",
                f"if {base} is None and {base} is not None:", f"for {other}_item in {base}[:0]:"][k]
        body = rng.choice([f">return {other}", f">{other} = {base}", f">print({other})"])
        if k == 3:
            body = rng.choice([f">return {other}_item", f">print({other}_item)"])
        return [head, body]

    return {"fixed2": fixed2, "random2": random2, "natural1": natural1, "natural2": natural2}


def build_split(generator: ModuleType, mbpp: Path, split: str, rate: float) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in mbpp.read_text().splitlines() if line.strip()]
    mine = [row for row in rows if split_of(row["task_id"]) == split]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "mbpp.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in mine))
        return list(generator.build_mbpp_calibration(SEEDS[split], rate, path, attacks=ATTACKS,
                                                     log=lambda message: print(split, message, file=sys.stderr)))


def split_manifest(records: list[dict[str, Any]], path: Path) -> dict[str, Any]:
    """A written split's manifest entry: programs, injections per attack, lines, the file's hash."""
    attacks: dict[str, int] = {}
    for record in records:
        attacks[record["attack"]] = attacks.get(record["attack"], 0) + 1
    return {"programs": len(records), "attacks": attacks,
            "poisoned_lines": sum(len(r["poisoned_lines"]) for r in records),
            "output_sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--generator", type=Path, required=True, help="shared/bench/deadcode_gen.py")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--rate", type=float, default=0.4)
    parser.add_argument("--write-py", action="store_true")
    args = parser.parse_args()
    generator = load_generator(args.generator)
    generator.PUBLIC_ATTACKS.update(make_attacks(generator))
    manifest: dict[str, Any] = {"rate": args.rate, "seeds": SEEDS,
                                "generator_sha256": hashlib.sha256(args.generator.read_bytes()).hexdigest()}
    for split in SEEDS:
        records = build_split(generator, generator.MBPP_PATH, split, args.rate)
        path = generator.write_set(records, args.out, f"mbpp_{split}", args.write_py)
        manifest[split] = split_manifest(records, path)
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(json.dumps(manifest, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
