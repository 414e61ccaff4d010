from __future__ import annotations

import ast
from pathlib import Path

import pytest

from smscan.calibration.synthetic import synthetic_documents
from smscan.errors import SmscanError

SOURCE = "def f(x):\n    y = x + 1\n    z = y * 2\n    return z\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for index in range(6):
        (tmp_path / f"m{index}.py").write_text(SOURCE)
        (tmp_path / f"c{index}.yaml").write_text("name: app\nport: 8080\n")
    return tmp_path


def test_planted_credentials_are_labelled_exactly(project: Path) -> None:
    documents = synthetic_documents("credential", project, seed=3)

    planted = [(d, span) for d in documents for span in d.spans]
    assert planted
    for document, (start, end) in planted:
        value = document.text[start:end]
        assert value and value == value.strip() and value not in SOURCE
    assert any(not d.spans for d in documents)  # untouched files are negatives


def test_planted_dead_lines_keep_python_valid(project: Path) -> None:
    documents = synthetic_documents("dead-code", project, seed=3)

    planted = [d for d in documents if d.lines]
    assert planted
    for document in planted:
        ast.parse(document.text)
        (line,) = document.lines
        assert document.text.split("\n")[line - 1].strip() not in SOURCE


def test_same_seed_same_data(project: Path) -> None:
    assert synthetic_documents("credential", project, seed=5) == synthetic_documents("credential", project, seed=5)


def test_nothing_to_plant_in(tmp_path: Path) -> None:
    with pytest.raises(SmscanError, match="no text file"):
        synthetic_documents("credential", tmp_path)
