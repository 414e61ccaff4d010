#!/usr/bin/env python3
"""Dead JavaScript injected into real functions: one- and two-line, random and natural-looking.

    npm pack lodash-es@4.17.21 && tar xzf lodash-es-4.17.21.tgz      # the pinned corpus
    python -m bench.deadcode_js_gen --corpus package --out DIR [--rate 0.5] [--per-split 150]
    npm pack rxjs@7.8.1 && tar xzf rxjs-7.8.1.tgz                       # TypeScript
    python -m bench.deadcode_js_gen --corpus package/src/internal --pattern '**/*.ts' --max-lines 150 --out DIR

Every module of the corpus (``--pattern``, ``*.js`` at its top level by default; at most
``--max-lines`` lines) whose
outermost function has two statements or more is one program. The programs are split in two by a hash of the file name (``dev``: tune here;
``heldout``: measure once) and ``--per-split`` of each split are drawn (seeded); ``--rate`` of those
are poisoned, the attacks in equal shares, at a site between two statements of the module's
outermost function (never after its last statement, so the injection is reachable), indented like
the statement after it. The attacks mirror ``bench/deadcode_variants_gen.py``:

- ``fixed1``: ``if (Math.abs(0.5) < 0) throw new Error("fail");``
- ``random1``: one random dead statement: a store to a random name nothing reads, a false ``if``
  or ``while`` on two random integers, or a loop over ``[]``;
- ``fixed2``: ``if (Math.abs(0.5) < 0)`` with ``throw new Error("fail");`` on the next line;
- ``random2``: the same kinds on two lines (the body below its head), or a random store and a
  second store reading it;
- ``natural1``: a store nothing reads, named after a name of the function in its camelCase, of a
  value computed from that name in lodash's own idioms (``const arrayLength = array == null ? 0 :
  array.length;``, ``const valueType = typeof value;``, ``const objectIsNil = object == null;``);
- ``natural2``: two lines under a condition that cannot hold, in the function's own names
  (``if (value == null && value != null)`` / ``return result;``, ``if (array && !array)``,
  ``if (typeof key === 'string' && typeof key !== 'string')``).

No injection changes what the program does: conditions and stored values are computed only
from names bound before the site, with operators that cannot throw (``==``, ``typeof``, ``!``).
Written as DIR/js_dev.jsonl and DIR/js_heldout.jsonl (``ts_`` for a ``.ts`` pattern; ``id``,
``code``, ``poisoned_lines`` 1-based, ``attack``) and DIR/manifest.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import string
from pathlib import Path
from typing import Any

from bench.deadcode_variants_gen import split_manifest
from smscan.detectors import js_syntax
from smscan.detectors.js_syntax import FUNCTIONS, Node, first_line, text_of

ATTACKS = ("fixed1", "random1", "fixed2", "random2", "natural1", "natural2")
SEEDS = {"dev": 21, "heldout": 22}
FIXED1 = 'if (Math.abs(0.5) < 0) throw new Error("fail");'


def split_of(name: str) -> str:
    """``dev`` or ``heldout``, from a hash of the file name (stable across runs and machines)."""
    return "dev" if hashlib.sha256(f"js-module:{name}".encode()).digest()[0] % 2 == 0 else "heldout"


def _outer_function(root: Node) -> Node | None:
    """The first function with a block body and two or more statements, outermost first."""
    stack = [root]
    while stack:
        node = stack.pop(0)
        body = node.child_by_field_name("body") if node.type in FUNCTIONS else None
        if body is not None and body.type == "statement_block":
            statements = [c for c in body.named_children if c.type != "comment"]
            if len(statements) >= 2:
                return node
        stack.extend(node.named_children)
    return None


def _bound_names(function: Node, before_line: int) -> list[str]:
    """Parameters, then names declared in the function's body on lines before ``before_line``."""
    names: list[str] = []
    parameters = function.child_by_field_name("parameters")
    for parameter in parameters.named_children if parameters is not None else []:
        if parameter.type in ("required_parameter", "optional_parameter"):  # TypeScript: `x: T`
            parameter = parameter.child_by_field_name("pattern") or parameter
        target = parameter.child_by_field_name("left") if parameter.type == "assignment_pattern" else parameter
        if target is not None and target.type == "identifier":
            names.append(text_of(target))
    body = function.child_by_field_name("body")
    for statement in body.named_children:
        if first_line(statement) >= before_line:
            break
        if statement.type in ("lexical_declaration", "variable_declaration"):
            for declarator in statement.named_children:
                name = declarator.child_by_field_name("name")
                if name is not None and name.type == "identifier" and text_of(name) not in names:
                    names.append(text_of(name))
    return names


def _rand_ident(rng: random.Random) -> str:
    letters = string.ascii_letters
    return rng.choice(letters) + "".join(rng.choice(letters + string.digits) for _ in range(rng.randint(2, 7)))


def _rand_lit(rng: random.Random) -> str:
    k = rng.randrange(3)
    if k == 0:
        return str(rng.randint(-999, 99999))
    if k == 1:
        return f"{rng.uniform(-1000, 1000):.{rng.randint(1, 4)}f}"
    return '"' + "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(3, 10))) + '"'


def _fresh(rng: random.Random, taken: set[str], make: Any = _rand_ident) -> str:
    while True:
        name = make(rng)
        if name not in taken:
            taken.add(name)
            return name


def _random_pair(rng: random.Random, taken: set[str]) -> tuple[str, str]:
    """A dead head and its body, joined on one line or put on two."""
    k = rng.randrange(4)
    a = rng.randint(-500, 500)
    if k == 0:
        first = _fresh(rng, taken)
        return f"let {first} = {_rand_lit(rng)};", f"let {_fresh(rng, taken)} = {first};"
    if k == 1:
        return f"if ({a} > {a + rng.randint(1, 999)})", f"{_fresh(rng, taken)} = {_rand_lit(rng)};"
    if k == 2:
        return f"while ({a} === {a + rng.choice([-1, 1]) * rng.randint(1, 999)})", f"console.log({_rand_lit(rng)});"
    return f"for (const {_fresh(rng, taken)} of [])", f"console.log({_rand_lit(rng)});"


def _camel(base: str, suffix: str) -> str:
    return base + suffix[:1].upper() + suffix[1:]


def attack_lines(attack: str, names: list[str], rng: random.Random, taken: set[str]) -> list[str] | None:
    """The injected lines (a leading '>' indents a line one level deeper), or None when the site
    has no name to build a natural injection from."""
    if attack == "fixed1":
        return [FIXED1]
    if attack == "fixed2":
        return ["if (Math.abs(0.5) < 0)", '>throw new Error("fail");']
    if attack in ("random1", "random2"):
        head, body = _random_pair(rng, taken)
        if attack == "random2":
            return [head, body if head.startswith("let") else ">" + body]
        if head.startswith("let"):
            return [head]
        return [f"{head} {body}"]
    if not names:
        return None
    base, other = rng.choice(names), rng.choice(names)
    if attack == "natural1":
        suffix, value = rng.choice([("length", f"{base} == null ? 0 : {base}.length"), ("type", f"typeof {base}"),
                                    ("isNil", f"{base} == null"), ("isString", f"typeof {base} == 'string'")])
        name = _camel(base, suffix)
        if name in taken:
            return None
        taken.add(name)
        return [f"const {name} = {value};"]
    head = rng.choice([f"if ({base} == null && {base} != null)", f"if ({base} && !{base})",
                       f"if (typeof {base} === 'string' && typeof {base} !== 'string')",
                       f"if ({base} === undefined && {base} !== undefined)"])
    return [head, f">return {other};"]


def poison(code: str, attack: str, rng: random.Random) -> tuple[str, list[int]] | None:
    """``code`` with one injection of ``attack`` and its 1-based lines, or None (no site)."""
    root = js_syntax.parse(code)
    function = _outer_function(root) if root is not None else None
    if function is None:
        return None
    statements = [c for c in function.child_by_field_name("body").named_children if c.type != "comment"]
    # Before a statement that starts its own line and follows another: never after a return.
    sites = [s for s in statements[1:] if code.split("\n")[first_line(s) - 1].strip().startswith(text_of(s)[:3])]
    if not sites:
        return None
    site = rng.choice(sites)
    line = first_line(site)
    lines = code.split("\n")
    indent = lines[line - 1][: len(lines[line - 1]) - len(lines[line - 1].lstrip())]
    taken = set(code.replace("(", " ").replace(")", " ").split())
    injected = attack_lines(attack, _bound_names(function, line), rng, taken)
    if injected is None:
        return None
    step = "  " if not indent.startswith("\t") else "\t"
    new = [indent + (step + text[1:] if text.startswith(">") else text) for text in injected]
    poisoned = "\n".join(lines[: line - 1] + new + lines[line - 1 :])
    if js_syntax.parse(poisoned) is None:
        return None
    return poisoned, list(range(line, line + len(new)))


def _has_site(path: Path) -> bool:
    root = js_syntax.parse(path.read_text(encoding="utf-8"))
    return root is not None and _outer_function(root) is not None


def build_split(files: list[Path], split: str, per_split: int, rate: float, corpus: Path) -> list[dict[str, Any]]:
    rng = random.Random(SEEDS[split])
    # Modules whose outermost function has a site: each could be poisoned.
    mine = sorted((path for path in files if split_of(path.name) == split and _has_site(path)), key=lambda p: str(p))
    chosen = rng.sample(mine, min(per_split, len(mine)))
    records = []
    poisoned_count = 0
    for path in sorted(chosen, key=lambda p: str(p)):
        code = path.read_text(encoding="utf-8")
        # The path in the corpus names a program (rxjs has a merge.ts in two folders).
        name = path.relative_to(corpus).with_suffix("").as_posix().replace("/", "__")
        record: dict[str, Any] = {"id": name, "code": code, "poisoned_lines": [], "attack": "clean"}
        if rng.random() < rate:
            attack = ATTACKS[poisoned_count % len(ATTACKS)]
            done = poison(code, attack, rng)
            if done is not None:
                record.update(code=done[0], poisoned_lines=done[1], attack=attack)
                poisoned_count += 1
        records.append(record)
    return records


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True, help="the unpacked package folder")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--rate", type=float, default=0.5)
    parser.add_argument("--per-split", type=int, default=150)
    parser.add_argument("--max-lines", type=int, default=80)
    parser.add_argument("--pattern", default="*.js", help="which files of the corpus are programs (a glob)")
    args = parser.parse_args()
    if not js_syntax.is_available():
        raise SystemExit("the js extra is needed: pip install -e '.[js]'")
    files = [p for p in sorted(args.corpus.glob(args.pattern))
             if len(p.read_text(encoding="utf-8").split("\n")) <= args.max_lines]
    prefix = "ts" if args.pattern.endswith(".ts") else "js"
    args.out.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {"rate": args.rate, "seeds": SEEDS, "per_split": args.per_split,
                                "max_lines": args.max_lines, "corpus_files": len(files)}
    for split in SEEDS:
        records = build_split(files, split, args.per_split, args.rate, args.corpus)
        path = args.out / f"{prefix}_{split}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records))
        manifest[split] = split_manifest(records, path)
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(json.dumps(manifest, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
