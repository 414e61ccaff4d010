"""bench/foreign: examples read from pinned commits of real git mirrors, scored with the shared scorer (no network)."""

from __future__ import annotations

import io
import json
import subprocess
import tarfile
from collections import Counter
from pathlib import Path

import pytest

from bench.foreign.__main__ import main
from bench.foreign.build import build
from bench.foreign.evaluate import load_examples, measure
from bench.foreign.examples import Example, Span, guess_path_hint, is_degenerate, read_jsonl, write_split
from bench.foreign.gitleaks import gitleaks_examples
from bench.foreign.detect_secrets_tests import detect_secrets_examples
from bench.foreign.mirror import Mirror, MirrorError, Pin
from bench.foreign.noise import count_alarms, sample, text_members
from bench.foreign.rule_yaml import rule_examples
from bench.foreign.sources import Source
from bench.common.splits import find_shared, load_scorer
from tests.conftest import commit_files, head_id, init_repo

RULES = r"""rules:
- name: Acme Token
  id: acme.1
  pattern: '\b(acme_[a-zA-Z0-9]{20})\b'
  categories: [api, secret]
  examples:
  - 'ACME_TOKEN=acme_Zq8rT2mX9vL4kP7wN3bY'  # smscan: ignore
  - 'acme_aaaaaaaaaaaaaaaaaaaa'
  negative_examples:
  - 'acme_short'
  - '======'
- name: Acme Client ID
  id: acme.2
  pattern: 'client_id=([0-9]{6})'
  categories: [api, identifier]
  examples:
  - 'client_id=123456'
- name: Acme URI
  id: acme.3
  pattern: 'acme://([^:]+):([^@]+)@'
  categories: [secret]
  examples:
  - 'acme://deploy:Hx7pQ2vR9t@db.example'  # smscan: ignore
"""

GO_RULE = """package rules

func AcmeToken() *config.Rule {
	r := config.Rule{
		RuleID: "acme-token",
		Regex:  utils.GenerateUniqueTokenRegex(`acme_[a-zA-Z0-9]{20}`, false),
	}
	tps := []string{
		`token = "acme_Zq8rT2mX9vL4kP7wN3bZ"`,  // smscan: ignore
		"acme_" + secrets.NewSecret(`[a-z]{20}`),
	}
	fps := []string{
		`acme_xxxxxxxxxxxxxxxxxxxx`,
		"token = \\"acme_example\\"",
	}
	return utils.Validate(r, tps, fps)
}

func AcmeKey() *config.Rule {
	r := config.Rule{
		RuleID: "acme-key",
		Regex:  regexp.MustCompile(`key=(` + utils.Hex("8") + `)`),
	}
	tps := []string{"key=9f8e7d6c"}  // smscan: ignore
	return utils.Validate(r, tps, nil)
}
"""

DS_TEST = """import pytest
SECRET = 'Zq8rT2mX9vL4kP7wN3bQ'  # smscan: ignore
CASES = [
    ('password = "{}"'.format(SECRET), SECRET),
    ('password = "{}";'.format(SECRET), None),
    ("password = ''", None),
]
@pytest.mark.parametrize('payload, should_flag', [
    ('acme_token: Hq2Lx9Vb7Tz4Rk8Wm3Pn', True),  # smscan: ignore
    ('https://user:Pw9xTq2Lm@host.example', True),  # smscan: ignore
    ('acme://deploy:Hx7pQ2vR9t@db.example', True),  # smscan: ignore
    ('foo', False),
])
def test_x(payload, should_flag):
    pass
"""


@pytest.fixture
def mirrors(tmp_path: Path, git_env: Path) -> tuple[Path, Pin]:
    """A mirror folder holding one bare repository (acme/rules) with a rule file of each format, and its pin."""
    work = init_repo(tmp_path / "work")
    commit_files(work, {"rules/acme.yml": RULES, "go/acme.go": GO_RULE, "py/acme_test.py": DS_TEST})
    commit = head_id(work)
    root = tmp_path / "mirrors"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(root / "acme+rules" / "repo")], check=True)
    commit_files(work, {"rules/acme.yml": "rules: []\n"}, "a later commit the pin must not see")
    subprocess.run(["git", f"--git-dir={root / 'acme+rules' / 'repo'}", "fetch", "-q", str(work), "HEAD"], check=True)
    return root, Pin("acme/rules", commit)


def sources_for(pin: Pin) -> tuple[Source, ...]:
    # the fixture keeps each format in a folder of its own
    return (
        Source("yaml", pin, "", lambda m, c: rule_examples(m, source="yaml", folder="rules", trust_categories=True, counts=c)),
        Source("gitleaks", pin, "", lambda m, c: gitleaks_examples(m, counts=c, folder="go")),
        Source("detect-secrets", pin, "", lambda m, c: detect_secrets_examples(m, counts=c, folder="py")),
    )


def spans_of(ex: Example, which: str = "labels") -> list[str]:
    return [ex.text[s.start:s.end] for s in getattr(ex, which)]


def test_build_reads_every_format_at_the_pinned_commit(mirrors: tuple[Path, Pin], tmp_path: Path) -> None:
    root, pin = mirrors
    manifest = build(root, tmp_path / "out", ["yaml", "gitleaks", "detect-secrets"], sources_for(pin))
    got = {(ex.source, ex.id): ex for ex in read_jsonl(tmp_path / "out" / "examples.jsonl")}

    assert spans_of(got["yaml", "acme.1#ex0"]) == ["acme_Zq8rT2mX9vL4kP7wN3bY"]  # smscan: ignore
    assert ("yaml", "acme.1#ex1") not in got  # acme_aaaa...: a placeholder, dropped
    assert spans_of(got["yaml", "acme.1#neg0"], "negatives") == ["acme_short"]
    assert ("yaml", "acme.1#neg1") not in got  # '======' is a separator
    assert spans_of(got["yaml", "acme.2#ex0"], "identifiers") == ["123456"] and not got["yaml", "acme.2#ex0"].labels
    uri = got["yaml", "acme.3#ex0"]
    assert spans_of(uri) == ["Hx7pQ2vR9t"] and spans_of(uri, "identifiers") == ["deploy"]  # smscan: ignore

    assert spans_of(got["gitleaks", "AcmeToken#tp0"]) == ["acme_Zq8rT2mX9vL4kP7wN3bZ"]  # smscan: ignore
    assert spans_of(got["gitleaks", "AcmeKey#tp0"]) == ["9f8e7d6c"]  # smscan: ignore
    assert spans_of(got["gitleaks", "AcmeToken#fp1"], "negatives") == ['token = "acme_example"']
    reading = manifest["sources"]["gitleaks"]["reading"]  # type: ignore[index]
    assert reading["tps_built_at_run_time"] == 1 and reading["false_positives"] == 2

    ds = {ex.text: ex for ex in got.values() if ex.source == "detect-secrets"}
    assert spans_of(ds['password = "Zq8rT2mX9vL4kP7wN3bQ"']) == ["Zq8rT2mX9vL4kP7wN3bQ"]  # smscan: ignore
    assert 'password = "Zq8rT2mX9vL4kP7wN3bQ";' not in ds  # a "not here" case holding a credential  # smscan: ignore
    assert spans_of(ds["acme_token: Hq2Lx9Vb7Tz4Rk8Wm3Pn"]) == ["Hq2Lx9Vb7Tz4Rk8Wm3Pn"]  # smscan: ignore
    assert spans_of(ds["https://user:Pw9xTq2Lm@host.example"]) == ["Pw9xTq2Lm"]  # smscan: ignore
    assert spans_of(ds["foo"], "negatives") == ["foo"]
    assert "acme://deploy:Hx7pQ2vR9t@db.example" not in ds  # already given by an earlier source  # smscan: ignore
    assert manifest["sources"]["detect-secrets"]["reading"]["duplicate_of_earlier_source"] == 1  # type: ignore[index]


def test_mirror_refuses_a_missing_repository_or_commit(mirrors: tuple[Path, Pin], tmp_path: Path) -> None:
    root, pin = mirrors
    with pytest.raises(MirrorError, match="no mirror of acme/other"):
        Mirror(root, Pin("acme/other", pin.commit))
    with pytest.raises(MirrorError, match="lacks the pinned commit"):
        Mirror(root, Pin("acme/rules", "0" * 40))


def example(source: str, name: str, text: str, value: str | None) -> Example:
    if value is None:
        return Example(source, name, text, guess_path_hint(text), negatives=(Span(0, len(text), "negative-example"),))
    k = text.index(value)
    return Example(source, name, text, guess_path_hint(text), labels=(Span(k, k + len(value), "rule-example"),))


def test_split_scores_per_source_with_the_shared_scorer(tmp_path: Path) -> None:
    shared = find_shared()
    assert shared is not None, "shared/bench/secrets_eval must sit beside the checkout"
    score = load_scorer(shared)
    examples = [
        example("a", "1", "TOKEN=Zq8rT2mX9vL4kP7wN3bY\n", "Zq8rT2mX9vL4kP7wN3bY"),  # smscan: ignore
        example("a", "2", "token = changeme_example\n", None),
        example("b", "1", "secret: Hq2Lx9Vb7Tz4Rk8Wm3Pn\n", "Hq2Lx9Vb7Tz4Rk8Wm3Pn"),  # smscan: ignore
        Example("b", "2", "client_id=123456\n", ".env", identifiers=(Span(10, 16, "identifier"),)),
    ]
    rows = write_split(examples, tmp_path / "split")
    assert [r["path"] for r in rows] == ["a/00000/.env", "a/00001/notes.txt", "b/00002/config.yaml"]
    split = score.Split(tmp_path / "split")
    # found: a's credential (half of it) and b's look-alike-free file flags nothing; a's look-alike is flagged
    preds = {"a/00000/.env": [[6, 16]], "a/00001/notes.txt": [[8, 12]]}
    m = measure(score, split, preds, None)
    assert m["a"]["secret_recall"] == 1.0 and m["a"]["hard_negative_fp_rate"] == 1.0
    assert m["b"]["secret_recall"] == 0.0 and m["b"]["hard_negatives"] == 0
    assert m["all"]["secrets"] == 2 and m["all"]["char"]["tp"] == 10 and m["all"]["char"]["fp"] == 4


def test_leave_one_out_loading_and_a_stable_sample(tmp_path: Path) -> None:
    from bench.foreign.examples import write_jsonl

    examples = [example(s, str(i), f"key_{i} = Zq8rT2mX9vL4kP7wN{i:03d}\n", f"Zq8rT2mX9vL4kP7wN{i:03d}")  # smscan: ignore
                for s in ("a", "b", "c") for i in range(20)]
    write_jsonl(tmp_path / "examples.jsonl", examples)
    assert {ex.source for ex in load_examples(tmp_path, exclude="b")} == {"a", "c"}
    assert {ex.source for ex in load_examples(tmp_path, only=["b"])} == {"b"}
    first = load_examples(tmp_path, limit=5)
    assert Counter(ex.source for ex in first) == {"a": 5, "b": 5, "c": 5}
    assert first == load_examples(tmp_path, limit=5)
    assert [ex.id for ex in first if ex.source == "a"] != [str(i) for i in range(5)]  # spread, not the first five


def test_eval_command_scores_existing_predictions_and_refuses_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bench.foreign.examples import write_jsonl

    data = tmp_path / "data"
    data.mkdir()
    token = "Zq8rT2mX9vL4kP7wN3bY"  # smscan: ignore
    write_jsonl(data / "examples.jsonl", [example("a", "1", f"TOKEN={token}\n", token)])
    work = tmp_path / "work"
    write_split(load_examples(data), work / "data")
    (work / "data" / "preds").mkdir()
    (work / "data" / "preds" / "smscan.json").write_text(json.dumps({"files": {"a/00000/.env": [[6, 26]]}}))
    out_json = tmp_path / "rules.json"
    assert main(["eval", "--data", str(data), "--tool", "smscan", "--work", str(work), "--score-only", "--json", str(out_json)]) == 0
    assert "| a | 1 | 0 | 1.000 | 1.000 (1) | - | 0.000 | 1.000 | 1.000 | 1.000 |" in capsys.readouterr().out
    assert main(["table", str(out_json), str(out_json), "--names", "rules,learned"]) == 0
    assert "| a | 1, 0 | 1.00 (1.00) / 0.00 / 1.00 | 1.00 (1.00) / 0.00 / 1.00 |" in capsys.readouterr().out
    for argv in (["eval", "--data", str(data), "--tool", "grep", "--work", str(work)],
                 ["eval", "--data", str(tmp_path / "none"), "--tool", "smscan", "--work", str(work)],
                 ["eval", "--data", str(data), "--tool", "credsweeper", "--work", str(work), "--score-only"],
                 ["build", "--mirrors", str(tmp_path), "--out", str(tmp_path / "o"), "--sources", "nope"],
                 ["build", "--mirrors", str(tmp_path), "--out", str(tmp_path / "o"), "--sources", "gitleaks"],
                 ["table", str(tmp_path / "missing.json")],
                 ["table", str(out_json), "--names", "a,b"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("error: ") and "Traceback" not in err and err.count("\n") == 1, err


def test_noise_counts_distinct_alarms_per_thousand_lines(tmp_path: Path) -> None:
    shared = find_shared()
    assert shared is not None
    score = load_scorer(shared)
    archive = tmp_path / "pkg-1.0.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        for name, data in (("pkg/a.py", b"x = 1\n" * 500), ("README.rst", b"Title\n" * 500), ("logo.png", b"\x89PNG\0\0")):
            info = tarfile.TarInfo(f"pkg-1.0/{name}")
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    files = list(text_members(archive))
    assert [f[0] for f in files] == ["README.rst", "pkg/a.py"]  # the binary file is skipped
    assert len(sample(files, 10)) == 1 and sample(files, 10) == sample(files, 10)
    from bench.foreign.noise import write_noise_split

    write_noise_split({"pkg-1.0": files}, tmp_path / "split")
    split = score.Split(tmp_path / "split")
    out = count_alarms(score, split, {"pkg-1.0/pkg/a.py": [[0, 1], [0, 3], [12, 13]]})
    assert out["pkg-1.0"]["lines"] == 1000 and out["pkg-1.0"]["alarms"] == 2
    assert out["all"]["per_1000_lines"] == 2.0 and out["all"]["by_type"] == {".py": 2}


def test_guessed_file_names_and_placeholders() -> None:
    assert guess_path_hint('{"token": "x"}') == "config.json"
    assert guess_path_hint("export API_KEY=abc") == "run.sh"
    assert guess_path_hint("API_KEY=abc") == ".env"
    assert guess_path_hint("-----BEGIN RSA PRIVATE KEY-----") == "key.pem"
    assert guess_path_hint("token: abc") == "config.yaml"
    assert guess_path_hint("just words") == "notes.txt"
    assert is_degenerate("AKIAZZZZZZZZZZZZZZZZ") and is_degenerate("xxxx")
    assert not is_degenerate("Zq8rT2mX9vL4kP7wN3bY")  # smscan: ignore


def test_the_tuned_packages_are_apart_from_the_reported_ones(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from bench.foreign.__main__ import main
    from bench.foreign.noise import PACKAGES, read_packages

    tuned = read_packages(PACKAGES.with_name("tuned_packages.txt"))
    assert [name for _, name, _ in tuned] == ["flask", "httpx", "rich", "django", "paramiko", "boto3"]
    assert not {name for _, name, _ in tuned} & {name for _, name, _ in read_packages()}
    # A package list that cannot be read: one message, exit 2.
    assert main(["noise", "--out", str(tmp_path), "--work", str(tmp_path / "w"),
                 "--package-list", str(tmp_path / "missing.txt")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot read the package list") and err.count("\n") == 1, err


def test_every_noise_round_is_apart_from_the_tuned_packages_and_from_the_others() -> None:
    from bench.foreign.noise import PACKAGES, read_packages

    lists = [PACKAGES, *sorted(PACKAGES.parent.glob("noise_packages_round*.txt"))]
    assert len(lists) >= 10
    # a package is its ecosystem's: npm's `fabric` (a canvas library) is not PyPI's (SSH)
    seen = {(eco, name.lower()) for eco, name, _ in read_packages(PACKAGES.with_name("tuned_packages.txt"))}
    for path in lists:
        names = {(eco, name.lower()) for eco, name, _ in read_packages(path)}
        assert not names & seen, (path.name, names & seen)  # a round is measured blind, once
        seen |= names


def test_readings_count_flagged_look_alikes_by_how_a_reviewer_reads_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "work"
    (work / "data" / "preds").mkdir(parents=True)
    labels = [
        {"path": "g/00000/notes.txt", "source": "g", "id": "Key#fp0", "spans": [], "negatives": [{"start": 0, "end": 10}]},
        {"path": "g/00001/notes.txt", "source": "g", "id": "Key#fp1", "spans": [], "negatives": [{"start": 0, "end": 10}]},
        {"path": "g/00002/notes.txt", "source": "g", "id": "Key#fp2", "spans": [], "negatives": [{"start": 0, "end": 10}]},
        {"path": "d/00000/notes.txt", "source": "d", "id": "t#1", "spans": [], "negatives": [{"start": 5, "end": 9}]},
    ]
    (work / "data" / "labels.jsonl").write_text("".join(json.dumps(row) + "\n" for row in labels))
    flagged = {"g/00000/notes.txt": [[2, 4]], "g/00001/notes.txt": [[0, 10]], "d/00000/notes.txt": [[9, 12]]}
    (work / "data" / "preds" / "smscan.json").write_text(json.dumps({"files": flagged}))
    readings = tmp_path / "readings.jsonl"
    readings.write_text(
        json.dumps({"source": "g", "id": "Key#fp0", "index": 0, "verdict": "credential", "why": "a drawn key"}) + "\n"
    )
    assert main(["readings", "--work", str(work), "--readings", str(readings)]) == 0
    out = capsys.readouterr().out
    # Two of four flagged (d's span ends where its look-alike ends: no overlap); one read, one not.
    assert "| g | 2 | 1 | 0 | 1 |" in out and "| all | 2 | 1 | 0 | 1 |" in out
    assert "at most: 0 of the 3 look-alikes" in out and "2 of 4 (0.500)" in out
    assert "Unread (source, id, index): g Key#fp1 0" in out
    readings.write_text('{"source": "g", "id": "Key#fp0", "index": 0, "verdict": "maybe", "why": ""}\n')
    for argv in (["readings", "--work", str(work), "--readings", str(readings)],
                 ["readings", "--work", str(tmp_path / "none")]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1, err
    # The committed readings load, and name items, never their values.
    from bench.foreign.readings import READINGS, load_readings

    committed = load_readings(READINGS)
    assert len(committed) >= 50 and {r.verdict for r in committed.values()} == {"credential", "not-credential"}
    assert all(len(r.why) < 120 for r in committed.values())


def mirror_of(tmp_path: Path, repo: str, files: dict[str, str]) -> Mirror:
    """A mirror, pinned at its only commit, of a repository holding ``files``."""
    work = init_repo(tmp_path / "work")
    commit_files(work, files)
    bare = tmp_path / "mirrors" / repo.replace("/", "+") / "repo"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True)
    return Mirror(tmp_path / "mirrors", Pin(repo, head_id(work)))


def _snapshot(text: str, file: str, *found: tuple[str, str]) -> str:
    """secretlint's output.json for ``text``: each finding is (messageId, the text its range covers)."""
    messages = [{"messageId": mid, "range": [text.index(part), text.index(part) + len(part)]} for mid, part in found]
    return json.dumps({"filePath": f"[SNAPSHOT]/case/{file}", "messages": messages, "sourceContent": text,
                       "sourceContentType": "text"})


def test_secretlint_snapshots_give_values_identifiers_and_negative_files(tmp_path: Path, git_env: Path) -> None:
    from bench.foreign.secretlint import PRESET_FOLDER, RULES_FOLDER, secretlint_examples

    token = "acme_Zq8rT2mX9vL4kP7wN3bY"  # smscan: ignore
    env = f"AWS_SECRET_ACCESS_KEY = {token}\nAWS_ACCESS_KEY_ID = AKIAZQ8RT2MX9VL4KP7W\n"
    url = "const DB = 'mysql://dbuser:Hx7pQ2vR9t@db.example:3306/app';\n"  # smscan: ignore
    oauth = '{"repository": "https://Zq8rT2mX9vL4kP7wN3bYq2Lx9Vb7:x-oauth-basic@github.com/a/b.git"}\n'  # smscan: ignore
    files = {
        # the range stops short of the value, as secretlint's AWS rule does
        f"{PRESET_FOLDER}/secretlint-rule-aws/ng.secret/input": env,
        f"{PRESET_FOLDER}/secretlint-rule-aws/ng.secret/output.json": _snapshot(
            env, "input", ("AWSSecretAccessKey", env[:env.index(token) + 8]), ("AWSAccessKeyID", "AKIAZQ8RT2MX9VL4KP7W")),
        f"{PRESET_FOLDER}/secretlint-rule-db/ng.mysql/input.txt": url,
        f"{PRESET_FOLDER}/secretlint-rule-db/ng.mysql/output.json": _snapshot(
            url, "input.txt", ("MySQLConnection", "mysql://dbuser:Hx7pQ2vR9t@db.example:3306/app';")),  # smscan: ignore
        f"{PRESET_FOLDER}/secretlint-rule-npm/ng.package/package.json": oauth,
        f"{PRESET_FOLDER}/secretlint-rule-npm/ng.package/output.json": _snapshot(
            oauth, "package.json", ("PackageJSON_xOauthToken", "https://Zq8rT2mX9vL4kP7w"),  # smscan: ignore
            ("BasicAuth", "https://Zq8rT2mX9vL4kP7wN3bYq2Lx9Vb7:x-oauth-basic@github.com")),  # smscan: ignore
        f"{PRESET_FOLDER}/secretlint-rule-db/ok.valid/input.txt": "DB_URL=$DATABASE_URL\n",
        f"{PRESET_FOLDER}/secretlint-rule-db/ok.valid/output.json": _snapshot("DB_URL=$DATABASE_URL\n", "input.txt"),
        f"{PRESET_FOLDER}/secretlint-rule-db/ng.missed/input.txt": "x\n",
        f"{PRESET_FOLDER}/secretlint-rule-db/ng.missed/output.json": _snapshot("x\n", "input.txt"),
        f"{PRESET_FOLDER}/secretlint-rule-aws/ok.allowed/.secretlintrc.json": "{}",
        f"{PRESET_FOLDER}/secretlint-rule-aws/ok.allowed/output.json": _snapshot("KEY=abc\n", "input"),
        f"{RULES_FOLDER}/secretlint-rule-zeta/test/snapshots/ng.key/input": f"zeta := \"{token}\"\n",
        f"{RULES_FOLDER}/secretlint-rule-zeta/test/snapshots/ng.key/output.json": _snapshot(
            f"zeta := \"{token}\"\n", "input", ("ZetaKey", f' := "{token}"')),
        # a rule the preset covers is read from the preset's snapshots only; a rule about files is left out
        f"{RULES_FOLDER}/secretlint-rule-db/test/snapshots/ok.valid/output.json": _snapshot("y = 1\n", "input.txt"),
        f"{RULES_FOLDER}/secretlint-rule-no-dotenv/test/snapshots/ng.match/output.json": _snapshot("A=1\n", ".env"),
    }
    counts: Counter[str] = Counter()
    got = {ex.id: ex for ex in secretlint_examples(mirror_of(tmp_path, "secretlint/secretlint", files), counts=counts)}

    assert sorted(got) == ["secretlint-rule-aws/ng.secret", "secretlint-rule-db/ng.mysql", "secretlint-rule-db/ok.valid",
                           "secretlint-rule-npm/ng.package", "secretlint-rule-zeta/ng.key"]
    aws = got["secretlint-rule-aws/ng.secret"]
    assert spans_of(aws) == [token] and spans_of(aws, "identifiers") == ["AKIAZQ8RT2MX9VL4KP7W"]
    assert aws.path_hint == guess_path_hint(env)  # secretlint's generic file name says nothing
    assert spans_of(got["secretlint-rule-db/ng.mysql"]) == ["Hx7pQ2vR9t"]  # smscan: ignore
    assert spans_of(got["secretlint-rule-db/ng.mysql"], "identifiers") == ["dbuser"]
    package = got["secretlint-rule-npm/ng.package"]
    assert spans_of(package) == ["Zq8rT2mX9vL4kP7wN3bYq2Lx9Vb7"] and package.path_hint == "package.json"  # smscan: ignore
    assert spans_of(got["secretlint-rule-db/ok.valid"], "negatives") == ["DB_URL=$DATABASE_URL"]
    assert spans_of(got["secretlint-rule-zeta/ng.key"]) == [token]
    assert counts["ng_case_without_findings"] == 1 and counts["case_with_options"] == 1
    assert counts["rule_not_about_values"] == 1


def test_ripsecrets_lines_give_the_value_of_each_shape_and_quiet_lines_are_left_out(tmp_path: Path, git_env: Path) -> None:
    from bench.foreign.ripsecrets import ripsecrets_examples

    token = "Zq8rT2mX9vL4kP7wN3bYq2Lx"  # smscan: ignore
    files = {
        "test/one_per_line/random": (f'APP_KEY = "{token}"\n<password>{token}x</password>\n'  # smscan: ignore
                                     f"mysql://deploy:{token}y@db.example/x\nacme_{token}\n//registry.example/:_authToken=xxxxxxxxxx\n"),
        "test/one_per_file/pem": "-----BEGIN PRIVATE KEY-----\nMIIBVQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n",
        "test/one_per_file/aws_json": '{"aws_access_key": "AKIAZQ8RT2MX9VL4KP7W"}\n',
        "test/none": f"project_key = PROJECT_NAME_ALIAS\nsk_{token} // pragma: allowlist secret\nuser:{token}z\n",  # smscan: ignore
        ".secretsignore": f"docs\n\n[secrets]\n{token}z\n",
    }
    counts: Counter[str] = Counter()
    got = {ex.id: ex for ex in ripsecrets_examples(mirror_of(tmp_path, "sirwart/ripsecrets", files), counts=counts)}

    assert [spans_of(got[f"random#{k}"]) for k in range(4)] == [[token], [f"{token}x"], [f"{token}y"], [f"acme_{token}"]]
    assert spans_of(got["random#2"], "identifiers") == ["deploy"]
    assert "random#4" not in got and counts["degenerate_value"] == 1  # xxxx... is no value
    assert spans_of(got["pem"])[0].startswith("-----BEGIN PRIVATE KEY-----") and "aws_json" not in got
    assert spans_of(got["none#0"], "negatives") == ["project_key = PROJECT_NAME_ALIAS"]
    assert sorted(k for k in got if k.startswith("none")) == ["none#0"] and counts["negative_kept_quiet_otherwise"] == 2


def test_a_downloaded_sdist_is_found_under_any_spelling_of_its_name(tmp_path: Path) -> None:
    from bench.foreign.noise import fetch_sdist

    (tmp_path / "keyrings_alt-5.0.2.tar.gz").write_bytes(b"")
    (tmp_path / "pysmb-1.2.10.zip").write_bytes(b"")
    assert fetch_sdist("keyrings.alt", "5.0.2", tmp_path).name == "keyrings_alt-5.0.2.tar.gz"
    assert fetch_sdist("pysmb", "1.2.10", tmp_path).name == "pysmb-1.2.10.zip"


def test_an_npm_tarball_is_found_by_its_scoped_name_and_read_below_its_package_folder(tmp_path: Path) -> None:
    import io
    import tarfile

    from bench.foreign.noise import FetchError, fetch_package, text_members

    archive = tmp_path / "octokit-auth-app-8.3.1.tgz"
    with tarfile.open(archive, "w:gz") as tf:
        for name, data in (("package/README.md", b"# auth-app\n"), ("package/dist/index.js", b"export {};\n"),
                           ("package/logo.png", b"\x89PNG\0\0")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    assert fetch_package("npm", "@octokit/auth-app", "8.3.1", tmp_path) == archive  # no second download
    assert list(text_members(archive)) == [("README.md", "# auth-app\n"), ("dist/index.js", "export {};\n")]
    with pytest.raises(FetchError, match="unknown ecosystem"):
        fetch_package("cargo", "serde", "1.0.0", tmp_path)


def _tarball(members: dict[str, bytes], mode: str = "w:gz") -> bytes:
    import io
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as tf:  # type: ignore[call-overload]
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_a_debian_source_package_is_checked_and_packed_with_its_debian_folder(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import hashlib
    import lzma

    from bench.foreign import debian
    from bench.foreign.noise import FetchError, fetch_package, package_stem, text_members

    orig = _tarball({"vsftpd-3.0.3/vsftpd.conf": b"anonymous_enable=NO\n", "vsftpd-3.0.3/debian/old": b"upstream's\n"})
    packaging = _tarball({"debian/control": b"Source: vsftpd\n", "debian/old": b"Debian's\n"}, "w:xz")
    pool = {"vsftpd_3.0.3.orig.tar.gz": orig, "vsftpd_3.0.3-13.debian.tar.xz": packaging}
    checksums = "".join(f" {hashlib.sha256(b).hexdigest()} {len(b)} {n}\n" for n, b in pool.items())
    index = ("Package: vsftpd\nVersion: 3.0.3-13\nDirectory: pool/main/v/vsftpd\nChecksums-Sha256:\n"
             f" {'0' * 64} 1 vsftpd_3.0.3-13.dsc\n{checksums}\n"
             "Package: vsftpd\nVersion: 3.0.3-12\nDirectory: pool/main/v/vsftpd\nChecksums-Sha256:\n\n")
    fetched: list[str] = []

    def download(url: str) -> bytes:
        fetched.append(url)
        if url.endswith("Sources.xz"):
            return lzma.compress(index.encode())
        return pool[url.rsplit("/", 1)[1]]

    monkeypatch.setattr(debian, "_download", download)
    archive = fetch_package("deb", "vsftpd", "3.0.3-13", tmp_path)
    assert archive.name == "vsftpd-3.0.3-13.tar.gz" and package_stem("openssh", "1:9.2p1-2") == "openssh-9.2p1-2"
    assert sorted(text_members(archive)) == [("debian/control", "Source: vsftpd\n"), ("debian/old", "Debian's\n"),
                                            ("vsftpd.conf", "anonymous_enable=NO\n")]
    assert not any(u.endswith(".dsc") for u in fetched)  # only the tarballs are downloaded
    assert fetch_package("deb", "vsftpd", "3.0.3-13", tmp_path) == archive and len(fetched) == 3  # packed once
    with pytest.raises(FetchError, match="not in Debian"):
        fetch_package("deb", "vsftpd", "3.0.4-1", tmp_path)
    pool["vsftpd_3.0.3.orig.tar.gz"] = orig + b"tampered"
    archive.unlink()
    with pytest.raises(FetchError, match="SHA-256"):
        fetch_package("deb", "vsftpd", "3.0.3-13", tmp_path)
    assert not list(tmp_path.glob("vsftpd*"))  # nothing half-written is left to be read as the package


def test_whispers_fixtures_give_hardcoded_values_and_compliant_lines(tmp_path: Path, git_env: Path) -> None:
    from bench.foreign.whispers import FOLDER, whispers_examples

    files = {
        f"{FOLDER}/passwords.yml": ("# Compliant\nusername: hardcoded\nMasterUserPassword: !Ref 'MasterUserPassword'\n\n"
                                    "# Noncompliant\npwd: hardcoded1\ninlist:\n  - DB_PASSWORD=hardcoded4\n"),
        f"{FOLDER}/.npmrc": "//registry.npmjs.org/:_authToken=$NPM_TOKEN\n//localhost:4873/:_authToken=U2t5c2Nhbm5lcgHardcoded\n",
        f"{FOLDER}/uri.yml": ('compliant:\n  - "https://localhost:8000/admin"\nnoncompliant:\n'
                              '  - "jdbc:mysql://localhost/authority?user=admin&userpass=hardcoded"\n'
                              '  - "https://admin:hardcoded@localhost:8000/admin"\n'),
        f"{FOLDER}/aws.yml": "# Noncompliant\naws_id: AKIAHI38FAKE1IWUQEEN\naws_key: PA3XsxZ8d8cPQLmnZzFAKEdzC6ND2a8vhbyXU/Dw\n",
        f"{FOLDER}/.dockercfg": ('{"auths": {\n "https://index.docker.io/v1/compliant4": {\n  "auth": "zq212MzhardcodedNotAscii"\n },\n'
                                 ' "https://index.docker.io/v1/noncompliant": {\n  "auth": "QVdTOmhhcmRjb2RlZAo="\n }\n}}\n'),
        f"{FOLDER}/placeholders.yml": "compliant:\n  password: password\n  TRAVEL_API_KEY: TRAVEL_API_KEY\n",
    }
    counts: Counter[str] = Counter()
    got = {ex.id: ex for ex in whispers_examples(mirror_of(tmp_path, "Skyscanner/whispers", files), counts=counts)}

    assert spans_of(got["passwords.yml"]) == ["hardcoded1", "hardcoded4"]
    # `username: hardcoded` holds the word in a compliant part: a look-alike; `!Ref` names a secret.
    assert spans_of(got["passwords.yml"], "negatives") == ["username: hardcoded", "MasterUserPassword: !Ref 'MasterUserPassword'"]
    assert spans_of(got[".npmrc"]) == ["U2t5c2Nhbm5lcgHardcoded"]
    assert spans_of(got[".npmrc"], "negatives") == ["//registry.npmjs.org/:_authToken=$NPM_TOKEN"]
    assert spans_of(got["uri.yml"]) == ["hardcoded", "hardcoded"] and spans_of(got["uri.yml"], "identifiers") == ["admin"]
    assert spans_of(got["aws.yml"]) == ["PA3XsxZ8d8cPQLmnZzFAKEdzC6ND2a8vhbyXU/Dw"]
    assert spans_of(got["aws.yml"], "identifiers") == ["AKIAHI38FAKE1IWUQEEN"]
    # base64 of `AWS:hardcoded`; the compliant entry's value holds the word but is not the part's finding
    assert spans_of(got[".dockercfg"]) == ["QVdTOmhhcmRjb2RlZAo="]
    assert spans_of(got[".dockercfg"], "negatives") == ['"auth": "zq212MzhardcodedNotAscii"']
    assert spans_of(got["placeholders.yml"]) == [] and len(spans_of(got["placeholders.yml"], "negatives")) == 2
    assert counts["fixture_missing"] > 0


TRIVY_TESTS = '''package secret_test

func TestSecretScanner(t *testing.T) {
	wantFindingGitHub := types.SecretFinding{
		RuleID:    "github-pat",
		StartLine: 2,
		EndLine:   2,
		Match:     "GITHUB_PAT=****************************************",
		Code: types.Code{
			Lines: []types.Line{
				{
					Number:      1,
					Content:     "AWS_ACCESS_KEY_ID=********************",
					Highlighted: "AWS_ACCESS_KEY_ID=********************",
				},
				{
					Number:      2,
					Content:     "GITHUB_PAT=" + strings.Repeat("*", 40),
					Highlighted: "GITHUB_PAT=" + strings.Repeat("*", 40),
					IsCause:     true,
				},
			},
		},
	}
	keyBody := strings.Repeat("*", 12)
	wantFindingKey := types.SecretFinding{
		RuleID:    "private-key",
		StartLine: 1,
		EndLine:   3,
		Match:     keyBody,
		Code: types.Code{
			Lines: []types.Line{
				{
					Number:      2,
					Content:     keyBody,
					IsCause:     true,
					Highlighted: keyBody,
				},
				{
					Number:      3,
					Content:     "******",
					Highlighted: "******",
					IsCause:     true,
				},
			},
		},
	}
	wantFindingOpenAIProjectAPIKey := openAIFinding("openai-project-api-key", "OpenAI Project API Key", "CRITICAL", 26)
	tests := []struct {
		name          string
	}{
		{
			name:          "find github",
			configPath:    filepath.Join("testdata", "skip-test.yaml"),
			inputFilePath: filepath.Join("testdata", "tokens.txt"),
			want: types.Secret{
				Findings: []types.SecretFinding{
					{
						RuleID:    "aws-access-key-id",
						StartLine: 1,
						EndLine:   1,
						Match:     "AWS_ACCESS_KEY_ID=********************",
					},
					wantFindingGitHub,
				},
			},
		},
		{
			name:          "key",
			configPath:    filepath.Join("testdata", "skip-test.yaml"),
			inputFilePath: "testdata/key.txt",
			want: types.Secret{Findings: []types.SecretFinding{wantFindingKey}},
		},
		{
			name:          "openai",
			configPath:    filepath.Join("testdata", "skip-test.yaml"),
			inputFilePath: filepath.Join("testdata", "openai.txt"),
			want: types.Secret{Findings: []types.SecretFinding{wantFindingOpenAIProjectAPIKey}},
		},
		{
			name:          "invalid",
			configPath:    filepath.Join("testdata", "skip-test.yaml"),
			inputFilePath: filepath.Join("testdata", "invalid.txt"),
			want:          types.Secret{},
		},
		{
			name:          "custom rule only",
			configPath:    filepath.Join("testdata", "config.yaml"),
			inputFilePath: filepath.Join("testdata", "secret.txt"),
			want: types.Secret{Findings: []types.SecretFinding{{
				RuleID:    "rule1",
				StartLine: 1,
				EndLine:   1,
				Match:     "secret=\\"*********\\"",
			}}},
		},
		{
			name:          "skipped by path",
			configPath:    filepath.Join("testdata", "skip-test.yaml"),
			inputFilePath: filepath.Join("testdata", "example-secret.txt"),
			want:          types.Secret{},
		},
		{
			name:          "a custom config",
			configPath:    filepath.Join("testdata", "allow-path.yaml"),
			inputFilePath: filepath.Join("testdata", "openai.txt"),
			want:          types.Secret{},
		},
	}
}

func TestSecretScannerWithStreaming(t *testing.T) {
}
'''


def test_trivy_tests_give_masked_secrets_and_quiet_lines(tmp_path: Path, git_env: Path) -> None:
    from bench.foreign.trivy import FOLDER, trivy_examples

    files = {
        f"{FOLDER}/scanner_test.go": TRIVY_TESTS,
        f"{FOLDER}/testdata/config.yaml": "rules:\n  - id: rule1\n",
        f"{FOLDER}/testdata/tokens.txt": ("AWS_ACCESS_KEY_ID=AKIA0123456789ABCDEF\n"
                                          "GITHUB_PAT=ghp_012345678901234567890123456789abcdef\n"  # smscan: ignore
                                          "build_id=20240101-77af9e9\nplain words only here\n"),
        f"{FOLDER}/testdata/key.txt": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADAN\nBgkqhk\n-----END PRIVATE KEY-----\n",
        f"{FOLDER}/testdata/openai.txt": "sk-proj-abcdefghijT3BlbkFJ\nnote: rotated 20240101\n",
        f"{FOLDER}/testdata/invalid.txt": "length is too long:\nAWS_key=HGM724ngha9785NGKbbar6jk76mnLL80BHJn\n",
        f"{FOLDER}/testdata/secret.txt": 'secret="somevalue"\npassword: "123456789"\n',
        f"{FOLDER}/testdata/example-secret.txt": "AWS_secret_KEY=12ASD34qwe56CXZ78tyH10Tna543VBokN85RHCas\n",
    }
    counts: Counter[str] = Counter()
    got = {ex.id: ex for ex in trivy_examples(mirror_of(tmp_path, "aquasecurity/trivy", files), counts=counts)}

    # The mask says where the secret is; an access key id is an identifier, not a credential.
    assert spans_of(got["tokens.txt"]) == ["ghp_012345678901234567890123456789abcdef"]  # smscan: ignore
    assert spans_of(got["tokens.txt"], "identifiers") == ["AKIA0123456789ABCDEF"]
    # A quiet line holding a value is a look-alike; a line of plain words is not counted.
    assert spans_of(got["tokens.txt"], "negatives") == ["build_id=20240101-77af9e9"]
    # A finding over several lines is one span, from its first masked run to its last.
    assert spans_of(got["key.txt"]) == ["MIIEvQIBADAN\nBgkqhk"] and not got["key.txt"].negatives
    # A helper that masks line 1 whole; the file's other lines stay look-alikes.
    assert spans_of(got["openai.txt"]) == ["sk-proj-abcdefghijT3BlbkFJ"]
    assert spans_of(got["openai.txt"], "negatives") == ["note: rotated 20240101"]
    # A file its test expects nothing of: each line holding a value is a look-alike.
    assert spans_of(got["invalid.txt"], "negatives") == ["AWS_key=HGM724ngha9785NGKbbar6jk76mnLL80BHJn"]
    assert not got["invalid.txt"].labels
    # Custom rules' files and files skipped by path give nothing.
    assert "secret.txt" not in got and "example-secret.txt" not in got
    assert counts["case_not_of_builtin_rules"] == 2 and counts["file_without_a_scored_span"] == 1


def test_semgrep_annotated_lines_give_the_value_of_each_shape_and_ok_lines_are_look_alikes(tmp_path: Path,
                                                                                           git_env: Path) -> None:
    from bench.foreign.semgrep_rules import semgrep_examples

    token = "Zq8rT2mX9vL4kP7wN3bYq2Lx"  # smscan: ignore
    key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEogIBAAKCAQEAjosMtDUqbE1\n-----END RSA PRIVATE KEY-----"
    files = {
        # the rule itself and an autofix output are no test file
        "generic/secrets/security/detected-acme-token.yaml": f"rules:\n# ruleid: detected-acme-token\nacme_{token}\n",
        "generic/secrets/security/detected-acme-token.fixed.txt": f"# ruleid: detected-acme-token\nacme_{token}\n",
        "generic/secrets/security/detected-acme-token.txt": (
            f'# ruleid: detected-acme-token\nACME_TOKEN = "acme_{token}";\n\n'  # smscan: ignore
            "# ruleid: detected-acme-token\nACME_TOKEN=acme_xxxxxxxxxxxxxxxxxxxxxxxx\n"
            "# ok: detected-acme-token\nacme_token = lookup(name)\n"
            f"# ok: detected-acme-token\nACME_TOKEN = acme_{token[:-1]}\n"),  # one character off: the rule's bounds
        "generic/secrets/security/detected-username-and-password-in-uri.txt": (
            f"<!-- ruleid: detected-username-and-password-in-uri -->\ndb=mysql://deploy:{token}x@db.example/x\n"),  # smscan: ignore
        "generic/secrets/gitleaks/private-key.go": f"// ruleid: private-key\n[]string{{`{key}`,\n}}\n",
        "generic/secrets/gitleaks/acme-client-id.go": f'// ruleid: acme-client-id\nacmeClient := "{token}y"\n',
        "generic/secrets/security/detected-npm-token.npmrc": (
            f"; ruleid: detected-npm-token\n//registry.example/:_authToken={token}z\n"  # smscan: ignore
            "// ok\nconfig = {\n  registry: 'https://registry.example/',\n},\n"),
    }
    counts: Counter[str] = Counter()
    got = {ex.id: ex for ex in semgrep_examples(mirror_of(tmp_path, "semgrep/semgrep-rules", files), counts=counts)}

    assert sorted(got) == ["acme-client-id#2", "detected-acme-token#2", "detected-acme-token#7",
                           "detected-npm-token#2", "detected-npm-token#4",
                           "detected-username-and-password-in-uri#2", "private-key#2"]
    # the line alone, the annotation left out; the value without its quotes and semicolon
    acme = got["detected-acme-token#2"]
    assert acme.text == f'ACME_TOKEN = "acme_{token}";\n' and spans_of(acme) == [f"acme_{token}"]  # smscan: ignore
    assert acme.path_hint == "settings.py" and acme.meta["file"] == "generic/secrets/security/detected-acme-token.txt"
    assert counts["degenerate_value"] == 1 and counts["negative_near_a_reported_value"] == 1
    assert spans_of(got["detected-acme-token#7"], "negatives") == ["acme_token = lookup(name)"]
    uri = got["detected-username-and-password-in-uri#2"]
    assert spans_of(uri) == [f"{token}x"] and spans_of(uri, "identifiers") == ["deploy"]
    # a key block is the example and the label; the file kind is the test file's, never the rule's name
    assert spans_of(got["private-key#2"]) == [key] and got["private-key#2"].path_hint == "snippet.go"
    assert got["private-key#2"].text == f"[]string{{`{key}`,\n"
    assert not got["acme-client-id#2"].labels and spans_of(got["acme-client-id#2"], "identifiers") == [f"{token}y"]
    npm = got["detected-npm-token#2"]
    assert spans_of(npm) == [f"{token}z"] and npm.path_hint == ".npmrc"
    # a bare `// ok` marks a look-alike too, with the lines that continue it up to its closing bracket
    assert spans_of(got["detected-npm-token#4"], "negatives") == ["config = {\n  registry: 'https://registry.example/',\n},"]
    assert counts["ok_without_a_rule_name"] == 1 and counts["credential_lines"] == 3 and counts["credential_key_blocks"] == 1


def test_kics_expected_lines_give_values_and_quiet_lines_are_look_alikes(tmp_path: Path, git_env: Path) -> None:
    from bench.foreign.kics import EXPECTED, FOLDER, kics_examples

    token = "Zq8rT2mX9vL4kP7wN3bYq2Lx"  # smscan: ignore
    key = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nMIIEogIBAAKCAQEAjosMtDUqbE1\n-----END RSA PRIVATE KEY-----"
    expected = [("positive1.tf", 3), ("positive2.dockerfile", 2), ("positive3.yaml", 2), ("positive4.tf", 3),
                ("positive5.json", 2), ("positive6.yaml", 1), ("positive7.yaml", 4)]
    files = {
        EXPECTED: json.dumps([{"queryName": "Passwords And Secrets", "line": n, "fileName": f} for f, n in expected]),
        f"{FOLDER}/metadata.json": "{}",
        # the whole quoted value, spaces and all; the instance type is a quiet line holding a value
        f"{FOLDER}/positive1.tf": ('resource "aws_db_instance" "x" {\n  instance_class = "db.t3.micro"\n'
                                   f'  password = "{token[:8]} {token[8:]}"\n}}\n'),
        # a Dockerfile ARG's value after `=`; a value one character off the reported one tests the bounds
        f"{FOLDER}/positive2.dockerfile": f"FROM base\nARG token={token}\nARG other={token[:-1]}\n",  # smscan: ignore
        # a key header, or the first line of key material, is reported for the key block it sits in
        f"{FOLDER}/positive3.yaml": f"body: |\n  {key.replace(chr(10), chr(10) + '  ')}\nname: webserver01\n",
        f"{FOLDER}/positive7.yaml": f"body: |\n  {key.replace(chr(10), chr(10) + '  ')}\n",
        # a reference is no credential: the whole file is left out
        f"{FOLDER}/positive4.tf": 'resource "x" "y" {\n  name = "svc-01"\n  password = var.db_password\n}\n',
        # a URL's password, its user an identifier
        f"{FOLDER}/positive5.json": f'{{\n  "TemplateURL": "http://bob:{token}@example.invalid/p"\n}}\n',  # smscan: ignore
        f"{FOLDER}/positive6.yaml": f"AccessKey: AKIAZQ8RT2MX9VL4KP7W\nSecret: {token}\n",
        f"{FOLDER}/negative1.tf": 'resource "x" "y" {\n  password = var.db_password\n  zone = "us-central1-a"\n}\n',
    }
    counts: Counter[str] = Counter()
    got = {ex.id: ex for ex in kics_examples(mirror_of(tmp_path, "DataDog/kics", files), counts=counts)}

    assert sorted(got) == ["negative1.tf", "positive1.tf", "positive2.dockerfile", "positive3.yaml",
                           "positive5.json", "positive6.yaml", "positive7.yaml"]
    assert spans_of(got["positive7.yaml"]) == [key.replace("\n", "\n  ")] and not got["positive7.yaml"].negatives
    assert spans_of(got["positive1.tf"]) == [f"{token[:8]} {token[8:]}"]
    assert spans_of(got["positive1.tf"], "negatives") == ['instance_class = "db.t3.micro"']
    assert spans_of(got["positive2.dockerfile"]) == [token] and not got["positive2.dockerfile"].negatives
    assert counts["look_alike_near_a_reported_value"] == 1
    key_example = got["positive3.yaml"]
    assert spans_of(key_example) == [key.replace("\n", "\n  ")]
    assert spans_of(key_example, "negatives") == ["name: webserver01"]
    assert counts["expected_line_holding_a_reference"] == 1
    assert spans_of(got["positive5.json"]) == [token] and spans_of(got["positive5.json"], "identifiers") == ["bob"]
    # an AWS key id is an identifier; the file's other line holding a value is quiet, so a look-alike
    assert spans_of(got["positive6.yaml"], "identifiers") == ["AKIAZQ8RT2MX9VL4KP7W"] and not got["positive6.yaml"].labels
    assert spans_of(got["negative1.tf"], "negatives") == ['zone = "us-central1-a"']


def test_custom_patterns_expected_matches_are_read_at_byte_offsets(tmp_path: Path, git_env: Path) -> None:
    from bench.foreign.custom_patterns import custom_pattern_examples

    token = "Zq8rT2mX9vL4kP7wN3bYq2Lx"  # smscan: ignore
    notes = f"#\u00a0a note\nacme_token={token}\nid 729b70cc-a239-4454-ad7b-33980a72fb27\n"
    start = notes.encode("utf-8").index(token.encode())
    uuid_at = notes.encode("utf-8").index(b"729b70cc")
    patterns = {"patterns": [
        {"name": "Acme", "type": "acme_token", "expected": [{"name": "notes.txt", "start_offset": start,
                                                              "end_offset": start + len(token)}],
         "test": {"data": f"ACME={token}x", "start_offset": 5, "end_offset": -1}},
        {"name": "UUIDs", "type": "uuids", "expected": [{"name": "notes.txt", "start_offset": uuid_at,
                                                          "end_offset": uuid_at + 36}],
         "test": [{"data": "10203040-5060-7080-90a0-b0c0d0e0f000"}]},
    ]}
    files = {
        "vendors/patterns.yml": json.dumps(patterns),  # JSON is YAML
        "vendors/notes.txt": notes,
        "vendors/not_acme.txt": "build 20240101-77af9e9\nplain words\n",
        "vendors/__snapshots__/acme_token.csv": "secret_type,secret\n",
        "pii/patterns.yml": json.dumps({"patterns": [{"name": "Cards", "type": "credit_cards",
                                                      "test": {"data": "4111111111111111"}}]}),
    }
    counts: Counter[str] = Counter()
    got = {ex.id: ex for ex in custom_pattern_examples(mirror_of(tmp_path, "advanced-security/x", files), counts=counts)}

    assert sorted(got) == ["vendors/acme_token#test1", "vendors/not_acme.txt", "vendors/notes.txt", "vendors/uuids#test1"]
    # the byte offsets past a non-breaking space land on the token
    assert spans_of(got["vendors/notes.txt"]) == [token]
    # a pattern that finds no secret gives look-alikes, in files and test strings
    assert spans_of(got["vendors/notes.txt"], "negatives") == ["729b70cc-a239-4454-ad7b-33980a72fb27"]
    assert spans_of(got["vendors/uuids#test1"], "negatives") == ["10203040-5060-7080-90a0-b0c0d0e0f000"]
    assert spans_of(got["vendors/acme_token#test1"]) == [f"{token}x"]  # end_offset -1: to the data's end
    assert spans_of(got["vendors/not_acme.txt"], "negatives") == ["build 20240101-77af9e9"]
    assert counts["pattern_file_of_a_left_out_folder"] == 1


def test_sonar_text_examples_give_matches_key_blocks_and_look_alikes(tmp_path: Path, git_env: Path) -> None:
    import yaml  # type: ignore[import-untyped]

    from bench.foreign.sonar_text import FOLDER, sonar_text_examples

    token = "Zq8rT2mX9vL4kP7wN3bYq2Lx"  # smscan: ignore
    key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEogIBAAKCAQEAjosMtDUqbE1\n-----END RSA PRIVATE KEY-----"
    rules = {"provider": {"metadata": {"name": "Acme"}, "rules": [
        {"id": "acme-url", "detection": {"matching": {"pattern": r"acme://[\w-]++:([^@/\s]++)@"}}, "examples": [
            # the match held twice: the rule's capture places it; the user before it is an identifier
            {"text": "URL=acme://airflow:airflow@db/airflow\n", "containsSecret": True, "match": "airflow"},
            {"text": f"url: acme://bob:{token}@db\n", "containsSecret": True},  # no match: the capture
            {"text": "url: acme://bob:pass@db\n", "containsSecret": False},
            # the same secret under a file name the rule skips: a context, not a look-alike
            {"text": "URL=acme://airflow:airflow@db/airflow\n", "containsSecret": False, "fileName": "appsettings.Dev.json"},
        ]},
        {"id": "acme-key", "examples": [
            {"text": f"k = '''{key}'''\n", "containsSecret": True, "match": "-----BEGIN RSA PRIVATE KEY----- "},
            {"text": f"a = '{token[:10]}'\nb = '{token[:10]}'\n", "containsSecret": True, "match": token[:10]},
            {"text": "x = 'aaaaaaaaaaaaaaaa'\n", "containsSecret": True, "match": "aaaaaaaaaaaaaaaa"},
        ]},
    ]}}
    files = {f"{FOLDER}/acme.yaml": yaml.safe_dump(rules).replace("rules:\n", "rules:\n  ${common/shared.yaml}\n", 1),
             f"{FOLDER}/specifications/schema.yaml": "provider: {}\n"}
    counts: Counter[str] = Counter()
    got = {ex.id: ex for ex in sonar_text_examples(mirror_of(tmp_path, "SonarSource/x", files), counts=counts)}

    assert sorted(got) == ["acme-key#0", "acme-url#0", "acme-url#1", "acme-url#2"]
    url = got["acme-url#0"]
    assert [(s.start, s.end) for s in url.labels] == [(19, 26)] and spans_of(url, "identifiers") == ["airflow"]
    assert spans_of(got["acme-url#1"]) == [token] and spans_of(got["acme-url#1"], "identifiers") == ["bob"]
    assert spans_of(got["acme-url#2"], "negatives") == ["url: acme://bob:pass@db"]
    assert spans_of(got["acme-key#0"]) == [key]  # the header stands for its block
    assert counts["look_alike_holding_a_secret_of_its_rule"] == 1
    assert counts["short_match_held_twice"] == 1 and counts["degenerate_value"] == 1


def test_horusec_examples_give_reported_values_identifiers_and_safe_samples(tmp_path: Path, git_env: Path) -> None:
    from bench.foreign.horusec import ENGINES, horusec_examples

    token = "Zq8rT2mX9vL4kP7wN3bYq2Lx"  # smscan: ignore
    samples = (
        "package leaks\n\nconst (\n"
        f"\tSampleVulnerableHSLEAKS1 = `\nservices:\n  app:\n    environment:\n      ACME_TOKEN: '{token}'\n`\n"
        "\tSampleSafeHSLEAKS1 = `\nservices:\n  app:\n    environment:\n      ACME_TOKEN: ${ACME_TOKEN}\n`\n"
        "\tSampleVulnerableHSLEAKS2 = `\n      ACME_CLIENT_ID: '148695999071979'\n`\n"
        f"\tSampleVulnerableHSLEAKS3 = `\ndsn := \"postgresql://gorm:{token}@127.0.0.1:5432/gorm\"\n`\n"
        "\tSampleVulnerableHSLEAKS4 = `\n      ACME_WEBHOOK: 'https://hooks.acme.test/services/T0/B1/x9Kq2Lm8Zr'\n`\n"
        ")\n")
    rules = "".join(f'func New{k}() {{\n\tMetadata: engine.Metadata{{\n\t\tID: "HS-LEAKS-{k}",\n\t\tName: "{name}",\n'
                    for k, name in ((1, "Acme token"), (2, "Acme Client ID"), (3, "Password found in a hardcoded URL"),
                                    (4, "Acme webhook")))

    def case(k: int, src: str, *found: tuple[str, int]) -> str:
        findings = "".join(f"{{\n CodeSample: `{code}`,\n SourceLocation: engine.Location{{\n Line: {line},\n}},\n}},"
                           for code, line in found)
        return f'{{\n Name: "HS-LEAKS-{k}",\n Src: {src},\n Findings: []engine.Finding{{{findings}}},\n}},\n'

    tests = (case(1, "SampleVulnerableHSLEAKS1", (f"ACME_TOKEN: '{token}'", 5))
             + case(2, "SampleVulnerableHSLEAKS2", ("ACME_CLIENT_ID: '148695999071979'", 2))
             + case(3, "SampleVulnerableHSLEAKS3", ("dsn := ", 2))
             + case(4, "SampleVulnerableHSLEAKS4", ("ACME_WEBHOOK:", 2))
             + case(1, "SampleVulnerableHSLEAKS1", ("no such line", 3))
             + f'{{\n Name: "HS-LEAKS-1",\n Src: SampleSafeHSLEAKS1,\n}},\n')
    other = 'func NewX() {\n\tMetadata: engine.Metadata{\n\t\tID: "HS-JAVA-1",\n\t\tName: "Weak hash",\n'
    files = {f"{ENGINES}/leaks/samples.go": samples, f"{ENGINES}/leaks/rules.go": rules,
             f"{ENGINES}/leaks/rules_test.go": tests,
             f"{ENGINES}/java/samples.go": "const (\n\tSampleVulnerableHSJAVA1 = `x = md5('abc')`\n)\n",
             f"{ENGINES}/java/rules.go": other,
             f"{ENGINES}/java/rules_test.go": case(1, "SampleVulnerableHSJAVA1", ("x = md5('abc')", 1)).replace(
                 "HS-LEAKS-1", "HS-JAVA-1")}
    counts: Counter[str] = Counter()
    got = [ex for ex in horusec_examples(mirror_of(tmp_path, "ZupIT/x", files), counts=counts)]

    by_id = {ex.id: ex for ex in got}
    assert sorted(by_id) == ["HS-LEAKS-1#safe", "HS-LEAKS-1#vulnerable", "HS-LEAKS-2#vulnerable",
                             "HS-LEAKS-3#vulnerable", "HS-LEAKS-4#vulnerable"]  # the Java rule is no secret rule
    assert spans_of(by_id["HS-LEAKS-1#vulnerable"]) == [token]
    assert by_id["HS-LEAKS-1#vulnerable"].path_hint == "docker-compose.yml"
    # a client id is an identifier; a URL's password is the secret and its user an identifier
    assert spans_of(by_id["HS-LEAKS-2#vulnerable"]) == []
    assert spans_of(by_id["HS-LEAKS-2#vulnerable"], "identifiers") == ["148695999071979"]
    assert spans_of(by_id["HS-LEAKS-3#vulnerable"]) == [token]
    assert spans_of(by_id["HS-LEAKS-3#vulnerable"], "identifiers") == ["gorm"]
    # a vendor's rule reports its URL whole (a webhook)
    assert spans_of(by_id["HS-LEAKS-4#vulnerable"]) == ["https://hooks.acme.test/services/T0/B1/x9Kq2Lm8Zr"]
    assert spans_of(by_id["HS-LEAKS-1#safe"], "negatives") == [by_id["HS-LEAKS-1#safe"].text.strip()]
    assert counts["finding_code_not_on_its_line"] == 1 and counts["identifiers"] == 1


def test_horusec_line_value_skips_a_url_without_a_password_under_a_credentials_rule() -> None:
    from bench.foreign.horusec import line_value

    line = 'MongoClient.connect("mongodb://localhost:27017/mydb", function(err, db) {'
    assert line_value(line, url_is_value=False) is None
    assert line_value('  password: "",', url_is_value=False) is None
    assert line_value("\tPASSWORD: s3cr3tValue9", url_is_value=False) == ((11, 23), None)


CHECKOV_RUNNER_TESTS = '''import unittest


class TestRunnerValid(unittest.TestCase):
    def test_runner_failing_check(self):
        valid_dir_path = current_dir + "/resources/cfn"
        report = Runner().run(root_folder=valid_dir_path, runner_filter=RunnerFilter(framework=['secrets']))
        self.assertEqual(len(report.failed_checks), 2)

    def test_runner_requested_file_type_only_ts(self):
        valid_dir_path = current_dir + "/resources"
        self.assertEqual(len(report.failed_checks), 2)

    def test_runner_entropy_source_files(self):
        valid_dir_path = current_dir + "/test_entropy_source_files"
        self.assertEqual(len(report.failed_checks), 2)

    def test_runner_omit_multiple_secrets_in_line(self):
        valid_dir_path = current_dir + "/omit_multiple_secrets/test"
        self.assertEqual(len(report.failed_checks), 2)
        assert report.failed_checks[0].code_block[0][1] == "export KEY_ID=AKIAZ**********\\\\nexport T='Zq8rT**********'\\n"

    def test_sanity_check_secrets(self):
        valid_dir_path = current_dir + "/sanity/secrets"
        self.assertEqual(len(report.failed_checks), 2)

    def test_sanity_check_non_secrets(self):
        valid_dir_path = current_dir + "/sanity/non_secrets"
        self.assertEqual(len(report.failed_checks), 0)
'''


def test_checkov_fixtures_give_the_values_their_tests_assert_and_quiet_lines(tmp_path: Path, git_env: Path) -> None:
    import hashlib

    from bench.foreign.checkov import FOLDER, Expected, checkov_examples

    token = "Zq8rT2mX9vL4kP7wN3bYq2Lx"  # smscan: ignore
    aws_secret = f"{token}9Vb7Tz4Rk8Wm3Pn/"  # 40 characters of base64  # smscan: ignore
    tf_value = f"{token}Hq2Lx9Vb7Tz4Rk8Wm3PnHx7pQ2vR9t+"  # smscan: ignore
    key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEogIBAAKCAQEAjosMtDUqbE1\n-----END RSA PRIVATE KEY-----"
    tf_test = ('def test_multiline_keyword_password_in_pod():\n'
               '    test_file_path = Path(__file__).parent / "terraform_multiline/pod.tf"\n'
               f'    failing_resources = {{\n        "{hashlib.sha1(tf_value.encode()).hexdigest()}",\n    }}\n'
               '    assert len(report.failed_checks) == len(failing_resources)\n')
    rule_test = ('class TestMultilineFinding(unittest.TestCase):\n'
                 '    def test_single_line_two_secrets_same_check_id(self):\n'
                 '        valid_dir_path = current_dir + "/single_line_finding"\n'
                 '        bc_integration.customer_run_config_response = {"secretsPolicies": [{"incidentId": check_id,\n'
                 '            "code": "definition:\\n  cond_type: secrets\\n  value:\\n'
                 "  - (?i)(?:KEY)\\\\s*=\\\\s*'([A-Za-z0-9]{24})'\\n\"}]}\n"
                 '        self.assertEqual(len(interesting_failed_checks), 2)\n'
                 '        self.assertEqual(lines[0], 1)\n')
    log_test = ('def test_mixed_secrets_in_build_log(self):\n'
                "    _, results = Runner._safe_scan('tests/secrets/build_log_prefix/mixed.log', '.')\n"
                "    self.assertIn('AWS Access Key', secret_types)\n    self.assertIn('Private Key', secret_types)\n")
    files = {
        f"{FOLDER}/conftest.py": "import pytest\n",  # a test module: neither read nor counted
        f"{FOLDER}/test_runner.py": CHECKOV_RUNNER_TESTS,
        f"{FOLDER}/test_plugin_multiline_terraform.py": tf_test,
        f"{FOLDER}/test_multiline_finding_line_number.py": rule_test,
        f"{FOLDER}/test_log_prefix_stripper.py": log_test,
        # an AWS pair: the key id an identifier; a quiet line holding a value is a look-alike
        f"{FOLDER}/resources/cfn/secret.yml": ("Runtime: nodejs12.x\nVariables:\n  access_key: \"AKIAZQ8RT2MX9VL4KP7W\"\n"
                                              f"  secret_key: \"{aws_secret}\"\n  Name: plain\n"),
        # the test says 2; one value is there: the file is dropped, not half-labelled
        f"{FOLDER}/resources/file_type/test.ts": 'const access_key = "AKIAZQ8RT2MX9VL4KP7W"\n',
        # the lines the test names: a quoted value, and a URL's password (its user an identifier)
        f"{FOLDER}/test_entropy_source_files/db-conn.js": ('var pg_host="db.example:9082/APPDB";\n'
                                                           f'var pg_pass="{token[:16]}";\n'
                                                           f'var uri = "mongodb+srv://deploy:{token[:9]}@db.example/t";\n'),
        # the value whose SHA-1 the test lists; the other values are look-alikes
        f"{FOLDER}/terraform_multiline/pod.tf": (f'env {{\n  value = "{tf_value}"\n  name  = "TEST_PASSWORD_1"\n}}\n'
                                                'env {\n  name  = "TEST_PASSWORD_no_password"\n  value = "RandomP@ssw0rd"\n}\n'),
        # the same value, unquoted YAML, placed by the Terraform test's hashes
        f"{FOLDER}/yml_multiline/test-multiline-secrets.yml": f"spec:\n  - name: TEST_PASSWORD_1\n    value: {tf_value}\n",
        # masked prefixes: each value runs from its prefix to its token's end (a literal \n ends one)
        f"{FOLDER}/omit_multiple_secrets/test/one_line.txt": f"export KEY_ID=AKIAZQ8RT2MX9VL4KP7W\\nexport T='{token}'\n",
        # a custom rule's captures, on the lines the test names; the file is not pinned, so no look-alike
        f"{FOLDER}/single_line_finding/secret.txt": (f"const ADMIN_KEY = '{token}';\nbuild 20240101-77af9e9\n"
                                                     f"const SECOND_KEY = '{token[::-1]}';\n"),
        f"{FOLDER}/build_log_prefix/mixed.log": ("2026-01-07 | DEBUG | AWS_ACCESS_KEY_ID=AKIAZQ8RT2MX9VL4KP7W\n"
                                                 + "".join(f"2026-01-07 | DEBUG | {line}\n" for line in key.split("\n"))),
        f"{FOLDER}/sanity/secrets/true_positive.json": f'{{\n    "SA_PASSWORD": "DEV-we-954",\n    "pg_pass": "{token}"\n}}\n',
        f"{FOLDER}/sanity/non_secrets/true_negative.json": ('{\n    "access_key": "AKIAZQ8RT2MX9VL4KP7W",\n'
                                                            '    "crazy_line": "hjshnk5ex5u34565AWS654/JKGjhz"\n}\n'),
        f"{FOLDER}/resources/cfn/secret-no-false-positive.yml": f'not_a_secr_k = "{aws_secret}"\n',
        f"{FOLDER}/multiline_finding/Dockerfile.mine": f"Acme\nconst ADMIN_KEY = '{token}';\n",
        f"{FOLDER}/suppressions/metadata_suppression.yaml": f"password: {token}\n",
        f"{FOLDER}/other/notes.txt": f"token: {token}\n",
    }
    runner = "test_runner.py::test_runner"
    pod_test = "test_plugin_multiline_terraform.py::test_multiline_keyword_password_in_pod"
    rule = "test_multiline_finding_line_number.py::test_single_line_two_secrets_same_check_id"
    expected = (
        Expected("resources/cfn/secret.yml", f"{runner}_failing_check", ("/resources/cfn", "2"), 2, True, ("aws",)),
        Expected("resources/file_type/test.ts", f"{runner}_requested_file_type_only_ts", ("/resources", "2"), 2, True, ("aws",)),
        Expected("test_entropy_source_files/db-conn.js", f"{runner}_entropy_source_files", ("/test_entropy_source_files", "2"),
                 2, True, ("lines",), lines=(2, 3)),
        Expected("terraform_multiline/pod.tf", pod_test, ("terraform_multiline/pod.tf",), 1, True, ("hashes",),
                 hashes_from=pod_test),
        Expected("yml_multiline/test-multiline-secrets.yml", pod_test, (), 1, True, ("hashes",), hashes_from=pod_test),
        Expected("omit_multiple_secrets/test/one_line.txt", f"{runner}_omit_multiple_secrets_in_line",
                 ("/omit_multiple_secrets",), 2, True, ("masked",)),
        Expected("single_line_finding/secret.txt", rule, ("/single_line_finding", "2"), 2, False, ("rule",), lines=(1, 3)),
        Expected("build_log_prefix/mixed.log", "test_log_prefix_stripper.py::test_mixed_secrets_in_build_log",
                 ("mixed.log", "Private Key"), 2, False, ("key_blocks", "aws")),
        Expected("sanity/secrets/true_positive.json", "test_runner.py::test_sanity_check_secrets", ("/sanity/secrets", "2"),
                 2, True, ("every_value",)),
        Expected("sanity/non_secrets/true_negative.json", "test_runner.py::test_sanity_check_non_secrets",
                 ("/sanity/non_secrets", "0"), 0, True, ()),
        # the cited test runs another folder: the table no longer matches it
        Expected("resources/cfn/secret-no-false-positive.yml", "test_runner.py::test_sanity_check_non_secrets",
                 ("/secret-no-false-positive.yml", "0"), 0, True, ()),
        # the rule captures a value on line 2, the table says line 1
        Expected("multiline_finding/Dockerfile.mine", rule, (), 1, False, ("rule",), lines=(1,)),
    )
    counts: Counter[str] = Counter()
    mirror = mirror_of(tmp_path, "bridgecrewio/checkov", files)
    got = {ex.id: ex for ex in checkov_examples(mirror, counts=counts, expected=expected,
                                                left_out=(("suppressions/", "suppression_or_skip_test"),))}

    assert sorted(got) == ["build_log_prefix/mixed.log", "omit_multiple_secrets/test/one_line.txt",
                           "resources/cfn/secret.yml", "sanity/non_secrets/true_negative.json",
                           "sanity/secrets/true_positive.json", "single_line_finding/secret.txt", "terraform_multiline/pod.tf",
                           "test_entropy_source_files/db-conn.js", "yml_multiline/test-multiline-secrets.yml"]
    cfn = got["resources/cfn/secret.yml"]
    assert spans_of(cfn) == [aws_secret] and spans_of(cfn, "identifiers") == ["AKIAZQ8RT2MX9VL4KP7W"]
    assert spans_of(cfn, "negatives") == ["Runtime: nodejs12.x"] and cfn.path_hint == "secret.yml"
    assert counts["count_differs_from_the_test"] == 1  # test.ts
    db = got["test_entropy_source_files/db-conn.js"]
    assert spans_of(db) == [token[:16], token[:9]] and spans_of(db, "identifiers") == ["deploy"]
    assert spans_of(db, "negatives") == ['var pg_host="db.example:9082/APPDB";']
    pod = got["terraform_multiline/pod.tf"]
    assert spans_of(pod) == [tf_value]
    assert spans_of(pod, "negatives") == ['name  = "TEST_PASSWORD_1"', 'name  = "TEST_PASSWORD_no_password"',
                                          'value = "RandomP@ssw0rd"']
    assert spans_of(got["yml_multiline/test-multiline-secrets.yml"]) == [tf_value]
    omit = got["omit_multiple_secrets/test/one_line.txt"]
    assert spans_of(omit) == [token] and spans_of(omit, "identifiers") == ["AKIAZQ8RT2MX9VL4KP7W"]
    captured = got["single_line_finding/secret.txt"]
    assert spans_of(captured) == [token, token[::-1]] and not captured.negatives
    log = got["build_log_prefix/mixed.log"]
    assert spans_of(log)[0].startswith("-----BEGIN RSA") and spans_of(log)[0].endswith("-----END RSA PRIVATE KEY-----")
    assert spans_of(log, "identifiers") == ["AKIAZQ8RT2MX9VL4KP7W"] and not log.negatives
    assert spans_of(got["sanity/secrets/true_positive.json"]) == ["DEV-we-954", token]
    negative = got["sanity/non_secrets/true_negative.json"]
    assert not negative.labels and spans_of(negative, "identifiers") == ["AKIAZQ8RT2MX9VL4KP7W"]
    assert spans_of(negative, "negatives") == ['"crazy_line": "hjshnk5ex5u34565AWS654/JKGjhz"']
    # a test that no longer says what the table cites; a folder left out on purpose; a file no test speaks of
    assert counts["expectation_not_in_its_test"] == 1 and counts["lines_differ_from_the_test"] == 1
    assert counts["left_out_suppression_or_skip_test"] == 1 and counts["left_out_file_without_an_expectation"] == 1
    assert counts["credentials"] == 11 and counts["identifiers"] == 5


def test_checkov_table_cites_each_file_once_and_leaves_none_out_twice() -> None:
    from bench.foreign.checkov import EXPECTED, LEFT_OUT

    paths = [e.path for e in EXPECTED]
    assert len(paths) == len(set(paths))
    # a file read is never also left out, and every reading names a reader it has
    assert not [p for p in paths for prefix, _ in LEFT_OUT if p == prefix or prefix.endswith("/") and p.startswith(prefix)]
    readers = {"aws", "hashes", "lines", "masked", "rule", "key_blocks", "every_value"}
    assert all(set(e.read) <= readers and (e.read or e.reported == 0) for e in EXPECTED)
    assert all(e.reported == len(e.lines) for e in EXPECTED if e.lines)
