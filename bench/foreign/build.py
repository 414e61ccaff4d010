"""``build``: every pinned source read from the mirrors into ``DIR/examples.jsonl`` and ``DIR/manifest.json``."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from .examples import write_jsonl
from .sources import SOURCES, Source, collect


def build(mirrors: Path, out: Path, names: list[str], sources: tuple[Source, ...] = SOURCES) -> dict[str, object]:
    examples, counts = collect(mirrors, names, sources)
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "examples.jsonl", examples)
    per_source: dict[str, Counter[str]] = {}
    for ex in examples:
        c = per_source.setdefault(ex.source, Counter())
        c["examples"] += 1
        c["credentials"] += len(ex.labels)
        c["look_alikes"] += len(ex.negatives)
        c["identifier_only"] += bool(ex.identifiers and not ex.labels and not ex.negatives)
    manifest: dict[str, object] = {
        "generator": "foreign",
        "sources": {s.name: {"pin": s.pin.describe(), "repo": s.pin.repo, "commit": s.pin.commit, "what": s.what,
                             "kept": dict(per_source.get(s.name, Counter())), "reading": counts.get(s.name, {})}
                    for s in sources if s.name in names},
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest
