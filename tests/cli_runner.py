"""The ``cli`` fixture: run ``smscan.cli.main`` with injected Services, no patched internals.

    def test_scan(cli, git_repo):
        result = cli("repo", str(git_repo), "--kinds", "surprise", "--threshold", "3")
        assert result.code == 1 and len(cli.loads) == 1

``cli(*args)`` captures the output into a ``CliResult``; ``cli.main(argv)`` is ``main``'s own
signature (the exit code; output stays for ``capsys``), for tests written against ``main``.

The model is a ``RandomWordScorer`` behind the real score cache and worker layers
(``Services.load_model``); ``cli.loads`` counts how often a model was loaded, so a test can say
that a bad input failed before the model loaded. ``cli.environ`` is the environment commands
see (the process's without ``CI``, as the autouse fixtures set it, plus what a test adds).
tests/conftest.py offers the fixture to every test folder.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import pytest

from smscan.cli import main
from smscan.cli.services import Services
from tests.scorers import RandomWordScorer


@dataclass(frozen=True)
class CliResult:
    code: int
    out: str
    err: str

    @property
    def err_lines(self) -> list[str]:
        return self.err.strip().splitlines()


class Cli:
    """Calls ``main`` with a fake model; records the model loads."""

    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self._capsys = capsys
        self.scorer = RandomWordScorer()
        self.loads: list[tuple[str, dict[str, Any]]] = []
        self.environ: dict[str, str] = {}

    def load_model(self, spec: str, **options: Any) -> RandomWordScorer:
        self.loads.append((spec, options))
        return self.scorer

    def services(self) -> Services:
        environ = {key: value for key, value in os.environ.items() if key != "CI"} | self.environ
        return Services(environ=environ, load_model=self.load_model)

    def main(self, argv: list[str]) -> int:
        """``smscan.cli.main(argv)`` with the fake model; the output stays for ``capsys``."""
        return main(argv, services=self.services())

    def __call__(self, *args: str) -> CliResult:
        self._capsys.readouterr()  # drop what came before
        code = main(list(args), services=self.services())
        captured = self._capsys.readouterr()
        return CliResult(code, captured.out, captured.err)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Cli:
    """Run the CLI in this process with a fake model injected through ``Services``."""
    return Cli(capsys)
