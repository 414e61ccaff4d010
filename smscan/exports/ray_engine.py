"""`smscan export --engine ray`: the same export on Ray Data (``pip install 'smscan[ray]'``).

Data flow (one Ray Data pipeline, streamed)::

    read: one task on the driver's node (with ``ray://``: the head node, see ``RayCluster``)
          reads the source exactly as the local engine does
          (same parser, same rejects, --two-pass, ``stages.contiguous``, ``job.not_done``) and
          cuts the stream into *group chunks* with ``stages.buffer_groups``: a group's records
          plus the rejects read while it was open
    map_batches: an actor pool (``ActorPoolStrategy(size=workers)``, ``num_gpus`` per actor when
          asked), each actor holding one reference model, masks the chunks of a batch with the
          local engine's ``export_groups``: the same stage functions score, mask, propagate and
          lay records out
    driver: receives finished groups in input order and writes them through the local engine's
          atomic, resumable writer (same files, same reject file, same state file)

Why chunks are cut by the reader, not with ``groupby().map_groups()``: duplicate
propagation needs a whole group in one actor call, and a chunk is one row, so a group can never
be split across batches; a Ray groupby would shuffle (materialise) the whole input and lose input
order, while the streaming read keeps memory flat and order fixed. Reading is one sequential task
(it is cheap beside scoring); only the model work is spread.

Ray is imported only here and in ``ray_cluster.py`` (where it runs), only when an export runs on it.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from smscan.errors import SmscanError
from smscan.exports.job import (
    ExportSource,
    ScorerRecipe,
    iter_source,
    not_done,
    open_writer,
)
from smscan.exports.masked import (
    ExportPlan,
    ExportStats,
    GroupOutput,
    export_groups,
    record_group,
    scattered_record,
)
from smscan.exports.ray_cluster import (
    RayCluster,
    actors_that_fit,
    check_room,
    connect,
    plain_error,
    quiet_ordered_data_context,
    require_ray,
    smscan_cause,
)
from smscan.model.scorer import Scorer
from smscan.records import DatasetRecord, Rejected
from smscan.stages import buffer_groups, contiguous

# Chunks per read block and per actor call: with one record per group this is the local
# engine's 16-record scoring batch; large groups are one chunk each anyway.
_CHUNKS_PER_BATCH = 16

Chunk = list[DatasetRecord | Rejected]


def group_chunks(items: Iterable[DatasetRecord | Rejected], *, check_contiguous: bool) -> Iterator[Chunk]:
    """Cut a record stream into whole groups with the stages ``export_groups`` runs
    (``stages.contiguous`` and ``stages.buffer_groups`` with ``record_group``), so each chunk
    yields exactly one ``GroupOutput`` with the same ``consumed`` as locally.

    Args:
        items: records and rejects in input order.
        check_contiguous: refuse a group key that reappears after another group.

    Yields:
        Each group's items (records and rejects), in input order.

    Raises:
        SourceError: a group key reappears after another group (``check_contiguous``).

    Example:
        >>> from smscan.sources.datasets import records_from_texts
        >>> [len(c) for c in group_chunks(records_from_texts(["a", "b", "c"], groups=["x", "x", "y"]), check_contiguous=True)]
        [2, 1]
    """
    stream = contiguous(items, record_group, scattered_record) if check_contiguous else items
    yield from buffer_groups(stream, record_group)


def _read_blocks(source: ExportSource, done: int) -> Iterator[Any]:
    """The read task: rows ``(seq, payload, end)``; the last row carries the skip counters."""
    import pyarrow as pa  # type: ignore[import-not-found,import-untyped,unused-ignore]

    stats = ExportStats()
    records = iter_source(source, stats)
    items = not_done(records, done)
    rows: list[bytes] = []
    seq = 0

    def block(payloads: list[bytes], first: int, end: bool) -> Any:
        return pa.table({
            "seq": pa.array(range(first, first + len(payloads)), pa.int64()),
            "payload": pa.array(payloads, pa.binary()),
            "end": pa.array([end] * len(payloads), pa.bool_()),
        })

    try:
        for chunk in group_chunks(items, check_contiguous=source.documents is None):
            rows.append(pickle.dumps(chunk, protocol=pickle.HIGHEST_PROTOCOL))
            if len(rows) >= _CHUNKS_PER_BATCH:
                yield block(rows, seq, False)
                seq += len(rows)
                rows = []
    finally:
        records.close()
    if rows:
        yield block(rows, seq, False)
        seq += len(rows)
    yield block([pickle.dumps(dict(stats.skipped))], seq, True)


def _datasource(source: ExportSource, done: int) -> Any:
    from ray.data import Datasource, ReadTask  # type: ignore[import-not-found,import-untyped,unused-ignore]
    from ray.data.block import BlockMetadata  # type: ignore[import-not-found,import-untyped,unused-ignore]

    class GroupChunkSource(Datasource):  # type: ignore[misc,unused-ignore]
        """One ordered read task: the input is read sequentially, as the local engine reads it."""

        def estimate_inmemory_data_size(self) -> int | None:
            return None

        def get_read_tasks(self, parallelism: int, per_task_row_limit: int | None = None, data_context: Any = None) -> list[Any]:
            metadata = BlockMetadata(num_rows=None, size_bytes=None, exec_stats=None, input_files=None)
            return [ReadTask(partial(_read_blocks, source, done), metadata)]

    return GroupChunkSource()  # type: ignore[no-untyped-call,unused-ignore]


class GroupMasker:
    """The actor of the pool: loads the reference model once, then masks batches of chunks.

    Args:
        make_scorer: builds the scorer inside the actor (``ScorerRecipe`` or any picklable
            zero-argument callable returning a ``Scorer``).
        plan: what to mask and write.
    """

    def __init__(self, make_scorer: Callable[[], Scorer], plan: ExportPlan) -> None:
        self.plan = plan
        self.model: dict[str, Any] = {}
        # A model that cannot load is raised from the first call: Ray reports an error in a
        # constructor as a dead actor whose message is a traceback, but a call's error with its
        # original exception, which the driver turns back into one line.
        self.error: SmscanError | None = None
        try:
            self.scorer = make_scorer()
        except SmscanError as error:
            self.error = error
            return
        describe = getattr(self.scorer, "describe", None)
        self.model = dict(describe()) if describe else {"fingerprint": self.scorer.fingerprint}

    def __call__(self, batch: Any) -> Any:
        import pyarrow as pa  # type: ignore[import-not-found,import-untyped,unused-ignore]

        if self.error is not None:
            raise self.error
        payloads = batch.column("payload").to_pylist()
        ends = batch.column("end").to_pylist()
        chunks: list[Chunk] = [pickle.loads(p) for p, end in zip(payloads, ends) if not end]
        # One export_groups call over the whole batch: records of small groups share scoring
        # batches as they do locally; groups are already whole, so no contiguity check here.
        items = [item for chunk in chunks for item in chunk]
        groups = iter(export_groups(items, self.scorer, self.plan, model=self.model, check_contiguous=False))
        out: list[bytes] = []
        for payload, end in zip(payloads, ends):
            if end:
                out.append(payload)
                continue
            group = next(groups, None)
            if group is None:  # would mean export_groups split chunks differently: a bug
                raise RuntimeError("ray export: fewer finished groups than chunks")
            out.append(pickle.dumps(group, protocol=pickle.HIGHEST_PROTOCOL))
        return pa.table({"seq": batch.column("seq"), "payload": pa.array(out, pa.binary()), "end": batch.column("end")})


@dataclass(slots=True)
class _InOrder:
    """Hands on results in ``seq`` order whatever order they arrive in."""

    next_seq: int = 0
    waiting: dict[int, tuple[bytes, bool]] = field(default_factory=dict)

    def push(self, seq: int, payload: bytes, end: bool) -> Iterator[tuple[bytes, bool]]:
        self.waiting[seq] = (payload, end)
        while self.next_seq in self.waiting:
            yield self.waiting.pop(self.next_seq)
            self.next_seq += 1


def run_ray_export(
    source: ExportSource,
    make_scorer: Callable[[], Scorer],
    plan: ExportPlan,
    *,
    output: Path,
    rejects: Path,
    resume: bool,
    options: dict[str, Any],
    fingerprint: str,
    cluster: RayCluster,
    on_group: Callable[[GroupOutput, ExportStats], None] | None = None,
) -> ExportStats:
    """Export ``source`` to ``output`` on Ray Data; the output equals the local engine's.

    Args:
        source: the input (read by one task on the driver's node).
        make_scorer: picklable; each actor calls it once to load its model.
        plan: what to mask and write (shipped to every actor).
        output: the JSONL (or Parquet) file to write, atomically.
        rejects: where rejected records go.
        resume: continue an interrupted export with the same ``options`` and ``fingerprint``;
            the state file is the local engine's, so one started by ``run_export`` resumes here
            when both match. (The CLI puts each engine's scoring settings in ``options``, so
            there an export resumes only with the engine that started it.)
        options: everything that changes the output, for the resume check.
        fingerprint: the reference model's fingerprint, for the resume check.
        cluster: where to run and how many actors.
        on_group: called after each group is written (progress).

    Returns:
        The counters of this run.

    Raises:
        SmscanError: Ray is missing or cannot start or connect; the cluster cannot hold
            ``cluster.workers`` actors of one CPU and ``cluster.gpus_per_worker`` GPUs (Ray
            would wait for them forever); any error the local engine raises (unreadable input,
            non-contiguous groups, model loading, output).

    Example:
        >>> run_ray_export(ExportSource(Path("in.jsonl")), ScorerRecipe(device="cpu"), plan,  # doctest: +SKIP
        ...     output=Path("out.jsonl"), rejects=Path("rej.jsonl"), resume=False, options={},
        ...     fingerprint=fp, cluster=RayCluster(workers=2))
    """
    ray = require_ray()
    writer, stats = open_writer(
        source, output=output, rejects=rejects, resume=resume, options=options, model={"fingerprint": fingerprint}
    )
    started_here = False
    try:
        started_here = connect(ray, cluster)
        check_room(ray, cluster)
        # Entered and left here, not inside the _results generator: the settings and the
        # warning filter would otherwise stay changed while this loop runs between batches
        # and be restored whenever the generator happened to be closed.
        with quiet_ordered_data_context():
            for payload, end in _results(ray, source, writer.done, make_scorer, plan, cluster):
                if end:
                    for reason, count in pickle.loads(payload).items():
                        stats.skipped[reason] = stats.skipped.get(reason, 0) + count
                    continue
                group: GroupOutput = pickle.loads(payload)
                stats.add(group)
                writer.write_group(group.records, group.rejected, done=group.consumed, totals=stats.totals())
                if on_group is not None:
                    on_group(group, stats)
    except BaseException as error:
        writer.close()
        cause = smscan_cause(error)
        if cause is not None:
            raise plain_error(cause) from None
        raise
    finally:
        if started_here:
            ray.shutdown()
    writer.finish()
    return stats


def _results(
    ray: Any, source: ExportSource, done: int, make_scorer: Callable[[], Scorer], plan: ExportPlan, cluster: RayCluster
) -> Iterator[tuple[bytes, bool]]:
    from ray.data import ActorPoolStrategy  # type: ignore[import-not-found,import-untyped,unused-ignore]

    # The read task runs on the driver's node, so input paths mean what they mean here (with a
    # Ray client, the driver is on the head node: see RayCluster). It takes no CPU slot, else
    # actors holding every CPU of a small machine would starve it.
    here = {"ray.io/node-id": ray.get_runtime_context().get_node_id()}  # every node has this label
    dataset = ray.data.read_datasource(_datasource(source, done), num_cpus=0, label_selector=here)
    resources: dict[str, Any] = {"num_cpus": 1}  # check_room counts one CPU per actor
    if cluster.gpus_per_worker:
        resources["num_gpus"] = cluster.gpus_per_worker
    masked = dataset.map_batches(
        GroupMasker,
        fn_constructor_args=(make_scorer, plan),
        batch_size=_CHUNKS_PER_BATCH,
        batch_format="pyarrow",
        compute=ActorPoolStrategy(size=cluster.workers),
        **resources,
    )
    order = _InOrder()
    # batch_size=None: Ray Data's blocks as they come, _CHUNKS_PER_BATCH groups each
    for batch in masked.iter_batches(batch_size=None, batch_format="pyarrow"):
        for seq, payload, end in zip(
            batch.column("seq").to_pylist(), batch.column("payload").to_pylist(), batch.column("end").to_pylist()
        ):
            yield from order.push(seq, payload, end)




__all__ = ["GroupMasker", "RayCluster", "ScorerRecipe", "actors_that_fit", "group_chunks", "require_ray", "run_ray_export"]
