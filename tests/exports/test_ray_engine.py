"""`smscan export --engine ray` on a local Ray instance (2 CPUs) gives the local engine's files.

Ray starts once for the module (several seconds); every export joins it. Actors build their
scorer in their own process, so scorers are named by picklable recipes: the tiny random-init model
saved to a folder (a real TransformersScorer), or a scorer class importable from this module.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import ray
import ray.data

from smscan.cli import main
from smscan.errors import InvalidValue, ModelError, SmscanError, SourceError
from smscan.exports.job import ExportSource, ScorerRecipe, run_export
from smscan.exports.labels import DownstreamLabeler
from smscan.exports.plan import ExportPlan
from smscan.exports.ray_cluster import RayCluster, actors_that_fit
from smscan.exports.ray_engine import run_ray_export
from smscan.exports.ray_read import group_chunks
from smscan.engine.masking import MaskRule
from smscan.sources.datasets import RecordFormat, iter_dataset
from tests.conftest import commit_files
from tests.scorers import RandomWordScorer, score_each_planned_group

REPO = Path(__file__).resolve().parents[2]
KEY = "aZ3kQ9xL2mP8vR4tY7wB1nC6"


@pytest.fixture(scope="module", autouse=True)
def local_ray() -> Iterator[None]:
    """One local Ray with 2 CPUs for the module; workers import ``tests`` from the checkout."""
    ray.init(
        num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
        runtime_env={"env_vars": {"PYTHONPATH": str(REPO)}},
    )
    yield
    ray.shutdown()


class NewKeyScorer(RandomWordScorer):
    """Random words are surprising only in texts holding ``#new``: their repeats elsewhere
    in a group are masked by duplicate propagation alone."""

    def score_texts(self, texts):
        out = super().score_texts(texts)
        for text, scores in zip(texts, out):
            if "#new" not in text:
                scores.nll[scores.nll > 5] = 1.0
        return out


def write_jsonl(path: Path, lines: list[object]) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")
    return path


def fixture_lines() -> list[object]:
    """Groups of several sizes, a chat, rejects (one before any record), more than one batch."""
    lines: list[object] = ["not json {"]
    lines += [{"text": f"#new\nvalue = '{KEY}'\n", "u": "a"}, {"text": f"#old\nvalue = '{KEY}'\n", "u": "a"}]
    lines += [{"text": f"#old\nvalue = '{KEY}'\n", "u": "b"}, {"text": 7, "u": "b"}]
    lines += [{"messages": [{"role": "user", "content": f"key {KEY}"},
                            {"role": "assistant", "content": f"#new stored {KEY} ok"}], "u": "c"}]
    lines += [{"text": f"def f{i}(x):\n    return x + {i}\n", "u": f"g{i}"} for i in range(30)]
    lines += [{"text": f"#new n = {i}\ntoken = 'Q{i}x{KEY}'\n", "u": "big"} for i in range(20)]
    lines += [{"text": "no group here"}]
    return lines


def test_group_chunks_cut_where_the_local_engine_finishes_groups(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", fixture_lines())
    chunks = list(group_chunks(iter_dataset(source, RecordFormat(group_by="u")), check_contiguous=True))
    sizes = [len(chunk) for chunk in chunks]
    # leading reject joins group a; the mistyped record joins b; the record without u ends the last
    assert sizes[:3] == [3, 2, 1] and sizes[3:-1] == [1] * 30 and sizes[-1] == 21
    assert [item.index for chunk in chunks for item in chunk] == list(range(len(fixture_lines())))
    scattered = write_jsonl(tmp_path / "s.jsonl", [{"text": "x", "u": 1}, {"text": "y", "u": 2}, {"text": "z", "u": 1}])
    with pytest.raises(SourceError, match="group '1' appeared earlier"):
        list(group_chunks(iter_dataset(scattered, RecordFormat(group_by="u")), check_contiguous=True))


def _export_both(
    tmp_path: Path, source: Path, make_scorer, *, fmt: RecordFormat, plan: ExportPlan | None = None, workers: int = 2
) -> tuple[Path, Path]:
    plan = plan or ExportPlan(MaskRule(threshold=3.0))
    local, remote = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    scorer = make_scorer()
    run_export(ExportSource(source, fmt), scorer, plan, output=local, rejects=tmp_path / "local.rej.jsonl",
               resume=False, options={}, model=scorer.describe())
    run_ray_export(ExportSource(source, fmt), make_scorer, plan, output=remote, rejects=tmp_path / "ray.rej.jsonl",
                   resume=False, options={}, fingerprint=scorer.fingerprint, cluster=RayCluster(workers=workers))
    return local, remote


def test_ray_export_equals_the_local_one_and_propagates_within_groups(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", fixture_lines())
    context = ray.data.DataContext.get_current()
    before = (context.execution_options.preserve_order, context.enable_progress_bars)
    local, remote = _export_both(tmp_path, source, NewKeyScorer, fmt=RecordFormat(group_by="u"))
    assert (context.execution_options.preserve_order, context.enable_progress_bars) == before  # restored
    assert remote.read_bytes() == local.read_bytes()
    assert (tmp_path / "ray.rej.jsonl").read_bytes() == (tmp_path / "local.rej.jsonl").read_bytes()
    records = [json.loads(line) for line in remote.read_text().splitlines()]
    spans = [r["smscan"]["masked_spans"] for r in records]
    assert spans[0] and spans[1] and not spans[2]  # the repeat in group a only, by propagation
    assert records[3]["smscan"]["masked_spans"][0][0] == 1  # chat spans name the message
    rejects = [json.loads(line) for line in (tmp_path / "ray.rej.jsonl").read_text().splitlines()]
    assert [r["index"] for r in rejects] == [0, 4, 56]


def test_ray_masks_values_whole_like_the_local_engine(tmp_path: Path) -> None:
    # The default export's value-aware masking runs in the shared stage on both engines.
    source = write_jsonl(tmp_path / "in.jsonl", fixture_lines())
    plan = ExportPlan(MaskRule(threshold=12.0), value_threshold=0.5)
    local, remote = _export_both(tmp_path, source, NewKeyScorer, fmt=RecordFormat(group_by="u"), plan=plan)
    assert remote.read_bytes() == local.read_bytes()
    records = [json.loads(line) for line in remote.read_text().splitlines()]
    texts = [r["text"] for r in records[:3]]
    # The key exactly, where it is surprising (#new) and at its repeat in group a; not in group b.
    assert [[t[a:b] for a, b in r["smscan"]["masked_spans"]] for t, r in zip(texts, records)] == [[KEY], [KEY], []]
    assert records[0]["smscan"]["rule"]["surprise"]["masking"] == "values"


def test_ray_two_pass_regroups_scattered_groups_like_the_local_engine(tmp_path: Path) -> None:
    lines = fixture_lines()
    scattered = lines[1:3] + lines[6:9] + lines[3:6] + [dict(lines[1], text=f"#old again '{KEY}'\n")]
    source = write_jsonl(tmp_path / "in.jsonl", scattered)
    fmt = RecordFormat(group_by="u")
    plan = ExportPlan(MaskRule(threshold=3.0))
    local, remote = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    run_export(ExportSource(source, fmt, two_pass=True), NewKeyScorer(), plan, output=local,
               rejects=tmp_path / "l.rej", resume=False, options={}, model=NewKeyScorer().describe())
    run_ray_export(ExportSource(source, fmt, two_pass=True), NewKeyScorer, plan, output=remote,
                   rejects=tmp_path / "r.rej", resume=False, options={}, fingerprint="f", cluster=RayCluster(workers=2))
    assert remote.read_bytes() == local.read_bytes()
    assert [json.loads(line)["u"] for line in remote.read_text().splitlines()][:3] == ["a", "a", "a"]


def test_ray_redacts_like_the_local_engine(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", fixture_lines())
    plan = ExportPlan(MaskRule(threshold=3.0), mode="redact")
    local, remote = _export_both(tmp_path, source, NewKeyScorer, fmt=RecordFormat(group_by="u"), plan=plan)
    assert remote.read_bytes() == local.read_bytes()
    assert "<MASKED>" in remote.read_text() and KEY not in json.loads(remote.read_text().splitlines()[0])["text"]


def test_cli_ray_exports_a_repository_like_the_local_engine(git_repo: Path, tiny_model_dir: Path, tmp_path: Path, capsys) -> None:
    commit_files(git_repo, {"a.py": f"KEY = '{KEY}'\n", "b.py": f"use('{KEY}')\n", "c.bin": b"\x00\x01"})
    common = ["--model", str(tiny_model_dir), "--device", "cpu", "--deterministic", "--threshold", "5.85"]
    assert main(["export", str(git_repo), "-o", str(tmp_path / "local.jsonl"), *common]) == 0
    assert main(["export", str(git_repo), "-o", str(tmp_path / "ray.jsonl"), *common, "--engine", "ray"]) == 0
    err = capsys.readouterr().err
    assert (tmp_path / "ray.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    assert err.count("skipped files: binary 1") == 2  # the read task's skip counts reach the summary


def test_ray_actors_load_a_real_model_from_a_recipe(tmp_path: Path, tiny_model_dir: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", fixture_lines())
    recipe = ScorerRecipe(str(tiny_model_dir), device="cpu", dtype="fp32", batch_size=1)
    # The tiny random model's window means are 5.6-6.0 nats: 5.85 masks some windows, not all.
    # The downstream labeler (a tokenizer) travels to the actors inside the plan.
    plan = ExportPlan(MaskRule(threshold=5.85), labeler=DownstreamLabeler(str(tiny_model_dir)))
    local, remote = _export_both(tmp_path, source, recipe, fmt=RecordFormat(group_by="u"), plan=plan)
    assert remote.read_bytes() == local.read_bytes()
    records = [json.loads(line) for line in remote.read_text().splitlines()]
    assert records[0]["smscan"]["model"]["name"] == str(tiny_model_dir)
    fractions = [r["smscan"]["masked_fraction"] for r in records]
    assert 0 < sum(fractions) < len(fractions)  # the random model masks some, not everything
    assert all(-100 in r["labels"] and len(r["labels"]) == len(r["input_ids"]) for r in records if r["smscan"]["masked_spans"])


def test_ray_resumes_an_interrupted_export(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    score_each_planned_group(monkeypatch)
    source = write_jsonl(tmp_path / "in.jsonl", fixture_lines())
    plan, fmt = ExportPlan(MaskRule(threshold=3.0)), RecordFormat(group_by="u")
    whole = tmp_path / "whole.jsonl"
    run_export(ExportSource(source, fmt), RandomWordScorer(), plan, output=whole, rejects=tmp_path / "w.rej",
               resume=False, options={}, model=RandomWordScorer().describe())

    class Interrupted(RandomWordScorer):
        calls = 0

        def score_texts(self, texts):
            Interrupted.calls += 1
            if Interrupted.calls > 3:
                raise KeyboardInterrupt
            return super().score_texts(texts)

    out = tmp_path / "out.jsonl"
    with pytest.raises(KeyboardInterrupt):
        run_export(ExportSource(source, fmt), Interrupted(), plan, output=out, rejects=tmp_path / "o.rej",
                   resume=False, options={}, model=RandomWordScorer().describe())
    assert not out.exists()
    stats = run_ray_export(ExportSource(source, fmt), RandomWordScorer, plan, output=out, rejects=tmp_path / "o.rej",
                           resume=True, options={}, fingerprint=RandomWordScorer.fingerprint, cluster=RayCluster())
    assert stats.resumed > 0
    assert out.read_bytes() == whole.read_bytes()


def test_an_actor_that_cannot_load_its_model_is_one_error(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": "x = 1\n"}])
    with pytest.raises(ModelError) as raised:
        run_ray_export(ExportSource(source), ScorerRecipe(str(tmp_path / "no-model"), device="cpu"),
                       ExportPlan(MaskRule()), output=tmp_path / "o.jsonl", rejects=tmp_path / "r.jsonl",
                       resume=False, options={}, fingerprint="f", cluster=RayCluster())
    assert str(raised.value) == f"model folder '{tmp_path / 'no-model'}' does not exist"
    assert not (tmp_path / "o.jsonl").exists()


def test_an_empty_input_gives_an_empty_output(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [])
    local, remote = _export_both(tmp_path, source, RandomWordScorer, fmt=RecordFormat())
    assert remote.read_bytes() == local.read_bytes() == b""


def test_cli_ray_engine_with_the_tiny_model(tmp_path: Path, tiny_model_dir: Path, capsys) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", fixture_lines()[:12])
    common = ["--model", str(tiny_model_dir), "--device", "cpu", "--deterministic", "--group-by", "u",
              "--threshold", "5.85"]
    assert main(["export", str(source), "-o", str(tmp_path / "local.jsonl"), *common]) == 1
    code = main(["export", str(source), "-o", str(tmp_path / "ray.jsonl"), *common, "--engine", "ray", "--workers", "2"])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "rejected 2 records" in err
    assert (tmp_path / "ray.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    assert (tmp_path / "ray.jsonl.rejects.jsonl").read_bytes() == (tmp_path / "local.jsonl.rejects.jsonl").read_bytes()


def test_cli_ray_reports_a_scattered_group_as_one_message(tmp_path: Path, tiny_model_dir: Path, capsys) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": "x", "u": 1}, {"text": "y", "u": 2}, {"text": "z", "u": 1}])
    code = main(["export", str(source), "-o", str(tmp_path / "o.jsonl"), "--model", str(tiny_model_dir),
                 "--device", "cpu", "--group-by", "u", "--engine", "ray"])
    err = capsys.readouterr().err
    assert code == 2
    assert "group '1' appeared earlier" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o.jsonl").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--engine", "spark"], "--engine must be local or ray"),
        (["--workers", "2"], "add --engine ray"),
        (["--engine", "ray", "--workers", "0"], "--workers must be at least 1"),
        (["--engine", "ray", "--gpus-per-worker", "-1"], "--gpus-per-worker must be 0 or more"),
        (["--engine", "ray", "--gpus-per-worker", "nan"], "'nan' is not a finite number"),
        (["--engine", "ray", "--gpus-per-worker", "inf"], "'inf' is not a finite number"),
        (["--engine", "ray", "--gpus-per-worker", "1.5"], "above 1 must be a whole number"),
        (["--engine", "ray", "--gpus-per-worker", "0.00001"], "at least 0.0001"),
        (["--engine", "ray", "--labels", "labels.jsonl"], "--labels runs with --engine local"),
    ],
)
def test_cli_bad_engine_options_exit_2(tmp_path: Path, capsys, args: list[str], message: str) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": "x"}])
    code = main(["export", str(source), "-o", str(tmp_path / "o.jsonl"), *args])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("cluster", "message"),
    [
        (RayCluster(gpus_per_worker=1), "Ray actors (workers 1, gpus_per_worker 1) need 1 CPU(s) and 1 GPU(s) (each actor's on one node); "
                                        "the Ray cluster has 2 CPU(s) and 0 GPU(s) on 1 node(s): use fewer workers or fewer GPUs per worker"),
        (RayCluster(workers=2, gpus_per_worker=0.25), "need 2 CPU(s) and 0.5 GPU(s)"),
        (RayCluster(workers=3), "Ray actors (workers 3) need 3 CPU(s); the Ray cluster has 2 CPU(s) and 0 GPU(s) on 1 node(s): use fewer workers"),
    ],
)
def test_actors_the_cluster_cannot_hold_are_refused_not_waited_for(tmp_path: Path, cluster: RayCluster, message: str) -> None:
    # The module's Ray has 2 CPUs and no GPU: without the check Ray would wait forever.
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": "x = 1\n"}])
    with pytest.raises(SmscanError) as raised:
        run_ray_export(ExportSource(source), RandomWordScorer, ExportPlan(MaskRule()), output=tmp_path / "o.jsonl",
                       rejects=tmp_path / "r.jsonl", resume=False, options={}, fingerprint="f", cluster=cluster)
    assert message in str(raised.value) and "\n" not in str(raised.value)
    assert not (tmp_path / "o.jsonl").exists()


def test_cli_gpu_actors_without_a_gpu_exit_2(tmp_path: Path, tiny_model_dir: Path, capsys) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": "x"}])
    code = main(["export", str(source), "-o", str(tmp_path / "o.jsonl"), "--model", str(tiny_model_dir),
                 "--device", "cpu", "--engine", "ray", "--gpus-per-worker", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "the Ray cluster has 2 CPU(s) and 0 GPU(s)" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("nodes", "gpus_per_worker", "room"),
    [
        ([{"CPU": 2.0}], 0, 2),
        ([{"CPU": 2.0}], 1, 0),
        ([{"CPU": 8.0, "GPU": 1.0}], 0.25, 4),
        ([{"CPU": 2.0, "GPU": 1.0}], 0.25, 2),  # CPUs bound it
        ([{"CPU": 8.0, "GPU": 3.0}], 2, 1),  # two GPUs of one node per actor
        ([{"CPU": 16.0, "GPU": 4.0}], 0.3, 12),  # three per GPU, never one across two GPUs
        ([{"CPU": 8.0}, {"CPU": 1.0, "GPU": 4.0}], 1, 1),  # totals 9 CPUs, 4 GPUs, but one node each
    ],
)
def test_actors_that_fit_count_node_by_node(nodes: list[dict[str, float]], gpus_per_worker: float, room: int) -> None:
    assert actors_that_fit(nodes, gpus_per_worker=gpus_per_worker) == room


def test_cli_without_ray_says_how_to_install_it(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError
    monkeypatch.setitem(sys.modules, "ray.data", None)
    source = write_jsonl(tmp_path / "in.jsonl", [{"text": "x"}])
    code = main(["export", str(source), "-o", str(tmp_path / "o.jsonl"), "--engine", "ray"])
    err = capsys.readouterr().err
    assert code == 2 and "pip install 'smscan[ray]'" in err


def test_cluster_options_are_validated_in_library_terms() -> None:
    # The library names its parameter; the CLI maps it to --workers (test_cli_bad_engine_options_exit_2).
    with pytest.raises(InvalidValue, match="^workers must be at least 1") as raised:
        RayCluster(workers=0)
    assert raised.value.name == "workers"
    with pytest.raises(SmscanError, match="got nan"):
        RayCluster(gpus_per_worker=float("nan"))


def test_a_local_export_does_not_import_ray(tmp_path: Path) -> None:
    import subprocess

    source = write_jsonl(tmp_path / "in.jsonl", [{"text": f"k = '{KEY}'\n"}])
    probe = (
        "import sys\n"
        "from tests.scorers import install_fake_scorer\n"
        "install_fake_scorer()\n"
        "from smscan.cli import main\n"
        f"code = main(['export', {str(source)!r}, '-o', {str(tmp_path / 'o.jsonl')!r}, '--threshold', '3'])\n"
        "print('RAY', 'ray' in sys.modules, code)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=False)
    assert "RAY False 0" in out.stdout, out.stdout + out.stderr


def test_ci_and_readme_install_every_extra_with_the_same_command() -> None:
    import re

    import tomllib

    extras = set(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    readme = re.search(r"pip install -e '\.\[([a-z,]+)\]' && python -m pytest -q", (REPO / "README.md").read_text())
    ci = (REPO / ".ci" / "run").read_text()
    assert readme is not None
    installed = set(readme.group(1).split(","))
    assert f"pip install --quiet -e '.[{readme.group(1)}]'" in ci and "\npython -m pytest -q\n" in ci
    # test pulls in the plot and parquet extras' packages; bench (scikit-learn) serves only
    # bench/judgement_train.py, which no test runs; every other extra is named
    assert extras - {"plot", "parquet", "bench"} <= installed


@pytest.mark.model
def test_real_model_ray_export_equals_the_local_one(tmp_path: Path, capsys) -> None:
    from smscan.model.pull import pull_default_model

    pull_default_model()
    lines = [
        {"text": f"import os\n\nAPI_TOKEN = '{KEY}'\n", "repo": "a"},
        {"text": f"def token():\n    return '{KEY}'\n", "repo": "a"},
        {"text": "def add(a, b):\n    return a + b\n", "repo": "b"},
        {"messages": [{"role": "user", "content": "a key?"}, {"role": "assistant", "content": f"use {KEY}"}], "repo": "c"},
    ]
    source = write_jsonl(tmp_path / "in.jsonl", lines)
    common = ["--device", "cpu", "--deterministic", "--threshold", "3.8", "--group-by", "repo"]
    assert main(["export", str(source), "-o", str(tmp_path / "local.jsonl"), *common]) == 0
    code = main(["export", str(source), "-o", str(tmp_path / "ray.jsonl"), *common, "--engine", "ray", "--workers", "2"])
    assert code == 0, capsys.readouterr().err
    assert (tmp_path / "ray.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    records = [json.loads(line) for line in (tmp_path / "ray.jsonl").read_text().splitlines()]
    assert records[0]["smscan"]["masked_spans"] and records[0]["smscan"]["model"]["dtype"] == "fp32"
