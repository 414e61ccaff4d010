"""The Python API: the same fields as `smscan export`, without files; `import smscan` stays light."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import smscan
from smscan.api import MaskRule, batch_masker, mask_records, mask_texts
from smscan.errors import SmscanError
from tests.cli_runner import Cli
from tests.scorers import RandomWordScorer

KEY = "aZ3kQ9xL2mP8vR4tY7wB1nC6"
RULE = MaskRule(threshold=3.0)


def test_public_names_are_pinned() -> None:
    assert sorted(smscan.__all__) == sorted(
        ["__version__", "MaskRule", "batch_masker", "load_masking_scorer", "mask_records", "mask_texts"]
    )
    assert smscan.mask_texts is mask_texts


def test_import_smscan_and_the_api_never_load_torch() -> None:
    code = "import sys, smscan, smscan.api; smscan.mask_texts; assert 'torch' not in sys.modules, 'torch'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_mask_texts_gives_spans_like_the_export(tmp_path: Path, cli: Cli) -> None:
    texts = [f"key = '{KEY}'\nprint(key)\n", "x = 1\n"]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts))
    # The same default as `smscan export` (value-aware), and the paper's rule when both ask for it.
    for masking, flags in (("values", []), ("paper", ["--masking", "paper"])):
        out = mask_texts(texts, scorer=RandomWordScorer(), rule=RULE, **({"masking": masking} if flags else {}))
        assert [o["text"] for o in out] == texts
        assert out[0]["smscan"]["masked_spans"] and out[1]["smscan"]["masked_spans"] == []
        assert out[0]["smscan"]["rule"]["surprise"]["masking"] == masking
        assert cli.main(["export", str(source), "-o", str(tmp_path / "out.jsonl"), "--threshold", "3", *flags]) == 0
        exported = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
        assert exported == out


def test_values_masking_masks_a_value_whole_where_the_papers_rule_masks_nothing() -> None:
    text = f"key = '{KEY}'\nprint(key)\n"
    strict = MaskRule(threshold=20.0)  # no raw window reaches 20 nats: code structure stays
    (paper,) = mask_texts([text], scorer=RandomWordScorer(), rule=strict, masking="paper")
    assert paper["smscan"]["masked_spans"] == []
    (values,) = mask_texts([text], scorer=RandomWordScorer(), rule=strict, value_threshold=0.5)
    start = text.index(KEY)
    assert [tuple(span[:2]) for span in values["smscan"]["masked_spans"]] == [(start, start + len(KEY))]
    assert values["smscan"]["rule"]["surprise"]["value_threshold"] == 0.5
    with pytest.raises(SmscanError, match="masking must be 'values' or 'paper'"):
        mask_texts([text], scorer=RandomWordScorer(), masking="raw")  # type: ignore[arg-type]


def test_groups_propagate_and_must_be_contiguous() -> None:
    texts = ["a", "b", "c"]
    assert len(mask_texts(texts, scorer=RandomWordScorer(), rule=RULE, groups=["u", "u", "v"])) == 3
    with pytest.raises(SmscanError, match="group 'u'"):
        mask_texts(texts, scorer=RandomWordScorer(), rule=RULE, groups=["u", "v", "u"])


def test_redact_mode_and_chat_records() -> None:
    (redacted,) = mask_texts([f"k = '{KEY}'\n"], scorer=RandomWordScorer(), rule=MaskRule(window=1, threshold=3.0), mode="redact")
    assert redacted["text"] == "k = '<MASKED>'\n"
    chat = {"messages": [{"role": "user", "content": KEY}, {"role": "assistant", "content": f"ok {KEY} done"}]}
    (out,) = mask_records([chat], scorer=RandomWordScorer(), rule=RULE)
    assert out["smscan"]["masked_spans"] and all(m == 1 for m, _, _ in out["smscan"]["masked_spans"])


def test_a_bad_record_is_an_error_naming_it() -> None:
    with pytest.raises(SmscanError, match="record 1: field 'text' is int"):
        list(mask_records([{"text": "a"}, {"text": 1}], scorer=RandomWordScorer(), rule=RULE))


def test_batch_masker_returns_new_columns_for_datasets_map(tmp_path: Path) -> None:
    from tests.fakes import build_tiny_model

    folder = build_tiny_model(tmp_path / "tiny")
    masker = batch_masker(RandomWordScorer(), rule=RULE, tokenizer=str(folder))
    batch = {"text": [f"x = 1\nk = '{KEY}'\ny = 2\n", "z = 3\n"], "id": [1, 2]}
    columns = masker(batch)
    assert sorted(columns) == ["attention_mask", "input_ids", "labels", "smscan"]
    assert all(len(columns[name]) == 2 for name in columns)
    assert -100 in columns["labels"][0]
    assert columns["smscan"][0]["masked_spans"]


def test_empty_texts_and_chats_export_with_nothing_masked() -> None:
    out = mask_texts(["", " "], scorer=RandomWordScorer(), rule=RULE)
    assert [o["smscan"]["masked_spans"] for o in out] == [[], []]
    chats = list(mask_records([{"messages": []}, {"messages": [{"role": "assistant", "content": ""}]}], scorer=RandomWordScorer()))
    assert [c["smscan"]["masked_fraction"] for c in chats] == [0.0, 0.0]


def test_the_default_adds_credential_findings_only_for_the_packaged_model() -> None:
    from smscan.api import _default_detections
    from smscan.rules.thresholds_file import packaged_thresholds

    class PackagedModel:
        fingerprint = packaged_thresholds()["kinds"]["credential"]["fingerprint"]

    (credential,) = _default_detections(PackagedModel())  # type: ignore[arg-type]
    assert credential.detector.kind == "credential"
    assert credential.threshold == packaged_thresholds()["kinds"]["credential"]["threshold"]
    assert _default_detections(RandomWordScorer()) == ()


@pytest.mark.model
def test_real_model_default_masks_a_credential_whole_as_the_cli_does() -> None:
    from smscan.api import load_masking_scorer

    token = "q7Xk2mP9vR4tW8zL3nB6cJ1hF5dG0sYa"
    text = f'import requests\n\nAPI_TOKEN = "{token}"\n\n\ndef fetch(url):\n    return requests.get(url)\n'
    (record,) = mask_texts([text], scorer=load_masking_scorer(device="cpu"))
    assert record["smscan"]["rule"]["kinds"] == ["surprise", "credential"]
    assert record["smscan"]["rule"]["surprise"]["masking"] == "values"
    start = text.index(token)
    assert any(a <= start and b >= start + len(token) for a, b in record["smscan"]["masked_spans"])
