#!/usr/bin/env python3
"""Labelled candidates for the learned credential judgement: every slot of a split, its features.

    python bench/judgement_data.py cheap --data DIR --source NAME --out CHEAP.npz
    python bench/judgement_data.py score --data DIR --cheap CHEAP.npz --judgement J.json [J2.json ...] \\
        --cache SCORES --out FULL.npz

A split is the layout of ``shared/bench/secrets_gen.py`` (``DIR/corpus``, ``DIR/labels.jsonl``
with ``spans`` of credentials and ``negatives`` of look-alikes). ``cheap`` writes, for every slot
of every file, its cheap features (no model), its label (1: it overlaps a labelled credential;
0: a look-alike or host text), what it overlaps (``credential``/``lookalike``/``host``) and the
labelled items, so a scorer can count credentials found and look-alikes flagged as the team's
multi-format eval does (an item counts when any flagged slot overlaps it).

``score`` adds the surprise features of the slots that any given judgement's cheap model leaves
undecided (exactly the pieces a scan with that judgement plans, context included), scoring with
the default model through a score cache, and today's rule detector's score of every slot it keeps
(scored with its own plan, as ``smscan repo`` does), for the side-by-side.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from smscan.detectors.credential import CredentialDetector
from smscan.detectors.credential_rule import CredentialRule
from smscan.detectors.judgement.detector import CheapVerdict, full_vector, _scored
from smscan.detectors.judgement.features import CHEAP_FEATURES, FEATURE_INDEX, FEATURES, cheap_features
from smscan.detectors.judgement.model import Judgement
from smscan.detectors.notebooks import is_notebook, notebook_cells
from smscan.detectors.slot_kinds import PUBLIC_BLOCK
from smscan.detectors.slots import find_slots
from smscan.records import Document


def read_split(data: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (data / "labels.jsonl").read_text().splitlines() if line.strip()]
    for row in rows:
        row["text"] = (data / "corpus" / row["path"]).read_text("utf-8", errors="surrogateescape")
    return rows


def slots_of(text: str) -> list[tuple[int, int, Any, str]]:
    """(file start, file end, slot, the text the slot's offsets point into) of every slot."""
    out = []
    pieces = [(cell.text, cell) for cell in notebook_cells(text)] if is_notebook(text) else [(text, None)]
    for piece, cell in pieces:
        for slot in find_slots(piece):
            if slot.where == PUBLIC_BLOCK:
                continue
            start, end = (slot.start, slot.end) if cell is None else cell.file_span(slot.start, slot.end)
            out.append((start, end, slot, piece))
    return out


def cheap_table(data: Path, source: str) -> dict[str, np.ndarray]:
    rule = CredentialRule()
    rows = read_split(data)
    features, labels, overlaps, files, starts, ends, items = [], [], [], [], [], [], []
    item_rows: list[tuple[int, int, int, int]] = []  # (file, start, end, is credential)
    for file_index, row in enumerate(rows):
        secret_ids = {}
        for span in row["spans"]:
            key = span.get("secret_id", len(secret_ids))
            secret_ids.setdefault(key, len(item_rows))
            item_rows.append((file_index, span["start"], span["end"], 1))
        for span in row["negatives"]:
            item_rows.append((file_index, span["start"], span["end"], 0))
        labelled = [(s["start"], s["end"], 1) for s in row["spans"]] + [(s["start"], s["end"], 0) for s in row["negatives"]]
        for start, end, slot, piece in slots_of(row["text"]):
            hits = [flag for a, b, flag in labelled if a < end and start < b]
            features.append(cheap_features(piece, slot, rule, path=row["path"]))
            labels.append(1 if 1 in hits else 0)
            overlaps.append(2 if 1 in hits else 1 if hits else 0)
            files.append(file_index)
            starts.append(start)
            ends.append(end)
    del items
    return {
        "source": np.array(source), "paths": np.array([row["path"] for row in rows]),
        "cheap": np.asarray(features, np.float64).reshape(-1, len(CHEAP_FEATURES)),
        "label": np.asarray(labels, np.int8), "overlap": np.asarray(overlaps, np.int8),
        "file_index": np.asarray(files, np.int32), "start": np.asarray(starts, np.int64), "end": np.asarray(ends, np.int64),
        "items": np.asarray(item_rows, np.int64).reshape(-1, 4),
        "cheap_names": np.array(CHEAP_FEATURES),
    }


class _Spans:
    """A detector stand-in that asks the plan for chosen spans of each document."""

    kind = "credential"
    context_chars = CredentialDetector.context_chars

    def __init__(self, spans: dict[str, list[tuple[int, int]]]) -> None:
        self.spans = spans

    def applies_to(self, path: str) -> bool:
        return True

    def regions(self, text: str, path: str) -> list[tuple[int, int]]:
        return self.spans.get(path, [])


def score_table(data: Path, table: dict[str, np.ndarray], judgements: list[Judgement], cache: Path) -> dict[str, np.ndarray]:
    from smscan.cache import ScoreCache
    from smscan.cached_scorer import CachedScorer
    from smscan.model.load import load_scorer
    from smscan.plan import score_planned

    rows = read_split(data)
    cheap = table["cheap"]
    undecided = np.zeros(len(cheap), bool)
    for judgement in judgements:
        index = [FEATURE_INDEX[name] for name in judgement.cheap.features]
        z = np.array([judgement.cheap.log_odds(x[index]) for x in cheap])
        undecided |= (z > judgement.sure_out) & (z < judgement.sure_in)
    spans: dict[str, list[tuple[int, int]]] = {}
    for i in np.flatnonzero(undecided):
        spans.setdefault(rows[table["file_index"][i]]["path"], []).append((int(table["start"][i]), int(table["end"][i])))
    scorer = CachedScorer(load_scorer("default"), ScoreCache(cache))
    documents = [Document(row["path"], row["text"], group=row["path"]) for row in rows]
    started = time.perf_counter()
    scores = score_planned(scorer, documents, [_Spans(spans)])  # type: ignore[list-item]
    rules = CredentialDetector()
    rule_scores = score_planned(scorer, documents, [rules])
    print(f"scored in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    full = np.full((len(cheap), len(FEATURES)), np.nan)
    rule_score = np.full(len(cheap), -np.inf)
    by_file: dict[int, list[int]] = {}
    for i in range(len(cheap)):
        by_file.setdefault(int(table["file_index"][i]), []).append(i)
    planned_chars = 0
    for file_index, members in by_file.items():
        text = rows[file_index]["text"]
        scored = _scored(scores[file_index], CredentialRule().window)
        for i in members:
            if not undecided[i]:
                continue
            verdict = CheapVerdict(int(table["start"][i]), int(table["end"][i]), "", cheap[i], 0.0, {})
            vector = full_vector(scored, text, verdict)
            if vector is not None:
                full[i] = vector
        found = {(c.char_start, c.char_end): c.score for c in rules.candidates(text, rule_scores[file_index], path=rows[file_index]["path"])}
        for i in members:
            rule_score[i] = found.get((int(table["start"][i]), int(table["end"][i])), -np.inf)
    for score in scores:
        planned_chars += int((score.char_ends - score.char_starts).sum())
    planned_rules = sum(int((s.char_ends - s.char_starts).sum()) for s in rule_scores)
    planned_tokens = sum(len(s.nll) for s in scores)
    rules_tokens = sum(len(s.nll) for s in rule_scores)
    return {**table, "full": full, "undecided": undecided, "rule_score": rule_score,
            "planned_tokens": np.array(planned_tokens), "rules_planned_tokens": np.array(rules_tokens),
            "planned_chars": np.array(planned_chars), "rules_planned_chars": np.array(planned_rules),
            "total_chars": np.array(sum(len(row["text"]) for row in rows))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("cheap")
    c.add_argument("--data", type=Path, required=True)
    c.add_argument("--source", required=True)
    c.add_argument("--out", type=Path, required=True)
    s = sub.add_parser("score")
    s.add_argument("--data", type=Path, required=True)
    s.add_argument("--cheap", type=Path, required=True)
    s.add_argument("--judgement", type=Path, nargs="+", required=True)
    s.add_argument("--cache", type=Path, required=True)
    s.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if args.command == "cheap":
        table = cheap_table(args.data, args.source)
        np.savez_compressed(args.out, **table)
        print(f"{len(table['label'])} slots, {int(table['label'].sum())} on credentials, "
              f"{int((table['overlap'] == 1).sum())} on look-alikes", file=sys.stderr)
        return 0
    with np.load(args.cheap) as loaded:
        table = dict(loaded)
    judgements = [Judgement.from_json(path.read_text(), where=str(path)) for path in args.judgement]
    np.savez_compressed(args.out, **score_table(args.data, table, judgements, args.cache))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
