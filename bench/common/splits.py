"""Labelled splits: the layout of ``shared/bench/secrets_gen.py`` and ``bench/multiformat_gen.py``.

A split is a folder holding ``labels.jsonl`` (one row per file: ``path`` under ``corpus/``,
``ext_class``, ``spans``, ``negatives``), ``corpus/<path>`` (the files to scan) and, usually,
``manifest.json`` (seed, generator, counts). The figures of every credential benchmark come from the
shared scorer ``shared/bench/secrets_eval/score.py``, found beside the checkout.
"""

from __future__ import annotations

import importlib
import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any


def read_rows(labels: Path) -> list[dict[str, Any]]:
    """The rows of a JSONL labels file (blank lines skipped)."""
    return [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines() if line.strip()]


def split_rows(split: Path) -> list[dict[str, Any]]:
    """The rows of ``split/labels.jsonl``."""
    return read_rows(split / "labels.jsonl")


def read_manifest(split: Path) -> dict[str, Any]:
    """``split/manifest.json``, or ``{}`` where the split has none."""
    path = split / "manifest.json"
    return dict(json.loads(path.read_text(encoding="utf-8"))) if path.exists() else {}


def write_split(data: Path, rows: list[dict[str, Any]], dst: Path) -> None:
    """A fresh split folder ``dst`` holding copies of the files of ``rows`` (from ``data``) and their labels."""
    if dst.exists():
        shutil.rmtree(dst)
    (dst / "corpus").mkdir(parents=True)
    for row in rows:
        target = dst / "corpus" / row["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(data / "corpus" / row["path"], target)
    (dst / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def find_shared() -> Path | None:
    """shared/bench/secrets_eval beside the checkout or beside the folder of worktrees."""
    for folder in Path(__file__).resolve().parents:
        candidate = folder / "shared" / "bench" / "secrets_eval"
        if (candidate / "score.py").exists():
            return candidate
    return None


def load_scorer(shared: Path) -> ModuleType:
    """The shared scorer module (``score.py`` of ``shared``): the matching behind every credential figure."""
    if str(shared) not in sys.path:
        sys.path.insert(0, str(shared))
    return importlib.import_module("score")  # shared/bench/secrets_eval/score.py, outside the package


def per_format(split: Any) -> Iterator[tuple[str, Any]]:
    """``(ext_class, sub-split)`` for each file type of a scorer ``Split``, types in sorted order.

    A sub-split shares the split's texts and labels and holds only the rows (and bytes) of its type,
    so the scorer's ``score`` gives that type's figures."""
    for fmt in sorted({r["ext_class"] for r in split.rows}):
        sub = object.__new__(type(split))
        sub.__dict__.update(split.__dict__)
        sub.rows = [r for r in split.rows if r["ext_class"] == fmt]
        sub.bytes = sum(len(split.texts[r["path"]].encode("utf-8")) for r in sub.rows)
        yield fmt, sub
