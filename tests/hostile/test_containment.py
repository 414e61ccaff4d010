"""Secrets found stay contained: every report format, the baseline, error output, explain and the
score cache hold no full secret (nor the tokens that spell it) unless ``--no-redact`` asks.

Scans a real repository with the fake scorer, then reads back everything smscan printed and every
file it wrote: reports (-o), the baseline, the score cache database (with its WAL files), and all
of HOME. A redacted value keeps at most a 4-character prefix, so the rest of each secret
(``secret[4:]``) must appear nowhere.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from tests.cli_runner import Cli
from tests.conftest import commit_files, head_id, stage_files
from tests.scorers import TEST_CONFIG

SECRETS = ("q8Zt3kPx0wLm9Rv2Yc7Hn4Bd", "Lm9Rv2q8Zt3kPx0wHn4BdYc7", "Hn4Bd0wLm9Rv2Yc7q8Zt3kPx")


def _tails() -> list[bytes]:
    return [secret[4:].encode() for secret in SECRETS]


def _token_id_patterns() -> list[bytes]:
    # The fake tokenizer's id of a secret (one word, one token) in the widths a cache could store.
    ids = [zlib.crc32(secret.encode()) for secret in SECRETS]
    return [struct.pack("<q", i) for i in ids] + [struct.pack("<I", i) for i in ids] + [struct.pack(">I", i) for i in ids]


@pytest.fixture
def repo(git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli) -> Path:
    body = "".join(f"value_{i} = {i}\n" for i in range(8))
    commit_files(git_repo, {"a.py": body + f"key = '{SECRETS[0]}'\nsame = '{SECRETS[0]}'\n", "b.py": body})
    commit_files(git_repo, {"b.py": body + f"token = \"{SECRETS[1]}\"\n"}, "second")
    stage_files(git_repo, {"c.py": body + f"password = '{SECRETS[2]}'  # trailing\n"})
    (tmp_path / "c.toml").write_text(TEST_CONFIG)
    monkeypatch.chdir(git_repo)
    return git_repo


def test_no_output_file_or_cache_holds_a_full_secret(
    cli: Cli, repo: Path, tmp_path: Path, git_env: Path, score_cache_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = ["--config", str(tmp_path / "c.toml")]
    base = head_id(repo, "HEAD~1")
    runs = [
        ["repo", "."],
        ["repo", ".", "--format", "json", "-o", "report.json"],
        ["repo", ".", "--format", "sarif", "-o", "report.sarif"],
        ["repo", ".", "--format", "json"],
        ["repo", ".", "--format", "sarif"],
        ["repo", ".", "--rev", "HEAD"],
        ["staged"],
        ["diff", f"{base}...HEAD", "--format", "json"],
        ["diff", f"{base}...HEAD", "--each-commit"],
        ["hook", "a.py", "c.py"],
        ["files", "a.py", "b.py"],
        ["baseline", "-o", ".smscan-baseline.json"],
        ["repo", ".", "--baseline", ".smscan-baseline.json"],
        ["repo", ".", "--baseline", ".smscan-baseline.json", "--format", "json"],
        ["explain", "a.py"],
        ["explain", "c.py:9"],
    ]
    printed = []
    for args in runs:
        code = cli.main([args[0], *config, *args[1:]])
        captured = capsys.readouterr()
        assert code in (0, 1), (args, captured.err)
        printed.append(captured.out + captured.err)
    assert sum("chars]" in text for text in printed) >= 8  # the findings were there, redacted
    assert "•" in printed[-1]  # explain masks them
    everything = "\n".join(printed).encode()
    for tail in _tails():
        assert tail not in everything

    written = [repo / "report.json", repo / "report.sarif", repo / ".smscan-baseline.json"]
    written += [p for p in score_cache_dir.rglob("*") if p.is_file()]
    written += [p for p in git_env.rglob("*") if p.is_file()]
    assert any(p.parent == score_cache_dir or score_cache_dir in p.parents for p in written[3:]), "no cache written"
    for path in written:
        data = path.read_bytes()
        for tail in _tails():
            assert tail not in data, path
            assert tail.decode().encode("utf-16-le") not in data, path
        if score_cache_dir in path.parents:
            for pattern in _token_id_patterns():
                assert pattern not in data, f"{path} holds a token id of a secret"


def test_no_redact_is_what_shows_a_secret(cli: Cli, repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The containment check above can fail: the same scan with --no-redact prints the secrets."""
    code = cli.main(["repo", "--config", str(tmp_path / "c.toml"), ".", "--no-redact"])
    out = capsys.readouterr().out
    assert code == 1 and SECRETS[0] in out and SECRETS[1] in out


def test_a_scan_removes_entries_of_the_old_cache_format(cli: Cli, repo: Path, tmp_path: Path, score_cache_dir: Path, capsys) -> None:
    """Entries of the format before the database held token ids (they decode to the scanned text);
    the first scan that writes the cache deletes them, without waiting for `smscan cache clear`."""
    legacy = score_cache_dir / "ab" / f"ab{'0' * 62}.npz"
    legacy.parent.mkdir(parents=True)
    legacy.write_bytes(b"token ids of " + SECRETS[0].encode())
    assert cli.main(["repo", "--config", str(tmp_path / "c.toml"), "."]) == 1
    capsys.readouterr()
    assert not legacy.exists() and not legacy.parent.exists()
    assert any(score_cache_dir.iterdir())  # the database itself is there
