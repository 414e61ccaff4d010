"""bench/multiformat_gen.py and bench/multiformat_eval.py on a small local package (no network)."""

from __future__ import annotations

import io
import json
import re
import tarfile
from pathlib import Path

import pytest

from bench import mf_values
from bench.mf_hosts import read_packages
from bench.common.splits import find_shared, load_scorer
from bench.multiformat_eval import measure
from bench.multiformat_gen import PACKAGE_LISTS, build, shared_packages

PARAGRAPHS = "\n\n".join(f"Paragraph {i} explains how the service is configured and deployed." for i in range(6))
FILES = {
    "README.md": f"# Fixture\n\n{PARAGRAPHS}\n",
    "docs/setup.rst": f"Setup\n=====\n\n{PARAGRAPHS}\n",
    "NOTES": f"Release notes\n\n{PARAGRAPHS}\n",
    "db/schema.sql": "".join(f"CREATE TABLE t{i} (id integer primary key, name text);\n\n" for i in range(6)),
    "scripts/run.sh": "#!/bin/sh\nset -e\n" + "".join(f"echo step {i}\nsleep 1\n" for i in range(6)),
    "Dockerfile": "FROM python:3.12-slim\nWORKDIR /app\nCOPY . /app\nRUN pip install -r requirements.txt\n"
                  "EXPOSE 8000\nCMD [\"python\", \"-m\", \"app\"]\n",
    ".github/workflows/ci.yml": "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
                                "      - uses: actions/checkout@v4\n      - run: make test\n      - run: make lint\n",
    "config/app.ini": "[server]\nhost = 0.0.0.0\nport = 8000\nworkers = 4\ntimeout = 30\nlog_level = info\nkeepalive = 5\n",
    "config/app.properties": "server.port=8080\nserver.host=0.0.0.0\napp.name=fixture\napp.workers=4\napp.mode=prod\n",
    "config/settings.json": '{\n  "name": "fixture",\n  "port": 8000,\n  "workers": 4,\n  "timeout": 30,\n'
                            '  "log_level": "info",\n  "debug": false\n}\n',
    "cmd/main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n\n"
                   "func add(a, b int) int {\n\treturn a + b\n}\n",
    "src/util.c": "#include <stdio.h>\n\nint add(int a, int b) {\n    return a + b;\n}\n\n"
                  "int main(void) {\n    printf(\"%d\\n\", add(1, 2));\n    return 0;\n}\n",
    ".env.example": "PORT=8000\nLOG_LEVEL=info\nWORKERS=4\n",
    "demo.ipynb": json.dumps({"cells": [{"cell_type": "code", "execution_count": None, "id": "a1", "metadata": {},
                                         "outputs": [], "source": ["import os\n", "x = 1\n", "y = 2\n", "print(x + y)"]},
                                        {"cell_type": "markdown", "id": "a2", "metadata": {},
                                         "source": ["# Title\n", "Some text\n", "More text\n", "End"]}],
                              "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1, sort_keys=True) + "\n",
}


@pytest.fixture
def fixture_package(tmp_path: Path) -> tuple[Path, Path]:
    """A local sdist-like archive and a package list naming it: fetch() finds it, downloads nothing."""
    return write_package(tmp_path, FILES)


def write_package(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path]:
    """An sdist-like archive of ``files`` in tmp_path/pkgs and the package list naming it."""
    pkg_dir = tmp_path / "pkgs"
    pkg_dir.mkdir()
    with tarfile.open(pkg_dir / "fixturepkg-1.0.tar.gz", "w:gz") as tf:
        for name, text in sorted(files.items()):
            data = text.encode()
            info = tarfile.TarInfo(f"fixturepkg-1.0/{name}")
            info.size, info.mtime = len(data), 0
            tf.addfile(info, io.BytesIO(data))
    packages = tmp_path / "packages.txt"
    packages.write_text("pypi fixturepkg 1.0\n")
    return packages, pkg_dir


def _build(packages: Path, pkg_dir: Path, out: Path, seed: int = 1) -> dict:
    return build(packages, out, seed=seed, files=len(FILES) + 3, pkg_dir=pkg_dir, split="dev")


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_same_seed_writes_the_same_bytes_and_another_seed_other_values(tmp_path, fixture_package) -> None:
    packages, pkg_dir = fixture_package
    _build(packages, pkg_dir, tmp_path / "a")
    _build(packages, pkg_dir, tmp_path / "b")
    _build(packages, pkg_dir, tmp_path / "c", seed=2)

    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert (tmp_path / "a" / "labels.jsonl").read_text() != (tmp_path / "c" / "labels.jsonl").read_text()


SHAPES = {
    "slack_bot_token": r"xoxb-\d{12}-\d{13}-[A-Za-z0-9]{24}", "slack_app_token": r"xapp-1-A[A-Z0-9]{10}-\d{13}-[0-9a-f]{64}",
    "stripe_restricted_key": r"rk_live_[A-Za-z0-9]{24,99}", "gitlab_runner_token": r"glrt-[\w-]{20}",
    "gitlab_oauth_secret": r"gloas-[0-9a-f]{64}", "newrelic_key": r"NRJS-[0-9a-f]{19}", "posthog_key": r"phr_[A-Za-z0-9]{43}",
    "atlassian_token": r"ATATT3xFfGF0[\w-]{180}=[0-9A-F]{8}", "jwt": r"eyJ[\w-]+\.eyJ[\w-]+\.[\w-]{43}",
    "aws_access_key_id": r"AKIA[A-Z2-7]{16}", "activation_key": r"[A-Z0-9]{5}(-[A-Z0-9]{5}){3,5}",
    "secret_uuid": r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}",
    "private_key": r"-----BEGIN RSA PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+\n-----END RSA PRIVATE KEY-----",
}


def test_labels_point_at_the_planted_values_and_the_host_lines_stay(tmp_path, fixture_package) -> None:
    packages, pkg_dir = fixture_package
    out = tmp_path / "out"
    manifest = _build(packages, pkg_dir, out)
    rows = [json.loads(x) for x in (out / "labels.jsonl").read_text().splitlines()]
    assert manifest["secrets"] >= 8 and len(manifest["contexts"]) >= 6
    assert len(manifest["formats"]) == 15  # every fixture file is a host, plus private-key files

    for row in rows:
        text = (out / "corpus" / row["path"]).read_text(encoding="utf-8")
        host = FILES.get(row["path"].split("/", 1)[1])
        if host is not None:  # every line of the real file is still there, in order
            left = iter(text.split("\n"))
            assert all(any(line == seen for seen in left) for line in host.rstrip("\n").split("\n")), row["path"]
        for span in row["spans"]:
            value = text[span["start"]:span["end"]]
            assert value and value not in (host or ""), (row["path"], span)
            assert re.fullmatch(SHAPES.get(span["category"], r"[^\s\"']{8,}"), value), (span["category"], value)
        for span in row["negatives"]:
            value = text[span["start"]:span["end"]]
            if span["category"] in ("placeholder", "env_reference", "documented_example_key"):
                pool = {"placeholder": mf_values.PLACEHOLDERS, "env_reference": mf_values.ENV_REFS,
                        "documented_example_key": mf_values.EXAMPLE_KEYS}[span["category"]]
                assert value in pool, (span, value)


def test_planted_json_and_notebooks_still_parse(tmp_path, fixture_package) -> None:
    packages, pkg_dir = fixture_package
    out = tmp_path / "out"
    _build(packages, pkg_dir, out)
    rows = {json.loads(x)["path"]: json.loads(x) for x in (out / "labels.jsonl").read_text().splitlines()}

    for path in ("fixturepkg-1.0/config/settings.json", "fixturepkg-1.0/demo.ipynb"):
        json.loads((out / "corpus" / path).read_text())
    assert rows["fixturepkg-1.0/demo.ipynb"]["ext_class"] == "ipynb"


def test_the_two_splits_share_no_package_and_an_overlap_is_refused(tmp_path, fixture_package) -> None:
    dev, heldout = (read_packages(PACKAGE_LISTS[s]) for s in ("dev", "heldout"))
    assert dev and heldout and not shared_packages(dev, heldout)

    _, pkg_dir = fixture_package
    bad = tmp_path / "bad.txt"
    bad.write_text(f"pypi fixturepkg 1.0\npypi {heldout[0].name} {heldout[0].version}\n")
    with pytest.raises(SystemExit, match=heldout[0].name):
        build(bad, tmp_path / "out", seed=1, files=5, pkg_dir=pkg_dir, split="dev")


SHARED = find_shared()


@pytest.mark.skipif(SHARED is None, reason="the shared scorer is outside this checkout")
def test_eval_scores_the_labels_as_perfect_and_nothing_as_zero(tmp_path, fixture_package) -> None:
    packages, pkg_dir = fixture_package
    out = tmp_path / "out"
    _build(packages, pkg_dir, out)
    score = load_scorer(SHARED)
    split = score.Split(out)
    labels = {r["path"]: [[s["start"], s["end"]] for s in r["spans"]] for r in split.rows}

    perfect = measure(score, split, labels, None)
    empty = measure(score, split, {}, None)

    assert perfect["overall"]["secret_recall"] == 1.0 and perfect["overall"]["hard_negative_fp_rate"] == 0.0
    assert all(m["secret_recall"] == 1.0 for m in perfect["per_format"].values() if m["secrets"])
    assert all(c["recall"] == 1.0 for c in perfect["per_context"].values())
    assert empty["overall"]["secret_recall"] == 0.0
    assert sum(m["secrets"] for m in perfect["per_format"].values()) == perfect["overall"]["secrets"]


@pytest.mark.parametrize("args, message", [
    (["--tools", "gitleaks"], "unknown tool"),
    (["--tools", ""], "unknown tool"),
    (["--data", "{empty}"], "holds no labels.jsonl"),
])
def test_eval_refuses_bad_input_with_one_message_and_exit_2(tmp_path, capsys, args, message) -> None:
    from bench.multiformat_eval import main

    (tmp_path / "empty").mkdir()
    argv = ["--data", str(tmp_path / "empty"), "--work", str(tmp_path / "work"), "--tools", "credsweeper"]
    argv += [a.replace("{empty}", str(tmp_path / "empty")) for a in args]
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err



def test_a_neutral_look_alike_always_sits_under_a_neutral_name() -> None:
    """`Bearer {v}`, `--super-secret_token {v}` in a comment, `password='{v}'` name the value a secret: a UUID or
    hash there is a credential, so a hash, UUID, version or name of a thing goes only where a drawn key names it."""
    import random

    from bench.mf_contexts import NEUTRAL_KEYS
    from bench.multiformat_gen import plant

    neutral_words = {w for keys in NEUTRAL_KEYS.values() for key in keys for w in key}
    points = {"stmt": [(0, "    ")], "top": [(0, "")], "nb_code": [(0, "  ")], "sql": [(0, "")], "para": [(0, "")]}
    categories = set()
    for fmt, ext in (("java", "java"), ("go", "go"), ("csharp", "cs"), ("sql", "sql"), ("ipynb", "ipynb"), ("md", "md")):
        for seed in range(200):
            got = plant(random.Random(seed), fmt, ext, points, secret=False)
            if got is None:
                continue
            categories.add(got.record["category"])
            if got.record["category"] not in mf_values.SECRET_NAMED_LOOKALIKES:
                words = set(re.findall(r"[a-z0-9]+", re.sub(r"([a-z])([A-Z])", r"\1 \2", got.text).lower()))
                assert words & neutral_words, (got.record, got.text)
    assert categories > set(mf_values.SECRET_NAMED_LOOKALIKES), categories  # both kinds were drawn


# a cacerts.txt: one item a line, no paragraphs, so every unindented line is a place for notes
CERT_NOTES = ("# Trusted roots used by the test server\nIssuer: Example Root CA\n-----BEGIN CERTIFICATE-----\n"
              + "".join(f"MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ{i}\n" for i in range(8))
              + "-----END CERTIFICATE-----\nIssuer: Example Intermediate CA\nSerial: 0x1f\n")


def test_a_plant_never_goes_inside_a_certificate_kept_in_a_text_file() -> None:
    """A line inside an armoured block is base64, not a place anyone writes a password."""
    from bench.mf_points import insertion_points

    lines = CERT_NOTES.rstrip("\n").split("\n")
    begin, end = lines.index("-----BEGIN CERTIFICATE-----"), lines.index("-----END CERTIFICATE-----")
    for fmt in ("txt", "noext"):
        rows = [j for j, _ in insertion_points(fmt, lines).get("para", [])]
        assert rows and all(not begin < j <= end for j in rows), (fmt, rows)


def test_every_labelled_file_is_walked_by_a_scanner_that_honours_gitignore(tmp_path) -> None:
    """A package's .gitignore (`*.egg-info/`) is no host: in the corpus it would hide its package's
    egg-info files from smscan, which honours .gitignore in a plain folder."""
    from bench.mf_hosts import classify
    from smscan.records import Document
    from smscan.sources.worktree import iter_worktree

    files = {".gitignore": "# Distribution / packaging\nbuild/\ndist/\n*.egg-info/\n# Byte-compiled files\n__pycache__/\n*.py[cod]\n", "fixturepkg.egg-info/SOURCES.txt": "\n".join(
        f"fixturepkg/module_{i}.py" for i in range(12)) + "\n", "NOTES.txt": f"Notes\n\n{PARAGRAPHS}\n",
        "README.md": f"# Fixture\n\n{PARAGRAPHS}\n"}
    packages, pkg_dir = write_package(tmp_path, files)
    out = tmp_path / "out"
    build(packages, out, seed=1, files=9, pkg_dir=pkg_dir, split="dev")

    labelled = {json.loads(x)["path"] for x in (out / "labels.jsonl").read_text().splitlines()}
    walked = {d.path for d in iter_worktree(out / "corpus", max_file_bytes=1_000_000) if isinstance(d, Document)}
    assert "fixturepkg-1.0/fixturepkg.egg-info/SOURCES.txt" in labelled
    assert labelled <= walked
    assert classify(".gitignore", "*.egg-info/\nbuild/\n") is None


def test_pick_copies_one_type_of_several_splits_with_their_labels(tmp_path, fixture_package, capsys) -> None:
    from bench.mf_pick import main as pick_main

    packages, pkg_dir = fixture_package
    _build(packages, pkg_dir, tmp_path / "a", seed=1)
    _build(packages, pkg_dir, tmp_path / "b", seed=2)
    out = tmp_path / "picked"

    assert pick_main(["--formats", "json,ini", "--out", str(out), str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    rows = [json.loads(x) for x in (out / "labels.jsonl").read_text().splitlines()]
    assert sorted(r["path"] for r in rows) == [f"s{s}/fixturepkg-1.0/config/{n}" for s in (1, 2) for n in ("app.ini", "settings.json")]
    for row in rows:  # the spans still point at the same values in the copies
        seed, _, path = row["path"].partition("/")
        source = tmp_path / {"s1": "a", "s2": "b"}[seed]
        original = next(json.loads(x) for x in (source / "labels.jsonl").read_text().splitlines() if json.loads(x)["path"] == path)
        assert (out / "corpus" / row["path"]).read_bytes() == (source / "corpus" / path).read_bytes()
        assert row["spans"] == original["spans"] and row["negatives"] == original["negatives"]
    assert json.loads((out / "manifest.json").read_text())["secrets"] == sum(len(r["spans"]) for r in rows)

    # the same seed twice would collide; a folder that is no split is refused: one message, exit 2
    assert pick_main(["--formats", "json", "--out", str(tmp_path / "x"), str(tmp_path / "a"), str(tmp_path / "a")]) == 2
    assert pick_main(["--formats", "json", "--out", str(tmp_path / "x"), str(tmp_path)]) == 2
    everything = pick_main(["--out", str(tmp_path / "all"), str(tmp_path / "a"), str(tmp_path / "b")])
    assert everything == 0 and len((tmp_path / "all" / "labels.jsonl").read_text().splitlines()) == sum(
        len((tmp_path / s / "labels.jsonl").read_text().splitlines()) for s in "ab")
    err = capsys.readouterr().err
    assert "same seed" in err and "not a split folder" in err and "Traceback" not in err


def test_eval_counts_the_credentials_smscan_skips_by_path() -> None:
    from bench.multiformat_eval import default_skips, markdown

    def row(path: str, fmt: str, ids: list[int]) -> dict:
        return {"path": path, "ext_class": fmt, "negatives": [],
                "spans": [{"start": 0, "end": 8, "secret_id": i, "context": "json_key", "category": "password"} for i in ids]}

    rows = [row("pkg-1.0/schemas/vendor/ci.json", "json", [0, 1, 1]),  # a credential written twice counts once
            row("pkg-1.0/package-lock.json", "json", [0]), row("pkg-1.0/vendor/empty.json", "json", []),
            row("pkg-1.0/config/app.json", "json", [0, 1]), row("pkg-1.0/third_party/lib.c", "c", [0])]

    skips = default_skips(rows)

    assert skips == {"json vendored": 2, "json lockfile": 1, "c vendored": 1}
    overall = {"files": 5, "secrets": 6, "hard_negatives": 0, "char": {"precision": 1.0, "recall": 1.0, "f1": 1.0},
               "secret_recall": 1.0, "hard_negative_fp_rate": 0.0, "clean_file_fp_rate": 0.0,
               "per_negative_category": {}, "per_category": {}}
    text = markdown({"smscan": {"overall": overall, "per_format": {}, "per_context": {}}}, skips)
    assert "4 credentials lie in files smscan's default selection skips by path: c vendored 1, json lockfile 1, json vendored 2." in text


def _hand_split(root: Path) -> Path:
    """A split folder written by hand: a .gitignore hiding an egg-info file, and a note."""
    notes = "Staging notes\n\nThe service restarts at night.\n\npassword: Zq8xP1sV9kL2\nbuild id: 4f2a9c1e7b3d\n"
    files = {"pkg-1.0/.gitignore": "*.egg-info/\n", "pkg-1.0/pkg.egg-info/SOURCES.txt": "token: Hq2mW8xZ4pL7vN1k\n",
             "pkg-1.0/NOTES.txt": notes}
    for rel, text in files.items():
        (root / "corpus" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "corpus" / rel).write_text(text)
    secret = notes.index("Zq8x")
    rows = [{"path": "pkg-1.0/NOTES.txt", "ext_class": "txt", "negatives": [],
             "spans": [{"start": secret, "end": secret + 12, "category": "password", "context": "doc_colon", "secret_id": 0}]},
            {"path": "pkg-1.0/pkg.egg-info/SOURCES.txt", "ext_class": "txt", "negatives": [],
             "spans": [{"start": 7, "end": 23, "category": "api_key", "context": "doc_colon", "secret_id": 0}]}]
    (root / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def test_mf_slots_finds_unread_credentials_and_classes_slot_changes(tmp_path, capsys) -> None:
    from bench.mf_slots import diff, dump, main, unread

    split = _hand_split(tmp_path / "split")
    assert unread(split) == {"txt: ignored by a .gitignore": 1}

    after = dump([split])
    assert len(after["split/pkg-1.0/NOTES.txt"]) == 1  # the build id is a digest: no slot
    counts, lines = diff({}, after, [split])
    assert counts["+ credential doc_colon"] == 2 and lines == []  # both files' credentials
    counts, lines = diff(after, {}, [split])
    assert counts["- credential doc_colon"] == 2

    before = tmp_path / "before.json"
    before.write_text(json.dumps({"split/pkg-1.0/NOTES.txt": [[0, 7, 0.0]]}))
    (tmp_path / "after.json").write_text(json.dumps(after))
    assert main(["diff", str(before), str(tmp_path / "after.json"), str(split)]) == 0
    out = capsys.readouterr().out
    assert "- UNLABELLED split/pkg-1.0/NOTES.txt [7 chars]" in out and "Zq8xP1sV9kL2" not in out


def test_mf_slots_refuses_a_folder_without_labels_with_exit_2(tmp_path, capsys) -> None:
    from bench.mf_slots import main

    with pytest.raises(SystemExit) as exit_info:
        main(["unread", str(tmp_path)])
    assert exit_info.value.code == 2 and "holds no labels.jsonl" in capsys.readouterr().err
