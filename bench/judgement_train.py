#!/usr/bin/env python3
"""Train the learned credential judgement and measure it leave-one-source-out against today's rules.

    python bench/judgement_train.py cheap --train A.npz [B.npz ...] --out J.json
    python bench/judgement_train.py full  --train A.full.npz [...] --out J.json [--c 0.3]
    python bench/judgement_train.py loso  --tables A.full.npz B.full.npz ... [--folds ...] [--data DIR ...]

Tables come from ``bench/judgement_data.py``. Both models are scikit-learn logistic regressions
on standardised features (balanced classes, L2); only their parameters are written, as the JSON
that :mod:`smscan.detectors.judgement.model` reads. The cheap model's cut-offs are chosen on the
training data alone: ``sure_out`` keeps at most ``--out-miss`` of the training credentials below
it, ``sure_in`` lets at most ``--in-false`` of the training non-credentials above it. The full
model is trained on every scored slot of the training sources (the slots some cheap model of the
folds left undecided), and its threshold (log-odds) is the one of best F1 over those slots,
never over a source that is measured.

``loso`` trains on every source but one and measures on the one left out, for each source:
credential recall (a labelled credential counts as found when a flagged slot overlaps it; with
``--data``, also on realistic values alone, leaving out patterned stand-ins), the share of
look-alikes flagged, flagged host slots per 1,000 slots, and the share of slots that still need
the model; today's rules (threshold 2.993944, the packaged one) on the same slots and the same
scores beside it, and the learned judgement once more with the rules' verdict as a feature.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from smscan.detectors.judgement.features import CHEAP_FEATURES, FEATURES

RULES_THRESHOLD = 2.993944


def load(paths: list[Path]) -> list[dict[str, np.ndarray]]:
    out = []
    for path in paths:
        with np.load(path) as loaded:
            out.append(dict(loaded))
    return out


def fit(x: np.ndarray, y: np.ndarray, c: float) -> dict[str, Any]:
    from sklearn.linear_model import LogisticRegression

    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    model = LogisticRegression(C=c, class_weight="balanced", max_iter=5000)
    model.fit((x - mean) / scale, y)
    return {"mean": mean, "scale": scale, "coef": model.coef_[0], "intercept": float(model.intercept_[0])}


def log_odds(params: dict[str, Any], x: np.ndarray) -> np.ndarray:
    return params["intercept"] + ((x - params["mean"]) / params["scale"]) @ params["coef"]


def exported(params: dict[str, Any], names: tuple[str, ...], **extra: float) -> dict[str, Any]:
    keep = [i for i, c in enumerate(params["coef"]) if c != 0]
    return {
        "features": [names[i] for i in keep], "mean": [round(float(params["mean"][i]), 6) for i in keep],
        "scale": [round(float(params["scale"][i]), 6) for i in keep],
        "coef": [round(float(params["coef"][i]), 6) for i in keep], "intercept": round(params["intercept"], 6), **extra,
    }


def train_cheap(tables: list[dict[str, np.ndarray]], c: float, out_miss: float, in_false: float, margin: float = 1.0) -> tuple[dict[str, Any], float, float]:
    x = np.concatenate([t["cheap"][t["overlap"] != 3] for t in tables])
    y = np.concatenate([t["label"][t["overlap"] != 3] for t in tables])
    params = fit(x, y, c)
    # Out-of-source log-odds where there are several sources (the shift a new source brings),
    # else out-of-file; the cut-offs keep `margin` more log-odds on each side.
    by_source = np.concatenate([np.full(int((t["overlap"] != 3).sum()), k) for k, t in enumerate(tables)])
    by_file = np.concatenate([t["file_index"][t["overlap"] != 3] + 100_000 * k for k, t in enumerate(tables)])
    z = out_of_fold(x, y, by_source if len(tables) > 1 else by_file, c, folds=len(tables) if len(tables) > 1 else 5)
    sure_out = float(np.quantile(z[y == 1], out_miss)) - margin
    sure_in = float(np.quantile(z[y == 0], 1 - in_false)) + margin
    return params, sure_out, max(sure_in, sure_out)


def out_of_fold(x: np.ndarray, y: np.ndarray, groups: np.ndarray, c: float, folds: int = 5) -> np.ndarray:
    """Log-odds of every row from a model that never saw its file (the cut-offs are read from these)."""
    from sklearn.model_selection import GroupKFold

    z = np.zeros(len(y))
    for train, test in GroupKFold(n_splits=folds).split(x, y, groups):
        z[test] = log_odds(fit(x[train], y[train], c), x[test])
    return z


def cheap_of(data: dict[str, Any]) -> tuple[dict[str, Any], float, float]:
    """The cheap model of a judgement file as arrays over every cheap feature."""
    model = data["cheap"]
    index = [CHEAP_FEATURES.index(name) for name in model["features"]]
    mean, scale, coef = np.zeros(len(CHEAP_FEATURES)), np.ones(len(CHEAP_FEATURES)), np.zeros(len(CHEAP_FEATURES))
    mean[index], scale[index], coef[index] = model["mean"], model["scale"], model["coef"]
    return {"mean": mean, "scale": scale, "coef": coef, "intercept": model["intercept"]}, model["sure_out"], model["sure_in"]


def undecided(table: dict[str, np.ndarray], params: dict[str, Any], sure_out: float, sure_in: float) -> np.ndarray:
    z = log_odds(params, table["cheap"])
    return (z > sure_out) & (z < sure_in)


def train_full(tables: list[dict[str, np.ndarray]], cheap: tuple[dict[str, Any], float, float], c: float,
               stack: bool = False) -> tuple[dict[str, Any], float]:
    xs, ys = [], []
    for t in tables:
        # Every scored slot (the union of the folds' undecided bands), not only this cheap
        # model's band: more of the slots near the boundary, from every training source.
        mask = np.isfinite(t["full"]).all(axis=1) & (t["overlap"] != 3)
        xs.append(full_rows(t, stack)[mask])
        ys.append(t["label"][mask])
    x, y = np.concatenate(xs), np.concatenate(ys)
    params = fit(x, y, c)
    z = log_odds(params, x)
    return params, best_f1_threshold(z, y)


def best_f1_threshold(z: np.ndarray, y: np.ndarray) -> float:
    order = np.argsort(-z)
    tp = np.cumsum(y[order] == 1)
    fp = np.cumsum(y[order] == 0)
    f1 = 2 * tp / (tp + fp + (y == 1).sum())
    best = int(np.argmax(f1))
    below = z[order][best + 1] if best + 1 < len(z) else z[order][best] - 1.0
    return float((z[order][best] + below) / 2)


def decide(table: dict[str, np.ndarray], cheap: tuple[dict[str, Any], float, float], full: dict[str, Any], threshold: float,
           stack: bool = False) -> np.ndarray:
    params, sure_out, sure_in = cheap
    z = log_odds(params, table["cheap"])
    flagged = z >= sure_in
    middle = (z > sure_out) & (z < sure_in)
    scored = middle & np.isfinite(table["full"]).all(axis=1)
    flagged[scored] = log_odds(full, full_rows(table, stack)[scored]) >= threshold
    return flagged


def full_rows(table: dict[str, np.ndarray], stack: bool) -> np.ndarray:
    """The full features of every slot; with ``stack``, today's rules' verdict joins them as one
    more feature: their score's margin over their threshold, cut to [-5, 5] (-5 where the rules
    drop the slot before the model)."""
    if not stack:
        return table["full"]
    margin = np.clip(np.nan_to_num(table["rule_score"] - RULES_THRESHOLD, neginf=-5.0), -5.0, 5.0)
    return np.column_stack([table["full"], margin])


def item_categories(table: dict[str, np.ndarray], data: Path | None) -> np.ndarray:
    """``realistic`` or ``patterned`` for every labelled credential of ``table`` (the foreign
    sources' split, :func:`bench.foreign.examples.value_category`); look-alikes get ``""``."""
    from bench.foreign.examples import value_category

    out = np.array([""] * len(table["items"]), dtype=object)
    if data is None:
        return out
    texts: dict[int, str] = {}
    for k, (file_index, start, end, credential) in enumerate(table["items"]):
        if credential:
            if int(file_index) not in texts:
                path = data / "corpus" / str(table["paths"][int(file_index)])
                texts[int(file_index)] = path.read_text("utf-8", errors="surrogateescape")
            out[k] = value_category(texts[int(file_index)][int(start) : int(end)])
    return out


def measure(table: dict[str, np.ndarray], flagged: np.ndarray, categories: np.ndarray | None = None) -> dict[str, float]:
    """Credential recall and look-alikes flagged, per labelled item (any overlapping flagged slot)."""
    items = table["items"]
    hits = np.zeros(len(items), bool)
    by_file: dict[int, list[int]] = {}
    for i in map(int, np.flatnonzero(flagged)):
        by_file.setdefault(int(table["file_index"][i]), []).append(i)
    for k, (file_index, start, end, _) in enumerate(items):
        for i in by_file.get(int(file_index), []):
            if table["start"][i] < end and start < table["end"][i]:
                hits[k] = True
                break
    credential = items[:, 3] == 1
    # A secret may be labelled as several spans (one secret_id): count spans, as recall per span.
    host = table["overlap"] == 0
    realistic = credential & (categories == "realistic") if categories is not None else credential
    return {
        "recall": float(hits[credential].mean()) if credential.any() else float("nan"),
        "realistic_recall": float(hits[realistic].mean()) if realistic.any() else float("nan"),
        "lookalikes": float(hits[~credential].mean()) if (~credential).any() else float("nan"),
        "host_per_1k": 1000 * float(flagged[host].sum()) / max(int(host.sum()), 1),
        "credentials": int(credential.sum()), "lookalike_items": int((~credential).sum()),
    }


def cell(m: dict[str, float]) -> str:
    """One table cell: recall (realistic values only) / look-alikes flagged / host slots per 1,000."""
    return f"{m['recall']:.3f} ({m['realistic_recall']:.3f}) / {m['lookalikes']:.3f} / {m['host_per_1k']:.2f}"


def judgement_json(cheap: tuple[dict[str, Any], float, float], full: dict[str, Any], trained: dict[str, Any]) -> str:
    params, sure_out, sure_in = cheap
    data = {
        "format": "smscan-judgement", "version": 1, "kind": "credential",
        "cheap": exported(params, CHEAP_FEATURES, sure_out=round(sure_out, 6), sure_in=round(sure_in, 6)),
        "full": exported(full, FEATURES),
        "trained": trained,
    }
    return json.dumps(data, indent=1) + "\n"


def write_thresholds(path: Path, judgement_text: str, threshold: float, command: str) -> None:
    """A thresholds file whose credential entry selects the learned judgement at ``threshold``
    (the packaged entry's model identity; the rule names the judgement file's digest)."""
    import hashlib

    from smscan.rules.thresholds_file import packaged_thresholds
    from smscan.detectors.credential_rule import CredentialRule

    data = packaged_thresholds()
    entry = dict(data["kinds"]["credential"])
    digest = hashlib.sha256(judgement_text.encode("utf-8")).hexdigest()[:16]
    entry.update(rule={**CredentialRule().as_dict(), "rule": "credential-learned", "judgement": digest},
                 threshold=round(threshold, 6), criterion="best-f1", command=command, date=date.today().isoformat())
    for name in ("operating_points", "validation", "cross_validation", "labels", "labels_sha256", "examples", "positive_units"):
        entry.pop(name, None)
    path.write_text(json.dumps({**data, "kinds": {"credential": entry}}, indent=1) + "\n")


def loso_cheap(tables: list[dict[str, np.ndarray]], folds: list[Path]) -> str:
    """The cheap model alone, leave-one-source-out, against the upper bound of today's rules.

    Each fold's cheap model (``folds``, aligned with ``tables``) was trained without the left-out
    source; its threshold is the best-F1 log-odds over the training sources. Today's rules flag
    only slots their model-free stage keeps (``rules:keep``), so that stage's recall bounds theirs.
    """
    keep_index = CHEAP_FEATURES.index("rules:keep")
    lines = ["| left-out source | credentials, look-alikes, host slots | rules' model-free stage (bound): recall / look-alikes | "
             "cheap learned: recall / look-alikes / host per 1k slots | slots sure out / sure in |", "|---|---|---|---|---|"]
    for k, test in enumerate(tables):
        cheap = cheap_of(json.loads(folds[k].read_text()))
        train = [t for j, t in enumerate(tables) if j != k]
        z = np.concatenate([log_odds(cheap[0], t["cheap"][t["overlap"] != 3]) for t in train])
        y = np.concatenate([t["label"][t["overlap"] != 3] for t in train])
        threshold = best_f1_threshold(z, y)
        zt = log_odds(cheap[0], test["cheap"])
        learned = measure(test, zt >= threshold)
        bound = measure(test, test["cheap"][:, keep_index] == 1)
        host = int((test["overlap"] == 0).sum())
        lines.append(f"| {test['source']} | {learned['credentials']}, {learned['lookalike_items']}, {host} | "
                     f"{bound['recall']:.3f} / {bound['lookalikes']:.3f} | {learned['recall']:.3f} / {learned['lookalikes']:.3f} / "
                     f"{learned['host_per_1k']:.2f} | {(zt <= cheap[1]).mean():.3f} / {(zt >= cheap[2]).mean():.3f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("command", choices=("cheap", "full", "loso", "loso-cheap"))
    ap.add_argument("--train", type=Path, nargs="*", default=[])
    ap.add_argument("--tables", type=Path, nargs="*", default=[])
    ap.add_argument("--out", type=Path)
    ap.add_argument("--c", type=float, default=0.05)
    ap.add_argument("--out-miss", type=float, default=0.01)
    ap.add_argument("--in-false", type=float, default=0.002)
    ap.add_argument("--margin", type=float, default=0.0)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--data", type=Path, nargs="*", default=[],
                    help="loso: per table, its split folder (DIR/corpus), to split recall into realistic and patterned values")
    ap.add_argument("--folds", type=Path, nargs="*", default=[],
                    help="loso: per table, the cheap judgement trained on every other source's cheap table")
    ap.add_argument("--cheap-from", type=Path, help="full: take the cheap model and its cut-offs from this judgement file")
    ap.add_argument("--thresholds-out", type=Path, help="also write a thresholds file selecting this judgement")
    args = ap.parse_args(argv)
    command = " ".join(["python bench/judgement_train.py", *(argv or sys.argv[1:])])
    if args.command in ("cheap", "full"):
        tables = load(args.train)
        if args.cheap_from:  # the cheap model of an earlier run (trained on the cheap tables of every source)
            cheap = cheap_of(json.loads(args.cheap_from.read_text()))
        else:
            cheap = train_cheap(tables, args.c, args.out_miss, args.in_false, args.margin)
        sources = sorted({str(t["source"]) for t in tables})
        if args.command == "cheap":  # bootstrap: the full model is the cheap model until surprise is scored
            full = {**cheap[0], "coef": np.concatenate([cheap[0]["coef"], np.zeros(len(FEATURES) - len(CHEAP_FEATURES))]),
                    "mean": np.concatenate([cheap[0]["mean"], np.zeros(len(FEATURES) - len(CHEAP_FEATURES))]),
                    "scale": np.concatenate([cheap[0]["scale"], np.ones(len(FEATURES) - len(CHEAP_FEATURES))])}
            threshold = 0.0
        else:
            full, threshold = train_full(tables, cheap, args.c)
        trained = {"sources": sources, "threshold": round(threshold, 6), "command": command, "date": date.today().isoformat(),
                   "library": "scikit-learn LogisticRegression(class_weight='balanced')"}
        text = judgement_json(cheap, full, trained)
        args.out.write_text(text)
        if args.thresholds_out:
            write_thresholds(args.thresholds_out, text, threshold, command)
        print(f"wrote {args.out}: sure_out {cheap[1]:.3f}, sure_in {cheap[2]:.3f}, threshold {threshold:.3f}", file=sys.stderr)
        return 0
    tables = load(args.tables)
    if args.command == "loso-cheap":
        print(loso_cheap(tables, args.folds))
        return 0
    results: list[dict[str, Any]] = []
    data_dirs: list[Path | None] = list(args.data) if args.data else [None] * len(tables)
    for k, test in enumerate(tables):
        train = [t for j, t in enumerate(tables) if j != k]
        if args.folds:  # the cheap model that chose what was scored for this fold (trained without it)
            cheap = cheap_of(json.loads(args.folds[k].read_text()))
        else:
            cheap = train_cheap(train, args.c, args.out_miss, args.in_false, args.margin)
        categories = item_categories(test, data_dirs[k])
        full, threshold = train_full(train, cheap, args.c)
        stacked, stacked_threshold = train_full(train, cheap, args.c, stack=True)
        learned = measure(test, decide(test, cheap, full, threshold), categories)
        both = measure(test, decide(test, cheap, stacked, stacked_threshold, stack=True), categories)
        rules = measure(test, test["rule_score"] >= RULES_THRESHOLD, categories)
        share = float(undecided(test, *cheap).mean())
        results.append({"source": str(test["source"]), "learned": learned, "rules": rules, "stacked": both,
                        "undecided_slots": share, "threshold": threshold, "sure_out": cheap[1], "sure_in": cheap[2]})
    lines = ["| left-out source | credentials, look-alikes | rules: recall (realistic) / look-alikes / host per 1k slots | "
             "learned | learned with the rules' verdict as a feature | slots needing the model |", "|---|---|---|---|---|---|"]
    for r in results:
        a = r["rules"]
        lines.append(f"| {r['source']} | {a['credentials']}, {a['lookalike_items']} | {cell(a)} | {cell(r['learned'])} | "
                     f"{cell(r['stacked'])} | {r['undecided_slots']:.3f} |")
    print("\n".join(lines))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
