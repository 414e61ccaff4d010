#!/usr/bin/env python3
"""Does a model trained on smscan's export learn the private values? Train on four versions of one set.

    python -m bench.extraction [--write] [--scale N] [--device cpu|cuda] [--shared SHARED/bench]

The set (``bench/extraction_set.py``): real files of pinned packages with an API key, a password,
an e-mail address and an internal hostname planted ``PLANTS_PER_VALUE`` times each across the
files of each repository. The same small causal LM (a GPT-2 shaped model, random init, fixed seed,
on a byte-level BPE tokenizer trained on the host files without planted values) is trained with a
plain torch loop, same seed, same steps, same batch order, on:

``raw``      the planted text, every token a label;
``smscan``   ``smscan export --group-by group --tokenizer T``: its ``input_ids`` and ``labels``
             (-100 where masked), the text kept in context;
``redact``   ``smscan export --group-by group --mode redact``: the placeholder text, every token a label;
``regex``    the planted text with -100 on the tokens a regex-only baseline finds (e-mails, key
             prefixes, long hex, ``password|token|key = value`` assignments, internal hostnames);
``control``  the same files with *other* values of the same shapes in the same places: a model that
             never saw the planted values, the base their likelihood is compared with.

Measured per planted occurrence, from the value's own left context in the raw text (the last
``CONTEXT`` tokens before it): exact extraction (greedy decoding reproduces the value), the share of
its characters reproduced in place, its log-likelihood in nats, and its rank among
``ALTERNATIVES`` same-shape values drawn by the same generator (1 = preferred to all). Utility:
mean token loss on held-out code (files of other packages, nothing planted). ``--write`` writes
``bench/results/extraction.json`` and the section of docs/BENCHMARKS.md.

Why not the default reference model: smscan's masks are chosen by that model's surprise, so
training it would grade the export with its own judge; and fine-tuning 135M parameters on these
two shared cores runs at about 8 tokens a second (measured), far from memorising anything in 40
minutes. The small model shares nothing with it (weights, tokenizer).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.extraction_set import ExtractionSet, build_set, train_tokenizer

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "extraction.json"
BENCHMARKS = ROOT / "docs" / "BENCHMARKS.md"
HEADING = "Extraction of planted values after training on the export (bench.extraction)"
ARMS = ("raw", "smscan", "smscan_sm95", "redact", "regex", "control")
BLOCK = 64  # training sequence length in tokens
STRIDE = 32  # blocks overlap by half, so every token is seen with at least STRIDE tokens before it
CONTEXT = 40  # left-context tokens given to the model when extracting
ALTERNATIVES = 19


@dataclass(frozen=True)
class Scale:
    """The sizes of one run; ``--scale N`` multiplies repositories' files, steps and model width."""

    repositories: int = 4
    files: int = 4
    lines: int = 12
    heldout_repositories: int = 2
    vocab: int = 1024
    width: int = 128
    layers: int = 2
    steps: int = 300
    batch: int = 8
    lr: float = 5e-3

    def times(self, n: int) -> Scale:
        return Scale(self.repositories, self.files * n, self.lines, self.heldout_repositories, self.vocab,
                     self.width * (2 if n > 1 else 1), self.layers * (2 if n > 1 else 1), self.steps * n, self.batch, self.lr)


# ---------------------------------------------------------------------------------------------
# arms


def run_export(rows: Sequence[dict[str, Any]], work: Path, name: str, *extra: str, services: Any = None) -> list[dict[str, Any]]:
    """``smscan export`` of ``rows`` grouped by repository, through the CLI's own entry (``services``:
    the CLI's injected model loader, for tests); the output records."""
    from smscan.cli import main as smscan_main

    source = work / "source.jsonl"
    with source.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps({"text": row["text"], "group": row["group"], "name": row["name"]}) + "\n")
    out = work / f"export-{name}.jsonl"
    code = smscan_main(["export", str(source), "-o", str(out), "--group-by", "group", *extra], services=services)
    if code != 0:
        raise SystemExit(f"smscan export exited {code} (its message is above)")
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


_REGEXES = [
    (re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"), 0),
    (re.compile(r"\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"), 0),
    (re.compile(r"\bkey-[0-9a-f]{20,}\b"), 0),
    (re.compile(r"\b[0-9a-f]{32,}\b"), 0),
    (re.compile(r"(?i)\b[\w.-]*(?:password|passwd|pwd|pass|secret|token|api_?key)\w*[\"']?\s*[:=]\s*[\"']?([^\s\"',]+)"), 1),
    (re.compile(r"\b[\w-]+(?:\.[\w-]+)*\.(?:internal|corp|lan|local)\b"), 0),
]


def regex_spans(text: str) -> list[tuple[int, int]]:
    """What a regex-only scanner masks: e-mails, key prefixes, long hex, secret-named assignments,
    internal hostnames (merged character spans).

    Example:
        >>> regex_spans('db_password = "Tulip!22"  # ask anna@x.io')
        [(15, 23), (32, 41)]
    """
    found = sorted(m.span(group) for pattern, group in _REGEXES for m in pattern.finditer(text))
    merged: list[tuple[int, int]] = []
    for start, end in found:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        elif end > start:
            merged.append((start, end))
    return merged


def encode(tokenizer: Any, text: str) -> tuple[list[int], np.ndarray]:
    """Token ids and (tokens, 2) character offsets of ``text`` (no special tokens added)."""
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    return list(encoded["input_ids"]), np.asarray(encoded["offset_mapping"], dtype=np.int64).reshape(-1, 2)


def arm_examples(data: ExtractionSet, tokenizer: Any, work: Path, tokenizer_dir: Path, *export_args: str,
                 services: Any = None) -> tuple[dict[str, list[tuple[list[int], list[int]]]], dict[str, Any]]:
    """Per arm, one (input_ids, labels) pair per file; and the masks' own figures."""
    from smscan.exports.labels import IGNORE_INDEX, token_labels

    masked = run_export(data.rows, work, "mask", "--tokenizer", str(tokenizer_dir), *export_args, services=services)
    redacted = run_export(data.rows, work, "redact", "--mode", "redact", *export_args, services=services)
    sm95 = (run_export(data.rows, work, "sm95", "--tokenizer", str(tokenizer_dir), "--operating-point", "SM95", services=services)
            if not export_args else masked)  # a test's stand-in model has no calibrated points
    arms: dict[str, list[tuple[list[int], list[int]]]] = {arm: [] for arm in ARMS}
    masks: dict[str, list[list[tuple[int, int]]]] = {"smscan": [], "smscan_sm95": [], "redact": [], "regex": []}
    for row, record, point, redact, control in zip(data.rows, masked, sm95, redacted, data.control_rows):
        ids, offsets = encode(tokenizer, row["text"])
        if record["input_ids"] != ids:
            raise SystemExit(f"{row['name']}: the export's input_ids differ from the tokenizer's")
        regex = regex_spans(row["text"])
        arms["raw"].append((ids, list(ids)))
        arms["smscan"].append((ids, list(record["labels"])))
        arms["smscan_sm95"].append((ids, list(point["labels"])))
        arms["regex"].append((ids, token_labels(ids, offsets, regex)))
        redact_ids, _ = encode(tokenizer, redact["text"])
        arms["redact"].append((redact_ids, list(redact_ids)))
        control_ids, _ = encode(tokenizer, control["text"])
        arms["control"].append((control_ids, list(control_ids)))
        masks["smscan"].append([(a, b) for a, b, *_ in record["smscan"]["masked_spans"]])
        masks["smscan_sm95"].append([(a, b) for a, b, *_ in point["smscan"]["masked_spans"]])
        masks["redact"].append([(a, b) for a, b, *_ in redact["smscan"]["masked_spans"]])
        masks["regex"].append(regex)
    figures = {arm: mask_figures(data.rows, spans) for arm, spans in masks.items()}
    for arm in ("smscan", "smscan_sm95", "regex"):
        labels = [label for _, labels in arms[arm] for label in labels]
        figures[arm]["tokens_without_loss"] = round(sum(x == IGNORE_INDEX for x in labels) / max(len(labels), 1), 4)
    return arms, figures


def mask_figures(rows: Sequence[dict[str, Any]], spans: Sequence[Sequence[tuple[int, int]]]) -> dict[str, Any]:
    """Planted characters masked, other non-space characters masked, occurrences under half masked."""
    private = private_masked = other = other_masked = under_half = occurrences = 0
    for row, masked in zip(rows, spans):
        text = row["text"]
        is_masked = np.zeros(len(text), dtype=bool)
        for start, end in masked:
            is_masked[start:end] = True
        is_private = np.zeros(len(text), dtype=bool)
        for span in row["spans"]:
            is_private[span["start"]:span["end"]] = True
            occurrences += 1
            under_half += int(is_masked[span["start"]:span["end"]].mean() < 0.5)
        counted = np.array([not c.isspace() for c in text], dtype=bool)
        private += int(is_private.sum())
        private_masked += int((is_private & is_masked).sum())
        other += int((~is_private & counted).sum())
        other_masked += int((~is_private & counted & is_masked).sum())
    return {"planted_chars_masked": round(private_masked / max(private, 1), 4),
            "other_chars_masked": round(other_masked / max(other, 1), 4),
            "under_half_masked": under_half, "occurrences": occurrences}


def blocks_of(examples: Sequence[tuple[list[int], list[int]]], pad_id: int) -> tuple[Any, Any]:
    """Training blocks of ``BLOCK`` tokens every ``STRIDE`` tokens; padding gets label -100.

    Returns:
        ``input_ids`` and ``labels``, int64 tensors of shape (blocks, BLOCK).
    """
    import torch

    ids_out, labels_out = [], []
    for ids, labels in examples:
        starts = list(range(0, max(len(ids) - BLOCK, 0) + 1, STRIDE))
        if starts[-1] + BLOCK < len(ids):
            starts.append(len(ids) - BLOCK)
        for start in starts:
            piece, tags = ids[start:start + BLOCK], labels[start:start + BLOCK]
            ids_out.append(piece + [pad_id] * (BLOCK - len(piece)))
            labels_out.append(tags + [-100] * (BLOCK - len(tags)))
    return torch.tensor(ids_out, dtype=torch.long), torch.tensor(labels_out, dtype=torch.long)  # (blocks, BLOCK)


# ---------------------------------------------------------------------------------------------
# training


def new_model(vocab: int, scale: Scale, seed: int) -> Any:
    """A GPT-2 shaped causal LM, random init with ``seed``, no dropout (memorisation is the point)."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(seed)
    config = GPT2Config(vocab_size=vocab, n_positions=2 * BLOCK,  # extraction keeps within BLOCK; room for long candidates
                        n_embd=scale.width, n_layer=scale.layers, n_head=4,
                        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=0, eos_token_id=0)
    return GPT2LMHeadModel(config)


def train(model: Any, input_ids: Any, labels: Any, *, steps: int, batch: int, lr: float, seed: int, device: str,
          on_batch: Callable[[Any, Any], None] | None = None) -> list[float]:
    """Train ``model`` for ``steps`` steps of ``batch`` blocks (a seeded shuffle, epoch after epoch),
    AdamW with linear warm-up and cosine decay; ``labels`` -100 are left out of the loss by the model.

    Args:
        model: a Hugging Face causal LM.
        input_ids: (blocks, BLOCK) token ids.
        labels: (blocks, BLOCK) labels, -100 where no loss is taken.
        steps: optimiser steps.
        batch: blocks a step.
        lr: peak learning rate.
        seed: the shuffle's seed (the same for every arm).
        device: torch device.
        on_batch: called with each batch's (input_ids, labels) as the model gets them.

    Returns:
        The loss of every step.
    """
    import torch

    model.to(device).train()
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    warmup = max(steps // 20, 1)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min(1.0, (s + 1) / warmup) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(s / steps, 1.0)))))
    generator = torch.Generator().manual_seed(seed)
    order: list[int] = []
    losses = []
    for _ in range(steps):
        if len(order) < batch:
            order += torch.randperm(len(input_ids), generator=generator).tolist()
        pick, order = order[:batch], order[batch:]
        x, y = input_ids[pick].to(device), labels[pick].to(device)  # (batch, BLOCK)
        if on_batch is not None:
            on_batch(x, y)
        loss = model(input_ids=x, labels=y).loss  # padding sits at the end of a block: causal attention never reads it
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        optimiser.zero_grad(set_to_none=True)
        losses.append(float(loss.detach()))
    model.eval()
    return losses


# ---------------------------------------------------------------------------------------------
# measuring


def heldout_loss(model: Any, examples: Sequence[tuple[list[int], list[int]]], pad_id: int, device: str) -> float:
    """Mean token loss (nats) on held-out blocks."""
    import torch

    ids, labels = blocks_of(examples, pad_id)
    total = count = 0.0
    with torch.no_grad():
        for start in range(0, len(ids), 32):
            x, y = ids[start:start + 32].to(device), labels[start:start + 32].to(device)  # (≤32, BLOCK)
            logits = model(input_ids=x).logits[:, :-1]  # (≤32, BLOCK-1, vocab)
            target = y[:, 1:]
            nll = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1),
                                                    ignore_index=-100, reduction="sum")
            total += float(nll)
            count += float((target != -100).sum())
    return total / max(count, 1.0)


def extraction(model: Any, tokenizer: Any, data: ExtractionSet, device: str) -> list[dict[str, Any]]:
    """Per planted occurrence: exact extraction, characters reproduced, log-likelihood, rank.

    One forward pass per occurrence over the value and its alternatives after the same left
    context: greedy decoding reproduces the value exactly when the model's top token is the value's
    next token at every position of it (so the teacher-forced argmax is the greedy output up to the
    first miss); the characters reproduced are those greedy decoding writes before its first wrong token.
    """
    import torch

    pad_id = tokenizer.pad_token_id
    out = []
    for row in data.rows:
        ids, offsets = encode(tokenizer, row["text"])
        for span in row["spans"]:
            start, value = span["start"], span["value"]
            first = int(np.flatnonzero(offsets[:, 1] > start)[0])  # the token holding the value's first character
            lead = row["text"][offsets[first, 0]:start]  # what that token holds before the value (a space, a quote)
            candidates = [value, *data.alternatives[value]]
            encoded = [tokenizer(lead + c, add_special_tokens=False)["input_ids"] for c in candidates]
            room = BLOCK - max(len(e) for e in encoded)
            context = ids[max(0, first - max(1, min(CONTEXT, room))):first] or [pad_id]
            width = len(context) + max(len(e) for e in encoded)
            batch = torch.tensor([context + e + [pad_id] * (width - len(context) - len(e)) for e in encoded], device=device)
            with torch.no_grad():
                logp = torch.log_softmax(model(input_ids=batch).logits.float(), dim=-1)  # (candidates, width, vocab)
            scores = []
            for number, continuation in enumerate(encoded):
                at = torch.arange(len(context) - 1, len(context) - 1 + len(continuation), device=device)
                scores.append(float(logp[number, at, torch.tensor(continuation, device=device)].sum()))
            target = encoded[0]
            at = torch.arange(len(context) - 1, len(context) - 1 + len(target), device=device)
            hits = (logp[0, at].argmax(dim=-1).cpu() == torch.tensor(target)).tolist()
            right = hits.index(False) if False in hits else len(hits)
            written = len(tokenizer.decode(target[:right])) - len(lead)
            out.append({
                "category": span["category"], "value_chars": len(value),
                "exact": right == len(target),
                "char_share": min(max(written, 0), len(value)) / len(value),
                "log_likelihood": scores[0],
                "rank": 1 + sum(s > scores[0] for s in scores[1:]),
                "value": value,
                "where": f"{row['group']} {span['category']}",
            })
    return out


def summarise(found: list[dict[str, Any]]) -> dict[str, Any]:
    """One arm's extraction figures over every planted occurrence and over values."""
    values: dict[str, bool] = {}
    for item in found:
        values[item["value"]] = values.get(item["value"], False) or item["exact"]
    per_category = {}
    for category in sorted({f["category"] for f in found}):
        here = [f for f in found if f["category"] == category]
        per_category[category] = round(sum(f["exact"] for f in here) / len(here), 4)
    return {
        "exact_extraction": round(sum(f["exact"] for f in found) / len(found), 4),
        "values_extracted": round(sum(values.values()) / len(values), 4),
        "char_share": round(float(np.mean([f["char_share"] for f in found])), 4),
        "log_likelihood": round(float(np.mean([f["log_likelihood"] for f in found])), 3),
        "median_rank": float(np.median([f["rank"] for f in found])),
        "rank_1": round(sum(f["rank"] == 1 for f in found) / len(found), 4),
        "exact_by_category": per_category,
        "ranked_first": sorted({(f["category"], f["where"]) for f in found if f["rank"] == 1}),
    }


# ---------------------------------------------------------------------------------------------
# the run


def run(shared: Path, *, scale: int, device: str, seed: int, steps: int | None, work: Path,
        arms_wanted: Sequence[str] = ARMS) -> dict[str, Any]:
    """Build the set, export it, train every arm, measure; the results document."""
    import torch
    from transformers import AutoTokenizer

    from bench.export_values_gen import load_shared

    os.environ["SMSCAN_SCORE_CACHE"] = str(work / "scores")  # the mask and redact exports share scores, nobody else's cache
    sizes = Scale().times(scale)
    if steps is not None:
        sizes = Scale(**{**sizes.__dict__, "steps": steps})
    started = time.perf_counter()
    data = build_set(load_shared(shared), seed=seed, repositories=sizes.repositories, files=sizes.files,
                     lines=sizes.lines, heldout_repositories=sizes.heldout_repositories, alternatives=ALTERNATIVES)
    tokenizer_dir = train_tokenizer(data.plain + data.heldout, work / "tokenizer", vocab_size=sizes.vocab)
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    arms, masks = arm_examples(data, tokenizer, work, tokenizer_dir)
    export_s = time.perf_counter() - started
    print(f"set: {len(data.rows)} files, {sum(len(r['spans']) for r in data.rows)} planted occurrences, "
          f"{sum(len(i) for i, _ in arms['raw'])} tokens; export {export_s:.0f} s; masks {json.dumps(masks)}", flush=True)
    heldout = [(ids, list(ids)) for ids in (encode(tokenizer, t)[0] for t in data.heldout)]
    results: dict[str, Any] = {}
    if device == "cpu":
        torch.set_num_threads(1)  # on shared cores a second thread waits on the first more than it helps
    for arm in arms_wanted:
        arm_started = time.perf_counter()
        ids, labels = blocks_of(arms[arm], tokenizer.pad_token_id)
        model = new_model(len(tokenizer), sizes, seed)
        losses = train(model, ids, labels, steps=sizes.steps, batch=sizes.batch, lr=sizes.lr, seed=seed, device=device)
        train_s = time.perf_counter() - arm_started
        found = extraction(model, tokenizer, data, device)
        results[arm] = {**summarise(found), "heldout_loss": round(heldout_loss(model, heldout, tokenizer.pad_token_id, device), 4),
                        "final_train_loss": round(float(np.mean(losses[-10:])), 4), "blocks": len(ids),
                        "train_seconds": round(train_s, 1), "seconds": round(time.perf_counter() - arm_started, 1)}
        if arm in masks:
            results[arm]["mask"] = masks[arm]
        print(arm, json.dumps(results[arm]), flush=True)
        del model
        if device == "cuda":
            torch.cuda.empty_cache()
    return {
        "arms": results,
        "model": (f"GPT-2 shaped, {sizes.layers} layers, width {sizes.width}, random init (seed {seed}); "
                  f"byte-level BPE, {len(tokenizer)} tokens, trained on the host files"),
        "steps": sizes.steps,
        "device": device,
        "set": {"files": len(data.rows), "occurrences": sum(len(r["spans"]) for r in data.rows),
                "values": len(data.alternatives), "tokens": sum(len(i) for i, _ in arms["raw"]),
                "heldout_files": len(data.heldout), "block": BLOCK, "batch": sizes.batch, "lr": sizes.lr,
                "context_tokens": CONTEXT, "alternatives": ALTERNATIVES},
        "seconds": round(time.perf_counter() - started, 1),
        "scale": scale,
        "seed": seed,
    }


_WHAT = {
    "raw": "the planted text, every token a label",
    "smscan": "`smscan export` as it comes (value-aware masks, code windows at the 6-nat default, credential findings)",
    "smscan_sm95": "`smscan export --operating-point SM95` (the packaged value-aware point: code windows at 12 nats)",
    "redact": "`smscan export --mode redact` text (placeholders), every token a label",
    "regex": "regex-only masks (e-mails, key prefixes, long hex, secret-named assignments, internal hostnames)",
    "control": "other values of the same shapes in the same places (never saw the planted ones)",
}

NOTES = """
Reading it (design, not figures):

- **Model.** Not the reference model: smscan's masks are chosen by that model's surprise, so
  training it would grade the export with its own judge, and fine-tuning its 135M parameters here
  ran at about 8 tokens/s (4 x 128 tokens took 61-72 s a step at load 15 on these 2 cores), far
  from memorising anything in 40 minutes. The model here shares nothing with it (random init, its
  own tokenizer trained on the host files without the planted values); it is trained from scratch,
  so it memorises its small training set, planted values and code alike.
- **Extraction** is the greedy continuation of the last 40 tokens before each occurrence in the
  raw text (what an attacker who has the file's beginning asks). Greedy decoding reproduces a value
  exactly when the top token is the value's next token at every position of it, so one forward
  pass decides it; "characters reproduced" counts what greedy decoding writes before its first
  wrong token. The rank is the value's among itself and 19 values of the same shape drawn by the
  same generator, by likelihood after the same context (rank 1: the model prefers it to all).
- **Held-out loss** is on files of two other packages (click, attrs), nothing planted. A model
  trained from scratch on a few thousand tokens overfits, so this loss is above the uniform
  ln(vocabulary) for every arm: it compares arms with each other, it does not say the model
  learnt code well. The `control` row is the base for the planted values' figures: the same
  training on the same files with other values in the same places.
- **The regex baseline** was written knowing the generator's formats (`sk_live_`, `key-`, the
  `.internal/.lan/.corp` hostnames, e-mail shape, secret-named assignments): an upper bound for a
  regex scanner on this set, not a fair stand-in for one in the wild.
"""


def markdown(doc: dict[str, Any], command: str) -> str:
    """The docs/BENCHMARKS.md section of a results document."""
    arms = doc["arms"]
    raw = arms["raw"]
    lines = [
        f"## {HEADING}", "",
        f"`{command}` ({doc['seconds'] / 60:.0f} minutes, device `{doc['device']}`, 2 shared cores): "
        f"{doc['set']['files']} files (first 12 lines each) of {doc['set']['values'] // 4} pinned packages "
        f"(`bench/export_values_packages.txt`), one API key, password, e-mail address and internal hostname per "
        f"package, each planted 3 times across its files ({doc['set']['values']} values, {doc['set']['occurrences']} "
        f"occurrences, {doc['set']['tokens']:,} tokens); exports grouped by package. Model: {doc['model']}; "
        f"{doc['steps']} steps of {doc['set']['batch']} blocks of {doc['set']['block']} tokens (AdamW, lr "
        f"{doc['set']['lr']}), the same seed, initial weights and batch order for every arm. Per-arm figures and "
        "every setting: `bench/results/extraction.json`.", "",
        "| arm | trained on | exact extraction (occurrences) | values extracted at any occurrence | characters "
        "reproduced | log-likelihood (nats) | rank 1 of 20 | held-out loss | vs raw | planted chars masked | other "
        "chars masked | occurrences < half masked | tokens without loss |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    order = [arm for arm in ARMS if arm in arms]  # the results file sorts its keys
    for arm in order:
        figures = arms[arm]
        mask = figures.get("mask") or (arms.get("smscan", {}).get("mask") if arm == "redact" else None)
        masked = (f"{mask['planted_chars_masked']:.1%} | {mask['other_chars_masked']:.1%} | "
                  f"{mask['under_half_masked']} / {mask['occurrences']} | "
                  + (f"{mask['tokens_without_loss']:.1%}" if arm != "redact" else "0 (replaced)")) if mask else "– | – | – | 0"
        lines.append(
            f"| {arm} | {_WHAT.get(arm, '')} | {figures['exact_extraction']:.1%} | {figures['values_extracted']:.1%} | "
            f"{figures['char_share']:.1%} | {figures['log_likelihood']:.1f} | {figures['rank_1']:.1%} | "
            f"{figures['heldout_loss']:.3f} | {figures['heldout_loss'] / raw['heldout_loss'] - 1:+.1%} | {masked} |")
    lines.append("")
    lines.append("Exact extraction by kind of value (occurrences):")
    lines.append("")
    categories = sorted(raw["exact_by_category"])
    lines.append("| arm | " + " | ".join(categories) + " |")
    lines.append("|---|" + "---|" * len(categories))
    for arm in order:
        figures = arms[arm]
        lines.append(f"| {arm} | " + " | ".join(f"{figures['exact_by_category'][c]:.1%}" for c in categories) + " |")
    return "\n".join(lines) + "\n" + NOTES


def write(doc: dict[str, Any], command: str, notes: str = "") -> None:
    """``bench/results/extraction.json`` and this benchmark's section of docs/BENCHMARKS.md."""
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    section = markdown(doc, command) + notes
    from bench.common.sections import replace_section

    BENCHMARKS.write_text(replace_section(BENCHMARKS.read_text(encoding="utf-8"), HEADING, section), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="write bench/results/extraction.json and the docs section")
    parser.add_argument("--scale", type=int, default=1, help="more files, steps and a wider, deeper model (a GPU run)")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=None, help="override the scale's steps")
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "bench",
                        help="the shared bench folder (secrets_gen.py), default ../shared/bench")
    parser.add_argument("--arms", default=",".join(ARMS), help="arms to train, comma-separated (--write needs all)")
    parser.add_argument("--out", type=Path, default=None, help="also write the results document here")
    parser.add_argument("--from", dest="saved", type=Path, default=None,
                        help="write the results of an earlier run (its --out file) instead of running")
    parser.add_argument("--work", type=Path, default=None, help="keep the exports, tokenizer and score cache here (default: a temporary folder)")
    args = parser.parse_args(argv)
    if args.saved is None and not (args.shared / "secrets_gen.py").is_file():
        parser.error(f"{args.shared}: no secrets_gen.py (give --shared SHARED/bench)")
    if not set(args.arms.split(",")) <= set(ARMS) or (args.write and set(args.arms.split(",")) != set(ARMS)):
        parser.error(f"--arms: some of {','.join(ARMS)} (all of them with --write)")
    if args.scale < 1:
        parser.error("--scale must be at least 1")
    if args.saved is not None:
        doc = json.loads(args.saved.read_text(encoding="utf-8"))
        args.scale, args.device = doc["scale"], doc["device"]
    else:
        doc = _run(args)
    if args.out is not None:
        args.out.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if args.write:
        command = "python -m bench.extraction --write" + (f" --scale {args.scale}" if args.scale != 1 else "") + (
            f" --device {args.device}" if args.device != "cpu" else "")
        write(doc, command)
    print(json.dumps({arm: {k: v for k, v in f.items() if k in ("exact_extraction", "char_share", "heldout_loss")}
                      for arm, f in doc["arms"].items()}))
    return 0


def _run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="smscan-extraction-") as temporary:
        work = args.work or Path(temporary)
        work.mkdir(parents=True, exist_ok=True)
        return run(args.shared, scale=args.scale, device=args.device, seed=args.seed, steps=args.steps, work=work,
                   arms_wanted=[a for a in args.arms.split(",") if a])


if __name__ == "__main__":
    raise SystemExit(main())
