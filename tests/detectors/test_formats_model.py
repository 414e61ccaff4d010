"""Credentials in several file types with the real default model and the packaged threshold
(marked `model`; CI runs it). A few hundred tokens: notes, extensionless text, SQL, shell,
Haskell, URLs, a notebook, a lock file, and passwords passed by position to connection calls
(Java, PHP) or holding ``-X=`` (JSON), and JSON values named by their parent object or array,
of ``tests/data/credentials/``; random passwords shaped like file names or ranges, a licence key
holding `MY`, and lists of names, numbers with separators and a `gitHead` commit beside them (INI,
properties, YAML, XML, TOML, JSON), a glued `-p` password holding `=` and type paths in Rust,
and passwords holding a dot in a URL and after `PW:` beside pre-release requirements (noext)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.detectors.credential_fixtures import scan_copies

pytestmark = pytest.mark.model

DATA = Path(__file__).resolve().parents[1] / "data" / "credentials"
FILES = ["notes.md", "LICENSE-KEYS", "schema.sql", "deploy.sh", "Bot.hs", "links.md", "explore.ipynb", "package-lock.json",
         "Database.java", "db.php", "appsettings.json", "service-config.json", "alembic.ini", "gradle.properties",
         "azure-deps.yml", "build.xml", "limits.toml", "package.json", "bindings.rs", "RELEASING"]


def test_credentials_in_many_file_types_are_found_and_look_alikes_are_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, found, expected = scan_copies(DATA, FILES, tmp_path, capsys)

    assert code == 1
    assert found == expected
