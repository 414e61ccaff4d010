"""The git-aware commands end to end through `main`, with the fake scorer and real repositories."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from smscan.cli.git_modes import HOOK_SCRIPT
from tests.cli_runner import Cli
from tests.conftest import (
    commit_files,
    head_id,
    run_git,
    stage_files,
    write_files,
)
from tests.scorers import TEST_CONFIG

SECRET = "q8Zt3kPx0wLm9Rv2Yc7Hn4Bd"
OTHER_SECRET = "Lm9Rv2q8Zt3kPx0wHn4BdYc7"
ROOT = Path(__file__).resolve().parents[2]


def body(n: int = 12, **lines: str) -> str:
    """n numbered lines; keyword ``l<k>`` replaces line k."""
    return "".join(lines.get(f"l{i}", f"value_{i} = {i}") + "\n" for i in range(1, n + 1))


def scan(cli: Cli, capsys: pytest.CaptureFixture[str], *args: str, config: bool = True) -> tuple[int, dict[str, Any], str]:
    code = cli.main([*args, "--format", "json", *(CONFIG_ARGS if config else [])])
    captured = capsys.readouterr()
    report = json.loads(captured.out) if captured.out.strip() else {}
    return code, report, captured.err


def where(report: dict[str, Any]) -> list[tuple[str, int]]:
    return [(f["path"], f["start"]["line"]) for f in report["findings"]]


CONFIG_ARGS: list[str] = []


@pytest.fixture(autouse=True)
def scan_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """``--config FILE`` (outside the repository) for scans with the fake scorer."""
    path = tmp_path / "smscan-test.toml"
    path.write_text(TEST_CONFIG)
    monkeypatch.setattr(f"{__name__}.CONFIG_ARGS", ["--config", str(path)])
    return ["--config", str(path)]


@pytest.fixture
def repo(git_repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(git_repo)
    return git_repo


# --- staged ---------------------------------------------------------------------------------


def test_staged_finds_a_secret_in_the_index_not_in_the_work_tree(cli: Cli, repo: Path, capsys) -> None:
    commit_files(repo, {"a.py": body()})
    stage_files(repo, {"a.py": body(l6=f"key = '{SECRET}'")})
    write_files(repo, {"a.py": body()})
    code, report, _ = scan(cli, capsys, "staged")
    assert code == 1
    assert where(report) == [("a.py", 6)]


def test_staged_ignores_a_secret_only_in_the_work_tree(cli: Cli, repo: Path, capsys) -> None:
    commit_files(repo, {"a.py": body()})
    stage_files(repo, {"a.py": body(l3="value_3 = 33")})
    write_files(repo, {"a.py": body(l3="value_3 = 33", l6=f"key = '{SECRET}'")})
    code, report, _ = scan(cli, capsys, "staged")
    assert code == 0, report
    assert report["findings"] == []


def test_staged_scores_changed_lines_with_bounded_left_context(
    repo: Path, capsys, cli: Cli
) -> None:
    commit_files(repo, {"big.py": body(400, l2=f"old = '{SECRET}'")})
    stage_files(repo, {"big.py": body(400, l2=f"old = '{SECRET}'", l390="value_390 = 0")})
    code, report, _ = scan(cli, capsys, "staged")
    assert code == 0  # the old secret is outside the change and its context
    (text,) = cli.scorer.texts
    assert text.endswith("value_390 = 0\n") and SECRET not in text
    assert len(text) < 2048 + 100


def test_staged_old_secret_in_unchanged_part_is_not_reported(cli: Cli, repo: Path, capsys) -> None:
    commit_files(repo, {"a.py": body(l2=f"old = '{SECRET}'")})
    stage_files(repo, {"a.py": body(l2=f"old = '{SECRET}'", l9=f"new = '{OTHER_SECRET}'")})
    code, report, _ = scan(cli, capsys, "staged")
    assert code == 1
    assert where(report) == [("a.py", 9)]


def test_staged_in_an_empty_repository(cli: Cli, repo: Path, capsys) -> None:
    stage_files(repo, {"first.py": f"key = '{SECRET}'\n"})
    code, report, _ = scan(cli, capsys, "staged")
    assert (code, where(report)) == (1, [("first.py", 1)])


# --- diff -----------------------------------------------------------------------------------


def test_diff_three_dots_reports_only_what_the_range_added(cli: Cli, repo: Path, capsys) -> None:
    commit_files(repo, {"a.py": body(l2=f"old = '{SECRET}'"), "b.py": body()})
    run_git(repo, "checkout", "-q", "-b", "feature")
    commit_files(repo, {"a.py": body(l2=f"old = '{SECRET}'", l10=f"new = '{OTHER_SECRET}'")}, "feature")
    run_git(repo, "checkout", "-q", "main")
    commit_files(repo, {"b.py": body(l5=f"main = '{OTHER_SECRET}'")}, "main moves on")
    code, report, _ = scan(cli, capsys, "diff", "main...feature")
    assert (code, where(report)) == (1, [("a.py", 10)])


def test_diff_of_identical_ends_is_clean(cli: Cli, repo: Path, capsys) -> None:
    commit_files(repo, {"a.py": f"key = '{SECRET}'\n"})
    code, report, _ = scan(cli, capsys, "diff", "HEAD...HEAD")
    assert (code, report["findings"], report["stats"]["files_scanned"]) == (0, [], 0)


def test_diff_rename_with_edit_and_skips_are_counted(cli: Cli, repo: Path, capsys) -> None:
    commit_files(repo, {"old.py": body(l2=f"old = '{SECRET}'"), "gone.py": "g\n", "img.png": b"\x89PNG\x00"})
    base = head_id(repo)
    run_git(repo, "mv", "old.py", "new.py")
    run_git(repo, "rm", "-q", "gone.py")
    commit_files(repo, {"new.py": body(l2=f"old = '{SECRET}'", l11=f"k = '{OTHER_SECRET}'"), "img.png": b"\x89PNG\x00\x01"}, "move")
    code, report, _ = scan(cli, capsys, "diff", base)
    assert (code, where(report)) == (1, [("new.py", 11)])
    assert report["stats"]["skipped_by_reason"] == {"binary": 1, "deleted": 1}


def test_diff_each_commit_names_the_commit(cli: Cli, repo: Path, capsys) -> None:
    commit_files(repo, {"a.py": body()})
    base = head_id(repo)
    commit_files(repo, {"a.py": body(l4=f"key = '{SECRET}'")}, "add key")
    added = head_id(repo)
    commit_files(repo, {"a.py": body()}, "remove key")
    code, report, _ = scan(cli, capsys, "diff", f"{base}...HEAD")
    assert (code, report["findings"]) == (0, [])
    code, report, _ = scan(cli, capsys, "diff", f"{base}...HEAD", "--each-commit")
    assert code == 1
    assert [(f["path"], f["start"]["line"], f["details"]["commit"]) for f in report["findings"]] == [("a.py", 4, added)]


# --- files, hook, repo --rev ----------------------------------------------------------------


def test_files_scans_whole_files(cli: Cli, repo: Path, capsys) -> None:
    commit_files(repo, {"a.py": body(l2=f"old = '{SECRET}'"), "b.py": body()})
    code, report, _ = scan(cli, capsys, "files", "a.py", "b.py")
    assert (code, where(report), report["stats"]["files_scanned"]) == (1, [("a.py", 2)], 2)


def test_files_outside_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli: Cli, capsys, git_env) -> None:
    write_files(tmp_path, {"a.py": f"key = '{SECRET}'\n"})
    monkeypatch.chdir(tmp_path)
    code, report, _ = scan(cli, capsys, "files", "a.py")
    assert (code, where(report)) == (1, [("a.py", 1)])


def test_hook_staged_file_reports_changed_lines_other_files_whole(cli: Cli, repo: Path, capsys) -> None:
    commit_files(repo, {"staged.py": body(l2=f"old = '{SECRET}'"), "other.py": body(l3=f"x = '{OTHER_SECRET}'")})
    stage_files(repo, {"staged.py": body(l2=f"old = '{SECRET}'", l11="value_11 = 0")})
    code, report, _ = scan(cli, capsys, "hook", "staged.py")
    assert (code, report["findings"]) == (0, [])
    code, report, _ = scan(cli, capsys, "hook", "staged.py", "other.py")  # as under --all-files
    assert (code, where(report)) == (1, [("other.py", 3)])


def test_hook_with_no_files_is_clean(cli: Cli, repo: Path, capsys) -> None:
    commit_files(repo, {"a.py": "a\n"})
    code, report, _ = scan(cli, capsys, "hook")
    assert (code, report["findings"]) == (0, [])


def test_repo_rev_reads_the_commit(cli: Cli, repo: Path, capsys) -> None:
    commit_files(repo, {"a.py": f"key = '{SECRET}'\n"})
    write_files(repo, {"a.py": "clean = 1\n"})
    code, report, _ = scan(cli, capsys, "repo", "--rev", "HEAD")
    assert (code, where(report)) == (1, [("a.py", 1)])
    code, report, _ = scan(cli, capsys, "repo")
    assert (code, report["findings"]) == (0, [])


def test_default_skips_are_counted(cli: Cli, repo: Path, capsys) -> None:
    write_files(repo, {".smscanignore": "generated/\n"})
    commit_files(
        repo,
        {
            "vendor/lib.py": f"k = '{SECRET}'\n",
            "static/app.min.js": f"k='{SECRET}'\n",
            "generated/g.py": f"k = '{SECRET}'\n",
            ".smscan-baseline.json": '{"smscan_baseline": 1}\n',
            "web/package-lock.json": f'{{"integrity": "sha512-{SECRET}"}}\n',
            "ok.py": "ok = 1\n",
        },
    )
    code, report, _ = scan(cli, capsys, "repo", "-o", "report.json")
    report = json.loads((repo / "report.json").read_text())
    assert code == 0
    assert report["stats"]["skipped_by_reason"] == {"lockfile": 1, "minified": 1, "smscan-output": 1, "vendored": 1}
    code, report, _ = scan(cli, capsys, "repo")  # the report written last time is smscan's own
    assert report["stats"]["skipped_by_reason"]["smscan-output"] == 2
    Path(CONFIG_ARGS[1]).write_text(TEST_CONFIG + "skip_lock_files = false\n")
    code, report, _ = scan(cli, capsys, "repo")
    assert "lockfile" not in report["stats"]["skipped_by_reason"]
    assert any(f["path"] == "web/package-lock.json" for f in report["findings"])
    Path(CONFIG_ARGS[1]).write_text(TEST_CONFIG + "skip_vendored = false\n")
    code, report, _ = scan(cli, capsys, "repo")
    assert "vendored" not in report["stats"]["skipped_by_reason"]
    assert any(f["path"] == "vendor/lib.py" for f in report["findings"])


# --- suppressions, kinds, baseline ----------------------------------------------------------


def test_allow_comment_suppresses_and_is_counted(cli: Cli, repo: Path, capsys) -> None:
    write_files(repo, {"a.py": f"key = '{SECRET}'  # smscan: ignore\nb = 1\nc = 2\nd = 3\nother = '{OTHER_SECRET}'  # gitleaks:allow\n"})
    code, report, _ = scan(cli, capsys, "repo")
    assert (code, report["findings"], report["suppressed"]) == (0, [], {"inline": 2})


def test_kinds_filter_drops_other_kinds(cli: Cli) -> None:
    from smscan.config.settings import Settings
    from smscan.decide.decisions import decide
    from smscan.records import Finding, Position, ScanResult

    found = [
        Finding("a.py", kind, 0, 1, Position(1, 1), Position(1, 2), 9.0, 6.0, kind)
        for kind in ("surprise", "credential")
    ]
    result = ScanResult(findings=list(found))
    decide(result, [], kinds=Settings(kinds=("credential",)).kinds, baseline=None)
    assert [f.kind for f in result.findings] == ["credential"]


def test_baseline_workflow(cli: Cli, repo: Path, capsys) -> None:
    commit_files(repo, {"a.py": body(l2=f"old = '{SECRET}'"), "b.py": body(l5=f"x = '{OTHER_SECRET}'")})
    assert cli.main(["baseline", "-o", ".smscan-baseline.json", *CONFIG_ARGS]) == 0
    saved = (repo / ".smscan-baseline.json").read_text()
    assert SECRET not in saved and '"line' not in saved
    # Moving the accepted value does not break the baseline.
    write_files(repo, {"a.py": "\n\n\n" + body(l2=f"old = '{SECRET}'")})
    code, report, _ = scan(cli, capsys, "repo", "--baseline", ".smscan-baseline.json")
    assert code == 0, report
    assert report["suppressed"]["baseline"]["accepted"] == 2
    # A new value on the accepted line is new; the entries of replaced or removed values are stale.
    write_files(repo, {"a.py": body(l2=f"old = '{OTHER_SECRET}x9'")})
    write_files(repo, {"b.py": body()})
    code, report, _ = scan(cli, capsys, "repo", "--baseline", ".smscan-baseline.json")
    assert code == 1
    assert where(report) == [("a.py", 2)]
    assert [e["path"] for e in report["suppressed"]["baseline"]["stale"]] == ["a.py", "b.py"]
    # Rewriting keeps the salt.
    assert cli.main(["baseline", *CONFIG_ARGS]) == 0
    assert json.loads((repo / ".smscan-baseline.json").read_text())["salt"] == json.loads(saved)["salt"]


def test_baseline_from_config_in_diff_modes_lists_no_stale_entries(cli: Cli, repo: Path, capsys) -> None:
    commit_files(repo, {"a.py": body(l2=f"old = '{SECRET}'")})
    assert cli.main(["baseline", "-o", "ci/baseline.json", *CONFIG_ARGS]) == 0
    write_files(repo, {".smscan.toml": TEST_CONFIG + 'baseline = "ci/baseline.json"\n'})
    stage_files(repo, {"a.py": body(l2=f"old = '{SECRET}'", l8="value_8 = 0")})
    code, report, _ = scan(cli, capsys, "staged", config=False)
    assert (code, report["suppressed"]["baseline"]["stale"]) == (0, [])


def test_text_report_lists_stale_entries(cli: Cli, repo: Path, capsys) -> None:
    commit_files(repo, {"a.py": f"old = '{SECRET}'\n"})
    assert cli.main(["baseline", *CONFIG_ARGS]) == 0
    write_files(repo, {"a.py": "old = 1\n"})
    capsys.readouterr()
    assert cli.main(["repo", "--baseline", ".smscan-baseline.json", *CONFIG_ARGS]) == 0
    out = capsys.readouterr().out
    assert "no longer match" in out and "a.py  surprise" in out


# --- install-hook ---------------------------------------------------------------------------


def test_hook_script_in_the_repository_is_the_installed_one() -> None:
    assert (ROOT / "hooks" / "pre-commit").read_text() == HOOK_SCRIPT


def test_install_hook_refuses_a_foreign_hook_unless_forced(cli: Cli, repo: Path, capsys) -> None:
    commit_files(repo, {"a.py": "a\n"})
    assert cli.main(["install-hook"]) == 0
    hook = repo / ".git" / "hooks" / "pre-commit"
    assert hook.read_text() == HOOK_SCRIPT and hook.stat().st_mode & 0o111
    assert cli.main(["install-hook"]) == 0  # its own hook: reinstalled
    hook.write_text("#!/bin/sh\nmake lint\n")
    assert cli.main(["install-hook"]) == 2
    assert "pass --force" in capsys.readouterr().err
    assert hook.read_text() == "#!/bin/sh\nmake lint\n"
    assert cli.main(["install-hook", "--force"]) == 0
    assert hook.read_text() == HOOK_SCRIPT


def test_install_hook_honours_core_hooks_path(cli: Cli, repo: Path) -> None:
    run_git(repo, "config", "core.hooksPath", ".githooks")
    assert cli.main(["install-hook"]) == 0
    assert (repo / ".githooks" / "pre-commit").read_text() == HOOK_SCRIPT


# --- bad input ------------------------------------------------------------------------------


def _shallow(repo: Path) -> None:
    for i in range(3):
        commit_files(repo, {"a.py": "a\n" * (i + 1)}, f"c{i}")


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        (lambda r: commit_files(r, {"a.py": "a\n"}), ["diff", "nope"], "revision 'nope' is not a commit"),
        (lambda r: None, ["diff", "HEAD~1"], "no commits yet"),
        (lambda r: commit_files(r, {"a.py": "a\n"}), ["diff", "HEAD...HEAD", "HEAD"], "not both"),
        (lambda r: commit_files(r, {"a.py": "a\n"}), ["repo", "--rev", "v9"], "'v9' is not a commit"),
        (lambda r: None, ["files", "missing.py"], "no such file"),
        (lambda r: (r / "d").mkdir(), ["files", "d"], "is a folder"),
        (lambda r: write_files(r, {".smscan.toml": "kinds = ['secrets']\n"}), ["staged"], "kinds must be one of"),
        (lambda r: write_files(r, {".smscan.toml": "max_file_bytes = 'big'\n"}), ["staged"], "'max_file_bytes' must be a number"),
        (lambda r: write_files(r, {".smscan.toml": "exclude = 'x'\n"}), ["files", ".smscan.toml"], "'exclude' must be a list"),
        (lambda r: write_files(r, {".smscan.toml": "baseline = 'nope.json'\n"}), ["staged"], "baseline file not found"),
        (lambda r: None, ["staged", "--baseline", "nope.json"], "baseline file not found"),
        (lambda r: write_files(r, {"b.json": "[]"}), ["staged", "--baseline", "b.json"], "not an smscan baseline"),
        (lambda r: write_files(r, {".git/hooks/pre-commit": "#!/bin/sh\n"}), ["install-hook"], "pass --force"),
    ],
)
def test_bad_input_exits_2_with_one_message(cli: Cli, repo: Path, capsys, setup, args: list[str], message: str) -> None:
    setup(repo)
    code = cli.main(args)
    captured = capsys.readouterr()
    assert code == 2, captured.err
    assert message in captured.err
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err + captured.out


@pytest.mark.parametrize("args", [["staged"], ["diff", "HEAD"], ["hook", "a.py"], ["install-hook"], ["repo", ".", "--rev", "HEAD"]])
def test_git_modes_outside_a_repository_exit_2(cli: Cli, tmp_path: Path, monkeypatch, capsys, git_env, args) -> None:
    (tmp_path / "a.py").write_text("a\n")
    monkeypatch.chdir(tmp_path)
    code = cli.main(args)
    err = capsys.readouterr().err
    assert code == 2 and ("not inside a git work tree" in err or "not in a git repository" in err), err


def test_shallow_clone_without_base_exit_2_says_what_to_fetch(cli: Cli, git_repo: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    _shallow(git_repo)
    base = head_id(git_repo, "HEAD~2")
    clone = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", "--depth=1", "--no-local", git_repo.as_uri(), str(clone))
    monkeypatch.chdir(clone)
    code = cli.main(["diff", f"{base}...HEAD"])
    err = capsys.readouterr().err
    assert code == 2 and "shallow clone" in err and "git fetch" in err
