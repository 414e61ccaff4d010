"""bench/secret_slots.py on a small folder: a credential under a secret name is listed, masked; a
model's name inside a JSON object named ``credential`` is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.secret_slots import main, secret_slots

KEY = "Xk9pQ2mZ7wLt"


def test_lists_secret_named_values_masked_and_leaves_names_of_things_out(tmp_path: Path) -> None:
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "app.properties").write_text(f"jwt.secret.key={KEY}\n", encoding="utf-8")
    (tmp_path / "thresholds.json").write_text('{"credential": {"model": "SmolLM2-135M-Instruct"}}\n', encoding="utf-8")
    (tmp_path / "blob.bin").write_bytes(b"\xff\xfe\x00")
    lines = secret_slots(tmp_path)
    assert lines == ["conf/app.properties:15 assignment [12 chars] evidence 1.0"]
    assert KEY not in "\n".join(lines)


def test_a_missing_folder_is_one_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([str(tmp_path / "absent")])
    assert exit_info.value.code == 2
    assert "no such folder" in capsys.readouterr().err
