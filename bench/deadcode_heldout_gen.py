#!/usr/bin/env python3
"""A held-out dead-code set: MBPP poisoned with dead lines the `ast` evidence cannot prove dead.

    python -m bench.deadcode_heldout_gen --generator SHARED/bench/deadcode_gen.py --out DIR [--seed 2]

The public calibration set's attacks (a constant-false condition, a loop over range(0), a store
nothing reads) are exactly what smscan's Python evidence proves dead, so on that set the evidence
looks perfect. Real dead code is often only dead given what a value can be. This set reuses the
generator's own pipeline (site choice, indentation, fresh names, running each program's MBPP tests
before and after) with one attack, ``opaque1``: one dead line whose condition reads a parameter of
the enclosing function, so no constant evaluation decides it:

    if len(str(P)) < 0: raise ValueError("...")
    if P is None and P is not None: return P
    while not isinstance(P, object): P = None
    for NAME in str(P)[:0]: print(NAME)

(or ``if sorted([]) != []: ...`` in a function without parameters). It measures whether a
threshold chosen on the calibration set carries over to dead code only surprise can see. Written
as DIR/mbpp_opaque.jsonl in the generator's format, with a manifest.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any


def load_generator(path: Path) -> ModuleType:
    """The shared generator as a module (its helpers are meant to be imported)."""
    spec = importlib.util.spec_from_file_location("deadcode_gen", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules["deadcode_gen"] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def attack_opaque1(generator: ModuleType) -> Any:
    def attack(code: str, site: Any, rng: random.Random, taken: set[str]) -> list[str]:
        word = generator._rand_str(rng)
        if not site.params:
            return [f"if sorted([]) != []: raise ValueError({word})"]
        p = rng.choice(site.params)
        k = rng.randrange(4)
        if k == 0:
            return [f"if len(str({p})) < 0: raise ValueError({word})"]
        if k == 1:
            return [f"if {p} is None and {p} is not None: return {p}"]
        if k == 2:
            return [f"while not isinstance({p}, object): {p} = None"]
        name = generator.fresh_name(rng, taken, generator._rand_ident)
        return [f"for {name} in str({p})[:0]: print({name})"]

    return attack


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--generator", type=Path, required=True, help="shared/bench/deadcode_gen.py")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--rate", type=float, default=0.05)
    args = parser.parse_args()
    generator = load_generator(args.generator)
    generator.PUBLIC_ATTACKS["opaque1"] = attack_opaque1(generator)
    records = generator.build_mbpp_calibration(args.seed, args.rate, attacks=("opaque1",),
                                               log=lambda message: print(message, file=sys.stderr))
    path = generator.write_set(records, args.out, "mbpp_opaque")
    manifest = {
        "set": "mbpp_opaque", "seed": args.seed, "rate": args.rate, "programs": len(records),
        "poisoned_programs": sum(1 for r in records if r["poisoned_lines"]),
        "generator_sha256": hashlib.sha256(args.generator.read_bytes()).hexdigest(),
        "output_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
    }
    (args.out / "mbpp_opaque_manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(json.dumps(manifest, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
