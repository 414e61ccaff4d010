"""The extraction benchmark's training path (bench/extraction.py): an export's labels reach the
trainer as -100 exactly where the export masked, through the same functions the benchmark runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bench.extraction import arm_examples, blocks_of, encode, new_model, regex_spans, train, Scale, BLOCK
from bench.extraction_set import ExtractionSet, render, Plant
from smscan.exports.labels import overlaps
from tests.fakes import build_tiny_model
from tests.scorers import THRESHOLD_ARGS

KEY = "sk_live_Q7rT2mXb9LpZ4vWc8NdK"
MAIL = "anna.kowalski@kestrel.dev"


def tiny_set() -> ExtractionSet:
    hosts = [
        ["import os", "", "def main():", "    return os.getcwd()", ""],
        ["# settings", "debug = false", "workers = 4"],
    ]
    plants = [
        Plant(0, 1, "api_key", 'API_KEY = "{v}"'),
        Plant(1, 1, "api_key", "api_key = {v}"),
        Plant(0, 3, "email", "# questions go to {v}"),
        Plant(1, 0, "email", "# contact {v} for access"),
    ]
    values = {"api_key": KEY, "email": MAIL}
    others = {"api_key": "sk_live_B3nY8cQw1ZsK6uRf0HjM", "email": "marek.novak@fjordsoft.com"}
    names = ["pkg/a.py", "pkg/b.ini"]
    return ExtractionSet(
        rows=render(hosts, names, "pkg", plants, values),
        control_rows=render(hosts, names, "pkg", plants, others),
        plain=["\n".join(h) + "\n" for h in hosts],
        heldout=["x = 1\n"],
        alternatives={KEY: ["sk_live_B3nY8cQw1ZsK6uRf0HjM"], MAIL: ["marek.novak@fjordsoft.com"]},
    )


def test_render_places_every_value_at_its_span() -> None:
    data = tiny_set()
    for row in data.rows:
        for span in row["spans"]:
            assert row["text"][span["start"]:span["end"]] == span["value"]
    assert [s["start"] for s in data.rows[0]["spans"]] == [s["start"] for s in data.control_rows[0]["spans"]]


def test_regex_baseline_finds_keys_mails_and_assigned_passwords() -> None:
    text = f'key = "{KEY}"\n# ask {MAIL}\nDB_PASSWORD = "Harbor!tulip90"\nhost: db-07.kestrel.internal\nname = "plain"\n'
    found = [text[a:b] for a, b in regex_spans(text)]
    assert found == [KEY, MAIL, "Harbor!tulip90", "db-07.kestrel.internal"]


def test_export_labels_reach_the_trainer_as_ignore_exactly_where_masked(tmp_path: Path, cli) -> None:
    import torch
    from transformers import AutoTokenizer

    model_dir = build_tiny_model(tmp_path / "tiny")
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    data = tiny_set()
    arms, masks = arm_examples(data, tokenizer, tmp_path, model_dir, *THRESHOLD_ARGS, services=cli.services())
    masked_spans = [[(a, b) for a, b, *_ in record["smscan"]["masked_spans"]]
                    for record in _read(tmp_path / "export-mask.jsonl")]
    assert any(masked_spans), "the export masked nothing: the check below would say nothing"
    # What the labels must be: -100 on every token overlapping a masked span, the id elsewhere.
    expected = []
    for row, spans in zip(data.rows, masked_spans):
        ids, offsets = encode(tokenizer, row["text"])
        drop = overlaps(offsets, spans)
        expected.append((ids, [(-100 if d else i) for i, d in zip(ids, drop)]))
        for span in row["spans"]:  # every planted occurrence the export masked has no loss on any of its tokens
            inside = (offsets[:, 0] < span["end"]) & (offsets[:, 1] > span["start"])
            covered = sum(max(0, min(b, span["end"]) - max(a, span["start"])) for a, b in spans)
            if covered == span["end"] - span["start"]:
                assert all(d for d in drop[inside])
    assert arms["smscan"] == expected
    assert arms["raw"] == [(ids, ids) for ids, _ in expected]
    assert masks["smscan"]["occurrences"] == 4

    ids, labels = blocks_of(arms["smscan"], tokenizer.pad_token_id)
    want_ids, want_labels = blocks_of(expected, tokenizer.pad_token_id)
    assert torch.equal(ids, want_ids) and torch.equal(labels, want_labels)
    assert ids.shape[1] == BLOCK and int((labels == -100).sum()) > int((ids == tokenizer.pad_token_id).sum())
    seen: list[tuple[torch.Tensor, torch.Tensor]] = []
    model = new_model(len(tokenizer), Scale(width=32, layers=1), seed=0)
    before = [p.detach().clone() for p in model.parameters()]
    losses = train(model, ids, labels, steps=3, batch=2, lr=1e-2, seed=0, device="cpu",
                   on_batch=lambda x, y: seen.append((x.clone(), y.clone())))
    assert len(seen) == 3 and all(np.isfinite(losses))
    rows = {tuple(row.tolist()): tuple(label.tolist()) for row, label in zip(ids, labels)}
    for x, y in seen:  # each row the model got carries the export's labels for that block
        for row, label in zip(x, y):
            assert rows[tuple(row.tolist())] == tuple(label.tolist())
    assert any(not torch.equal(a, b) for a, b in zip(before, model.parameters()))


def test_the_benchmark_model_leaves_ignored_labels_out_of_its_loss() -> None:
    """The loss the trainer steps on is the mean over exactly the labels that are not -100."""
    import torch

    model = new_model(64, Scale(width=32, layers=1), seed=0).eval()
    with torch.no_grad():
        full, masked, manual = _losses(model)
    assert float(masked) == pytest.approx(float(manual), rel=1e-5)
    assert float(masked) != pytest.approx(float(full), rel=1e-6)


def _losses(model):
    import torch

    ids = torch.randint(0, 64, (1, 16), generator=torch.Generator().manual_seed(1))
    labels = ids.clone()
    labels[0, 5:9] = -100
    full = model(input_ids=ids, labels=ids).loss
    masked = model(input_ids=ids, labels=labels).loss
    logp = torch.log_softmax(model(input_ids=ids).logits[0, :-1], dim=-1)
    keep = [i for i in range(1, 16) if not 5 <= i < 9]
    manual = -torch.stack([logp[i - 1, ids[0, i]] for i in keep]).mean()
    return full, masked, manual


def _read(path: Path) -> list[dict]:
    import json

    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_write_gives_the_issue_shape_and_one_section(tmp_path: Path, monkeypatch) -> None:
    import json

    import bench.extraction as extraction

    arm = {"exact_extraction": 0.4, "values_extracted": 0.8, "char_share": 0.5, "log_likelihood": -5.0, "median_rank": 1.0,
           "rank_1": 0.9, "exact_by_category": {"email": 0.5}, "heldout_loss": 8.0}
    mask = {"planted_chars_masked": 0.9, "other_chars_masked": 0.0, "under_half_masked": 1, "occurrences": 4, "tokens_without_loss": 0.3}
    doc = {"arms": {"raw": arm, "smscan": {**arm, "exact_extraction": 0.0, "mask": mask}, "redact": arm, "regex": {**arm, "mask": mask}},
           "model": "m", "steps": 3, "device": "cpu", "seconds": 60.0,
           "set": {"files": 2, "values": 4, "occurrences": 4, "tokens": 100, "batch": 2, "block": 64, "lr": 0.1}}
    monkeypatch.setattr(extraction, "RESULTS", tmp_path / "results" / "extraction.json")
    monkeypatch.setattr(extraction, "BENCHMARKS", tmp_path / "BENCHMARKS.md")
    (tmp_path / "BENCHMARKS.md").write_text("# Benchmarks\n\n## Other\nkept\n")
    extraction.write(doc, "python -m bench.extraction --write")
    extraction.write(doc, "python -m bench.extraction --write")  # a rerun replaces its section
    saved = json.loads((tmp_path / "results" / "extraction.json").read_text())
    assert {"arms", "model", "steps", "device"} <= set(saved)
    for name in ("raw", "smscan", "redact", "regex"):
        assert {"exact_extraction", "char_share", "heldout_loss"} <= set(saved["arms"][name])
    text = (tmp_path / "BENCHMARKS.md").read_text()
    assert text.count(f"## {extraction.HEADING}") == 1 and "## Other\nkept" in text
    assert "| smscan |" in text and "| 0.0% |" in text
