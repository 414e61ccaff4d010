#!/usr/bin/env python3
"""The paper's scoring rules side by side: AUROC on the credential and dead-code dev sets, and cost.

    python -m bench.rule_auroc --secrets DIR/labels.jsonl --deadcode DIR/mbpp_calib.jsonl \\
        [--export DIR/dev.jsonl --export-groups G1,G2] [--files 40] [--max-chars 8000] [--clean 100] \\
        [--runtime ctranslate2] [--threads 2] [--json OUT]

Rules (paper section 2, D.1, D.2, D.4), all on the same texts and the same model:

- global: unprompted mean NLL of a window (4 tokens for credentials, a code line for dead code).
- local: the same windows ranked against up to 32 valid neighbours on each side (score 100 - rank).
- prompted: mean NLL under the purpose's compliant instruction (``smscan/config/instructions.py``).
- contrast: mean of ``nll(compliant) - nll(violating)`` over the window.

Units: credentials score each character by its best covering 4-token window (labels: the secret
values; the paper's CredData rule); dead code scores each line by its line window (labels: the
injected lines; the paper's DePA rule); the export set (``bench/export_values_gen.py``, dev split:
private identities planted in real files, whole repositories named by ``--export-groups``) scores
characters as credentials do, with the ``personal-data`` instructions. AUROC counts ties one half;
TPR at FPR x is the recall at the highest threshold whose false-positive rate is at most x: 1%, and
3%, the export work's collateral target. No propagation, no detector evidence:
the rules alone. Cost: document tokens, tokens fed to the model (prompt tokens included) and
seconds to score each set under each rule, in one run (time varies 2-3x with machine load).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from smscan.sources.labels import LabelledText, read_labels
from smscan.calibration.metrics import auroc
from smscan.calibration.units import score_units
from smscan.detectors.candidate import Candidate
from smscan.engine.windows import Windows, fixed_windows, line_windows
from smscan.config.instructions import resolve_instructions
from smscan.model.context import plan_chunks
from smscan.model.load import load_scorer
from smscan.model.prompted import PromptedScorer, plan_pieces
from smscan.records import TokenScores

RULES = ("global", "local", "prompted", "contrast")
NEIGHBOURS = 32


def local_scores(windows: Windows, *, neighbours: int = NEIGHBOURS) -> np.ndarray:
    """100 minus each valid window's rank among its valid neighbours (paper D.2; NaN if none)."""
    valid = np.flatnonzero(np.isfinite(windows.scores))
    out = np.full(windows.scores.shape, np.nan)
    log_p = -windows.scores[valid]
    for k, index in enumerate(valid):
        lo, hi = max(0, k - neighbours), min(len(valid), k + neighbours + 1)
        others = np.concatenate([log_p[lo:k], log_p[k + 1 : hi]])
        if len(others):
            out[index] = 100.0 - 100.0 * float(np.mean(log_p[k] >= others))
    return out


class WindowRule:
    """A bench "detector": every window a candidate, scored by the rule (global or local)."""

    kind = "surprise"
    unit = "char"
    propagate = False
    context_chars = 0

    def __init__(self, *, lines: bool, local: bool) -> None:
        self.lines = lines
        self.local = local

    def applies_to(self, path: str) -> bool:
        return True

    def regions(self, text: str, path: str) -> None:
        return None

    def rule(self) -> dict[str, Any]:
        return {"rule": "local" if self.local else "global", "window": "line" if self.lines else 4}

    def candidates(self, text: str, scores: TokenScores, *, path: str = "") -> list[Candidate]:
        if self.lines:
            windows, _ = line_windows(text, scores.char_starts, scores.char_ends, scores.nll)
        else:
            windows = fixed_windows(scores.nll, size=4)
        values = local_scores(windows) if self.local else windows.scores
        found = []
        for start, end, value in zip(windows.starts, windows.ends, values):
            if np.isfinite(value) and end > start:
                found.append(Candidate(int(scores.char_starts[start]), int(scores.char_ends[end - 1]), float(value)))
        return found


def tpr_at_fpr(scores: np.ndarray, labels: np.ndarray, max_fpr: float = 0.01) -> float:
    """Recall at the lowest threshold whose false-positive rate is at most ``max_fpr``."""
    finite = np.where(np.isfinite(scores), scores, -np.inf)
    negatives = np.sort(finite[~labels])[::-1]
    allowed = int(np.floor(max_fpr * len(negatives)))
    # Strictly above the (allowed+1)-th highest negative: at most `allowed` negatives pass.
    cut = negatives[allowed] if allowed < len(negatives) else -np.inf
    return float(np.mean(finite[labels] > cut)) if labels.any() else float("nan")


def fed_tokens(scorer: Any, texts: Sequence[str], prefixes: Sequence[np.ndarray]) -> tuple[int, int]:
    """(document tokens, tokens fed to the model) for the texts under these prompts (none: unprompted)."""
    settings = scorer.settings
    documents = [len(t) for t in scorer.tokenize(list(texts))]
    if not prefixes:
        fed = sum(c.end - c.start for n in documents for c in plan_chunks(n, context_tokens=settings.context_tokens, stride=settings.stride))
        return sum(documents), fed
    overlap = settings.context_tokens - settings.stride
    fed = 0
    for prefix in prefixes:
        budget = settings.context_tokens - len(prefix)
        fed += sum(len(prefix) + p.end - p.start for n in documents for p in plan_pieces(n, budget=budget, overlap=overlap))
    return sum(documents), fed


def pick_secrets(documents: list[LabelledText], *, files: int, max_chars: int, seed: int) -> list[LabelledText]:
    """Up to ``files`` documents of at most ``max_chars``, half with secrets where there are enough."""
    short = [d for d in documents if len(d.text) <= max_chars]
    rng = random.Random(seed)
    with_secrets = [d for d in short if d.spans]
    without = [d for d in short if not d.spans]
    rng.shuffle(with_secrets)
    rng.shuffle(without)
    half = min(len(with_secrets), files // 2)
    return with_secrets[:half] + without[: files - half]


def pick_deadcode(documents: list[LabelledText], *, clean: int, seed: int) -> list[LabelledText]:
    """Every poisoned program and ``clean`` clean ones."""
    rng = random.Random(seed)
    poisoned = [d for d in documents if d.lines]
    others = [d for d in documents if not d.lines]
    rng.shuffle(others)
    return poisoned + others[:clean]


def pick_export(documents: list[LabelledText], groups: Sequence[str]) -> list[LabelledText]:
    """The export set's documents of the named repositories (whole groups, in file order)."""
    known = {d.group for d in documents}
    missing = [g for g in groups if g not in known]
    if missing:
        raise SystemExit(f"--export-groups: no group {', '.join(missing)} in the export set")
    return [d for d in documents if d.group in groups]


def measure(name: str, documents: list[LabelledText], base: Any, purpose: str, *, lines: bool) -> list[dict[str, Any]]:
    texts = [d.text for d in documents]
    rows = []
    scored: dict[str, list[TokenScores]] = {}
    for rule in ("unprompted", "prompted", "contrast"):
        scorer = base if rule == "unprompted" else PromptedScorer(base, rule, resolve_instructions(rule, [purpose]))
        started = time.perf_counter()
        scored[rule] = scorer.score_texts(texts)
        seconds = time.perf_counter() - started
        tokens, fed = fed_tokens(base, texts, getattr(scorer, "prefixes", []))
        rows.append({"set": name, "cost_rule": rule, "seconds": round(seconds, 2), "document_tokens": tokens, "fed_tokens": fed})
    results = []
    for rule in RULES:
        scores = scored["unprompted" if rule in ("global", "local") else rule]
        units = score_units(WindowRule(lines=lines, local=rule == "local"), documents, scores, propagate=False)
        values, labels = units.unit("line" if lines else "char")
        results.append({"set": name, "rule": rule, "unit": "line" if lines else "char",
                        "auroc": round(auroc(values, labels), 4), "tpr_at_fpr_1pct": round(tpr_at_fpr(values, labels), 4),
                        "tpr_at_fpr_3pct": round(tpr_at_fpr(values, labels, 0.03), 4),
                        "positives": int(labels.sum()), "units": len(labels)})
    return results + rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--secrets", type=Path, required=True)
    parser.add_argument("--deadcode", type=Path, required=True)
    parser.add_argument("--export", type=Path, help="the export set's dev.jsonl (bench/export_values_gen.py)")
    parser.add_argument("--export-groups", default="requests-2.32.3,gunicorn-23.0.0", help="repositories of --export to measure")
    parser.add_argument("--files", type=int, default=40)
    parser.add_argument("--max-chars", type=int, default=8000)
    parser.add_argument("--clean", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runtime", default="ctranslate2")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    base = load_scorer(device=args.device, dtype="fp32", runtime=args.runtime, threads=args.threads)
    secrets = pick_secrets(read_labels(args.secrets), files=args.files, max_chars=args.max_chars, seed=args.seed)
    deadcode = pick_deadcode(read_labels(args.deadcode), clean=args.clean, seed=args.seed)
    print(f"model {base.fingerprint} ({args.runtime}, {args.device}); credentials: {len(secrets)} files, "
          f"{sum(len(d.spans) for d in secrets)} secret spans; dead code: {len(deadcode)} programs, "
          f"{sum(len(d.lines) for d in deadcode)} poisoned lines", flush=True)
    rows = measure("credentials", secrets, base, "credentials", lines=False)
    rows += measure("dead code (MBPP)", deadcode, base, "dead-code", lines=True)
    if args.export is not None:
        exported = pick_export(read_labels(args.export), args.export_groups.split(","))
        print(f"export set: {len(exported)} files of {args.export_groups}, {sum(len(d.spans) for d in exported)} planted values", flush=True)
        rows += measure("export (dev)", exported, base, "personal-data", lines=False)
    print("| set | rule | unit | AUROC | TPR at FPR 1% | TPR at FPR 3% | positives / units |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        if "rule" in row:
            print(f"| {row['set']} | {row['rule']} | {row['unit']} | {row['auroc']:.4f} | {row['tpr_at_fpr_1pct']:.3f} | "
                  f"{row['tpr_at_fpr_3pct']:.3f} | {row['positives']} / {row['units']} |")
    print("\n| set | scoring | seconds | document tokens | tokens fed | fed per document token |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        if "cost_rule" in row:
            print(f"| {row['set']} | {row['cost_rule']} | {row['seconds']:.1f} | {row['document_tokens']} | "
                  f"{row['fed_tokens']} | {row['fed_tokens'] / max(row['document_tokens'], 1):.2f} |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
