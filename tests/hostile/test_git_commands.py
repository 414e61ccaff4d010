"""A scanned repository's config and attributes name commands; no scanning mode ever runs one.

Each test builds a real repository, commits and stages files, and only then plants commands in
``.git/config``, ``.gitattributes``, ``.git/info/attributes`` and hooks (planting first would run
them in the test's own ``git add``). Every planted command would create a file in ``pwned/``;
after each mode that folder must still be empty and the planted secret still found.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli_runner import Cli
from tests.conftest import commit_files, head_id, run_git, stage_files, write_files
from tests.scorers import TEST_CONFIG

SECRET = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"
HOOK_NAMES = ("post-index-change", "reference-transaction", "pre-commit", "post-checkout", "fsmonitor-watchman")


def body(secret_line: int | None = None, n: int = 8) -> str:
    return "".join(
        (f"key = '{SECRET}'" if i == secret_line else f"value_{i} = {i}") + "\n" for i in range(1, n + 1)
    )


def plant(repo: Path, pwned: Path) -> None:
    """Configure every repository-controlled command git knows of to create a file in pwned/."""
    pwned.mkdir()

    def touch(what: str, then: str = "cat") -> str:
        return f"touch {pwned / what}; {then}"

    settings = {
        "core.fsmonitor": touch("fsmonitor", "echo"),
        "core.hooksPath": str(pwned.parent / "githooks"),
        "core.pager": touch("core-pager"),
        "pager.diff": touch("pager-diff"),
        "pager.ls-files": touch("pager-ls-files"),
        "core.sshCommand": touch("ssh", "false"),
        "core.askPass": touch("askpass", "false"),
        "core.editor": touch("editor", "true"),
        "credential.helper": f"!{touch('credential', 'true')}",
        "diff.external": touch("diff-external", "true"),
        "filter.evil.clean": touch("filter-clean"),
        "filter.evil.smudge": touch("filter-smudge"),
        "filter.evil.required": "true",
        "filter.evilproc.process": touch("filter-process", "false"),
        "diff.evil.textconv": touch("textconv"),
        "diff.evil.command": touch("diff-command", "true"),
        "log.showSignature": "true",
        "gpg.program": touch("gpg", "false"),
    }
    for key, value in settings.items():
        run_git(repo, "config", key, value)
    write_files(repo, {".git/info/attributes": "*.py filter=evil diff=evil\n*.txt filter=evilproc\n"})
    for folder in (repo / ".git" / "hooks", pwned.parent / "githooks"):
        folder.mkdir(exist_ok=True)
        for name in HOOK_NAMES:
            hook = folder / name
            hook.write_text(f"#!/bin/sh\ntouch {pwned / ('hook-' + name)}\n")
            hook.chmod(0o755)


@pytest.fixture
def hostile(git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli) -> tuple[Path, Path, str]:
    """A repository with a secret committed in HEAD, one staged and one in the work tree, whose
    config then runs commands; returns (repo, pwned folder, the base commit)."""
    commit_files(git_repo, {"a.py": body(), ".gitattributes": "* diff=evil filter=evil\n", "n.txt": "x\n"})
    base = head_id(git_repo)
    commit_files(git_repo, {"a.py": body(3)}, "add key")
    stage_files(git_repo, {"b.py": body(5)})
    write_files(git_repo, {"c.py": body(2), "n.txt": "y\n"})
    pwned = tmp_path / "pwned"
    plant(git_repo, pwned)
    monkeypatch.chdir(git_repo)
    return git_repo, pwned, base


def _config_args(tmp_path: Path) -> list[str]:
    path = tmp_path / "smscan-test.toml"
    path.write_text(TEST_CONFIG)
    return ["--config", str(path), "--format", "json"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["repo", "."], {"a.py", "b.py", "c.py"}),
        (["repo", ".", "--rev", "HEAD"], {"a.py"}),
        (["staged"], {"b.py"}),
        (["diff", "{base}...HEAD"], {"a.py"}),
        (["diff", "{base}...HEAD", "--each-commit"], {"a.py"}),
        (["hook", "b.py", "c.py"], {"b.py", "c.py"}),
        (["files", "a.py", "c.py"], {"a.py", "c.py"}),
    ],
)
def test_no_mode_runs_a_command_the_repository_configures(
    cli: Cli, hostile: tuple[Path, Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], expected: set[str]
) -> None:
    _, pwned, base = hostile
    code = cli.main([arg.format(base=base) for arg in args] + _config_args(tmp_path))
    captured = capsys.readouterr()
    assert sorted(p.name for p in pwned.iterdir()) == []
    assert code == 1, captured.err
    assert {f["path"] for f in json.loads(captured.out)["findings"]} == expected


def test_the_planted_commands_do_run_under_plain_git(hostile: tuple[Path, Path, str]) -> None:
    """The trap is live: the same repository makes plain git run the planted commands."""
    repo, pwned, _ = hostile
    subprocess.run(["git", "status"], cwd=repo, capture_output=True, check=False)
    subprocess.run(["git", "diff", "HEAD~1", "--", "a.py"], cwd=repo, capture_output=True, check=False)
    ran = {p.name for p in pwned.iterdir()}
    assert {"fsmonitor", "filter-clean", "diff-command"} <= ran, ran




def test_inherited_git_environment_neither_runs_commands_nor_redirects(
    cli: Cli, hostile: tuple[Path, Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Config and locations a parent process passes down (as git does to a hook) are pinned."""
    _, pwned, _ = hostile
    other = tmp_path / "other"
    other.mkdir()
    run_git(other, "init", "-q")
    commit_files(other, {"elsewhere.py": body(4)})
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.fsmonitor'='touch {pwned / 'env-fsmonitor'}; echo'")
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", f"touch {pwned / 'env-external-diff'}; true")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(other / ".git" / "objects"))
    for args, expected in ((["staged"], {"b.py"}), (["repo", "."], {"a.py", "b.py", "c.py"})):
        code = cli.main(args + _config_args(tmp_path))
        captured = capsys.readouterr()
        assert (code, sorted(p.name for p in pwned.iterdir())) == (1, []), captured.err
        assert {f["path"] for f in json.loads(captured.out)["findings"]} == expected


@pytest.mark.parametrize(
    ("listing", "expected"),
    [
        (b"", []),
        (
            b"filter.lfs.process\ngit-lfs filter-process\0filter.Lfs.required\ntrue\0diff.a.b.textconv\nx\0",
            [("diff.a.b.textconv", ""), ("filter.Lfs.required", "false"), ("filter.lfs.process", ""), ("filter.lfs.required", "false")],
        ),
        (b"diff.evil.command\ntouch x\0diff.evil.binary\ntrue\0", [("diff.evil.command", "")]),
    ],
)
def test_driver_overrides_blank_every_driver_command(listing: bytes, expected: list[tuple[str, str]]) -> None:
    from smscan.sources.git_hardening import driver_overrides

    assert driver_overrides(listing) == expected


def test_a_driver_name_that_cannot_be_switched_off_is_refused(git_repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, cli, capsys) -> None:
    commit_files(git_repo, {"a.py": body()})
    run_git(git_repo, "config", "filter.a=b.clean", "touch pwned; cat")
    monkeypatch.chdir(git_repo)
    code = cli.main(["staged", *_config_args(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "cannot switch off safely" in err and "Traceback" not in err
    assert not (git_repo / "pwned").exists()


@pytest.mark.parametrize("commit_args", [["-a"], ["--", "a.py"]])
def test_the_plain_hook_reads_the_index_git_commit_builds(
    git_repo: Path, tmp_path: Path, commit_args: list[str]
) -> None:
    """`git commit -a` and `git commit PATH` hand the hook a temporary index (GIT_INDEX_FILE):
    the hardened git calls (which pin GIT_DIR and friends) still read it, so a secret that was only
    in the work tree before the commit is found."""
    import os

    from tests.scorers import write_smscan_wrapper

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    write_smscan_wrapper(bin_dir, fake=True)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    write_files(git_repo, {".smscan.toml": TEST_CONFIG})
    commit_files(git_repo, {"a.py": body(), ".smscan.toml": TEST_CONFIG})
    assert subprocess.run(["smscan", "install-hook"], cwd=git_repo, env=env, capture_output=True, check=False).returncode == 0
    write_files(git_repo, {"a.py": body(4)})  # modified in the work tree, not staged
    blocked = subprocess.run(
        ["git", "commit", "-q", "-m", "key", *commit_args], cwd=git_repo, env=env, capture_output=True, text=True, check=False
    )
    assert blocked.returncode != 0 and "a.py" in blocked.stdout + blocked.stderr, blocked.stderr
    assert run_git(git_repo, "log", "--format=%s").splitlines() == ["add files"]


def test_every_git_process_carries_the_hardening(
    cli: Cli, hostile: tuple[Path, Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each git process any mode starts (gitpython's long-lived cat-file readers included) gets the
    -c settings before its subcommand and the pinned environment; only `git version`, which reads
    no repository, is gitpython's own."""
    from smscan.sources.git_hardening import PINNED_ENVIRONMENT, command_options

    _, _, base = hostile
    started: list[tuple[list[str], dict[str, str]]] = []
    original = subprocess.Popen.__init__

    def spy(self: subprocess.Popen, args: object, *rest: object, **kwargs: object) -> None:
        if isinstance(args, (list, tuple)) and args and Path(str(args[0])).name == "git":
            started.append(([str(a) for a in args], dict(kwargs.get("env") or {})))  # type: ignore[call-overload]
        original(self, args, *rest, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(subprocess.Popen, "__init__", spy)
    for args in (["repo", "."], ["repo", ".", "--rev", "HEAD"], ["staged"], ["diff", f"{base}...HEAD", "--each-commit"], ["hook", "b.py"]):
        cli.main(args + _config_args(tmp_path))
        capsys.readouterr()
    expected = command_options()[:3]  # --no-pager -c core.fsmonitor=false
    calls = [(argv, env) for argv, env in started if argv[1:] != ["version"]]
    assert len(calls) >= 10
    for argv, env in calls:
        assert argv[1:4] == expected, argv
        assert "core.hooksPath=/dev/null" in argv, argv
        assert {k: env.get(k) for k in PINNED_ENVIRONMENT} == PINNED_ENVIRONMENT, argv
        assert env.get("GIT_DIR"), argv


def test_a_partial_clone_never_fetches_a_missing_object(
    git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], cli
) -> None:
    """A promisor remote with an `ext::` URL runs a command when git lazily fetches a missing
    object, and `protocol.ext.allow=always` beats a plain `protocol.allow=never`; the pinned
    GIT_ALLOW_PROTOCOL="" allows no transport at all, so the read fails cleanly instead."""
    commit_files(git_repo, {"a.py": body()})
    commit_files(git_repo, {"a.py": body(3)}, "add key")
    blob = run_git(git_repo, "rev-parse", "HEAD:a.py").strip()
    (git_repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    pwned = tmp_path / "pwned"
    pwned.mkdir()
    for key, value in {
        "core.repositoryformatversion": "1",
        "extensions.partialClone": "origin",
        "remote.origin.url": f"ext::sh -c touch% {pwned / 'fetched'}",
        "remote.origin.promisor": "true",
        "protocol.ext.allow": "always",
    }.items():
        run_git(git_repo, "config", key, value)
    subprocess.run(["git", "-c", "protocol.allow=never", "cat-file", "-p", blob], cwd=git_repo, capture_output=True, check=False)
    assert [p.name for p in pwned.iterdir()] == ["fetched"]  # the trap is live under plain git
    (pwned / "fetched").unlink()
    monkeypatch.chdir(git_repo)
    for args in (["repo", ".", "--rev", "HEAD"], ["diff", "HEAD~1"], ["diff", "HEAD~1", "--each-commit"]):
        code = cli.main(args + _config_args(tmp_path))
        err = capsys.readouterr().err
        assert code == 2 and "Traceback" not in err and err.count("\n") == 1, (args, err)
        assert list(pwned.iterdir()) == [], args
