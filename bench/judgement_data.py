#!/usr/bin/env python3
"""Labelled candidates for the learned credential judgement: every slot of a split, its features.

    python bench/judgement_data.py cheap --data DIR --source NAME --out CHEAP.npz
    python bench/judgement_data.py score --data DIR --cheap CHEAP.npz --judgement J.json [J2.json ...] \\
        --cache SCORES --out FULL.npz

A split is the layout of ``shared/bench/secrets_gen.py`` (``DIR/corpus``, ``DIR/labels.jsonl``
with ``spans`` of credentials and ``negatives`` of look-alikes). ``cheap`` writes, for every slot
of every file, its cheap features (no model), its label (1: it overlaps a labelled credential;
0: a look-alike or host text), what it overlaps (``overlap``: 2 a credential, 1 a look-alike, 0 host
text, 3 only an identifier such as a user or host name, neither trained nor counted) and the
labelled items, so a scorer can count credentials found and look-alikes flagged as the team's
multi-format eval does (an item counts when any flagged slot overlaps it).

``score`` adds the surprise features of the slots that any given judgement's cheap model leaves
undecided, and today's rule detector's score of every slot it keeps, both from one scoring of the
union of those slots (each with the plan's left context and the rest of its line) with the
default model through a score cache: the side-by-side judges identical scores.
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
    features: list[np.ndarray] = []
    labels, overlaps, files, starts, ends = [], [], [], [], []
    item_rows: list[tuple[int, int, int, int]] = []  # (file, start, end, is credential)
    for file_index, row in enumerate(rows):
        secret_ids: dict[int, int] = {}
        for span in row["spans"]:
            key = span.get("secret_id", len(secret_ids))
            secret_ids.setdefault(key, len(item_rows))
            item_rows.append((file_index, span["start"], span["end"], 1))
        for span in row["negatives"]:
            item_rows.append((file_index, span["start"], span["end"], 0))
        labelled = [(s["start"], s["end"], 1) for s in row["spans"]] + [(s["start"], s["end"], 0) for s in row["negatives"]]
        for start, end, slot, piece in slots_of(row["text"]):
            hits = [flag for a, b, flag in labelled if a < end and start < b]
            identifier = any(s["start"] < end and start < s["end"] for s in row.get("identifiers", []))
            features.append(cheap_features(piece, slot, rule, path=row["path"]))
            labels.append(1 if 1 in hits else 0)
            overlaps.append(2 if 1 in hits else 1 if hits else 3 if identifier else 0)
            files.append(file_index)
            starts.append(start)
            ends.append(end)
    return {
        "source": np.array(source), "paths": np.array([row["path"] for row in rows]),
        "cheap": np.asarray(features, np.float64).reshape(-1, len(CHEAP_FEATURES)),
        "label": np.asarray(labels, np.int8), "overlap": np.asarray(overlaps, np.int8),
        "file_index": np.asarray(files, np.int32), "start": np.asarray(starts, np.int64), "end": np.asarray(ends, np.int64),
        "items": np.asarray(item_rows, np.int64).reshape(-1, 4),
        "cheap_names": np.array(CHEAP_FEATURES),
    }


def restrict(table: dict[str, np.ndarray], chosen: np.ndarray) -> dict[str, np.ndarray]:
    """The table of the files ``chosen`` (sorted file indexes), renumbered from 0."""
    renumber = {int(old): new for new, old in enumerate(chosen)}
    rows = np.isin(table["file_index"], chosen)
    items = table["items"][np.isin(table["items"][:, 0], chosen)].copy()
    items[:, 0] = [renumber[int(i)] for i in items[:, 0]]
    out = {name: value[rows] for name, value in table.items() if value.ndim and len(value) == len(rows)}
    out["file_index"] = np.array([renumber[int(i)] for i in table["file_index"][rows]], np.int32)
    out.update(source=table["source"], paths=table["paths"][chosen], items=items, cheap_names=table["cheap_names"])
    return out


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


def score_table(
    data: Path, table: dict[str, np.ndarray], judgements: list[Judgement], cache: Path, files: int = 0
) -> dict[str, np.ndarray]:
    from smscan.scoring.cache import ScoreCache
    from smscan.scoring.cached_scorer import CachedScorer
    from smscan.model.load import load_scorer
    from smscan.plan.pieces import score_planned

    rows = read_split(data)
    if files:  # a seeded sample of the split's files: the table keeps only their slots and items
        chosen = np.sort(np.random.default_rng(0).permutation(len(rows))[:files])
        table = restrict(table, chosen)
        rows = [rows[i] for i in chosen]
    cheap = table["cheap"]
    undecided = np.zeros(len(cheap), bool)
    for judgement in judgements:
        index = [FEATURE_INDEX[name] for name in judgement.cheap.features]
        z = np.array([judgement.cheap.log_odds(x[index]) for x in cheap])
        undecided |= (z > judgement.sure_out) & (z < judgement.sure_in)
    # Today's rules are judged on the same scores: the plan covers the slots their judgement keeps too.
    keep = cheap[:, FEATURE_INDEX["rules:keep"]] == 1
    spans: dict[str, list[tuple[int, int]]] = {}
    for planned in np.flatnonzero(undecided | keep):
        spans.setdefault(rows[table["file_index"][planned]]["path"], []).append(
            (int(table["start"][planned]), int(table["end"][planned]))
        )
    scorer = CachedScorer(load_scorer("default"), ScoreCache(cache))
    documents = [Document(row["path"], row["text"], group=row["path"]) for row in rows]
    started = time.perf_counter()
    scores = score_planned(scorer, documents, [_Spans(spans)])  # type: ignore[list-item]  # _Spans plans, nothing more
    rules = CredentialDetector()
    rule_scores = scores
    print(f"scored in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    full = np.full((len(cheap), len(FEATURES)), np.nan)
    rule_score = np.full(len(cheap), -np.inf)
    by_file: dict[int, list[int]] = {}
    for i in range(len(cheap)):
        by_file.setdefault(int(table["file_index"][i]), []).append(i)
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
    return {**table, "full": full, "undecided": undecided, "rule_score": rule_score}


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
    s.add_argument("--files", type=int, default=0, help="score a seeded sample of this many files (0: all)")
    args = ap.parse_args(argv)
    if args.command == "cheap":
        table = cheap_table(args.data, args.source)
        arrays: dict[str, Any] = table
        np.savez_compressed(args.out, **arrays)
        print(f"{len(table['label'])} slots, {int(table['label'].sum())} on credentials, "
              f"{int((table['overlap'] == 1).sum())} on look-alikes", file=sys.stderr)
        return 0
    with np.load(args.cheap) as loaded:
        table = dict(loaded)
    judgements = [Judgement.from_json(path.read_text(), where=str(path)) for path in args.judgement]
    scored: dict[str, Any] = score_table(args.data, table, judgements, args.cache, args.files)
    np.savez_compressed(args.out, **scored)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
