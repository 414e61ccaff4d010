"""Every way the multi-format generator writes a credential has a real file of its type here.

``tests/data/credential_contexts/contexts.json`` maps each context of ``bench/mf_contexts.py``
(``CONTEXTS`` and the command lines of ``COMMANDS``) to fixtures, in this folder or in
``tests/data/credentials/``, that write a credential in that form; ``expected.json`` lists each
new fixture's credentials and look-alikes (names of things, versions, ids, references). The files
go through the real detector with a ``FakeScorer`` giving every character the same NLL, as in
``test_formats.py``, so what is reported is decided by the places and the evidence alone.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bench.mf_contexts import COMMANDS, CONTEXTS
from smscan.detectors.credential import CredentialDetector
from smscan.detectors.notebooks import notebook_cells
from tests.detectors.credential_fixtures import TAU, judged_values, reported_values
from tests.fakes import FakeScorer

DATA = Path(__file__).resolve().parents[1] / "data"
HERE = DATA / "credential_contexts"
EXPECTED = json.loads((HERE / "expected.json").read_text(encoding="utf-8"))
CONTEXT_FILES: dict[str, list[str]] = json.loads((HERE / "contexts.json").read_text(encoding="utf-8"))
SURPRISE = 2.5  # nats per character: a random value with the real model has more (test_formats.py)
FIELD = re.compile(r"\{[A-Za-z]+\}")


def secrets_of(fixture: str) -> list[str]:
    folder, name = fixture.split("/", 1)
    return list(json.loads((DATA / folder / "expected.json").read_text(encoding="utf-8"))[name]["secrets"])


def readable_text(fixture: str) -> str:
    """The file as a reader sees it: a notebook's cell sources, unescaped."""
    text = (DATA / fixture).read_text(encoding="utf-8")
    if fixture.endswith(".ipynb"):
        return "\n".join("".join(cell["source"]) for cell in json.loads(text)["cells"])
    return text


def lead_in(template: str, field: str) -> str:
    """The literal text a template writes right before ``field`` (at most its last 20 characters)."""
    return FIELD.split(template[: template.index(field)])[-1][-20:]


def is_written_after(text: str, secret: str, lead: str) -> bool:
    squeeze = "".join
    for match in re.finditer(re.escape(secret), text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if squeeze(text[line_start : match.start()].lower().split()).endswith(squeeze(lead.lower().split())):
            return True
    return False


def is_written_in_form(fixture: str, templates: tuple[str, ...]) -> bool:
    """Some credential of the fixture follows a template's own words (a command context: on a
    line holding the context's words, right after a command's words)."""
    text = readable_text(fixture)
    command_leads = {lead_in(c, "{v}") for _, commands in COMMANDS.values() for c in commands}
    for secret in secrets_of(fixture):
        lines = [line.lower() for line in text.splitlines() if secret in line]
        for template in templates:
            if "{v}" in template and is_written_after(text, secret, lead_in(template, "{v}")):
                return True
            in_context = "{cmd}" in template and any(lead_in(template, "{cmd}").strip().lower() in line for line in lines)
            if in_context and any(is_written_after(text, secret, lead) for lead in command_leads):
                return True
    return False


def reported(fixture: str, nll: float) -> list[str]:
    return reported_values((DATA / fixture).read_text(encoding="utf-8"), nll, path=fixture.split("/", 1)[1])


def test_every_context_of_the_generator_has_a_fixture() -> None:
    assert sorted(CONTEXT_FILES) == sorted({c.name for c in CONTEXTS} | set(COMMANDS))


@pytest.mark.parametrize("context", sorted(CONTEXT_FILES))
def test_each_fixture_writes_a_credential_in_its_context_form(context: str) -> None:
    templates = {c.name: c.templates for c in CONTEXTS} | {name: forms for name, (_, forms) in COMMANDS.items()}
    for fixture in CONTEXT_FILES[context]:
        assert is_written_in_form(fixture, templates[context]), fixture


def test_the_form_check_tells_a_fixture_of_another_form() -> None:
    # A SQL file holding only IDENTIFIED BY / PASSWORD forms writes no `-- name: value` comment.
    (sql_comment,) = [c for c in CONTEXTS if c.name == "sql_comment"]
    assert not is_written_in_form("credentials/schema.sql", sql_comment.templates)
    assert is_written_in_form("credential_contexts/seed.sql", sql_comment.templates)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_credential_of_a_context_fixture_is_reported_and_nothing_else(name: str) -> None:
    assert sorted(reported(f"credential_contexts/{name}", SURPRISE)) == sorted(EXPECTED[name]["secrets"])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_evidence_alone_reports_nothing_in_a_context_fixture(name: str) -> None:
    assert reported(f"credential_contexts/{name}", 1.0) == []


@pytest.mark.parametrize("name", sorted(n for n in EXPECTED if EXPECTED[n]["lookalikes"]))
def test_names_of_things_and_references_beside_them_are_judged_out(name: str) -> None:
    text = (HERE / name).read_text(encoding="utf-8")
    judged = judged_values(text)
    for value in EXPECTED[name]["lookalikes"]:
        assert value in text
        assert value not in judged


def test_notebook_findings_point_into_markdown_shell_and_code_cells() -> None:
    text = (HERE / "notebooks" / "export.ipynb").read_text(encoding="utf-8")
    scores = FakeScorer(unit="char", default_nll=SURPRISE).score_texts([text])[0]
    found = [c for c in CredentialDetector().candidates(text, scores) if c.score >= TAU]

    cells = notebook_cells(text)
    located = {}
    for candidate in found:
        cell = cells[candidate.details["cell"]]
        value = cell.text[candidate.details["cell_start"] : candidate.details["cell_end"]]
        assert value == text[candidate.char_start : candidate.char_end]
        located[value] = candidate.details["cell"]
    markdown, shell, code = EXPECTED["notebooks/export.ipynb"]["secrets"]
    assert located == {markdown: 0, shell: 1, code: 2}


def test_the_docs_list_every_context_with_its_fixtures() -> None:
    doc = (DATA.parents[1] / "docs" / "credential-contexts.md").read_text(encoding="utf-8").splitlines()
    for context, fixtures in CONTEXT_FILES.items():
        (row,) = [line for line in doc if line.startswith(f"| `{context}` |")]
        assert all(f"`{fixture}`" in row for fixture in fixtures), context
