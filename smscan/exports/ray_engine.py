"""`smscan export --engine ray`: the same export on Ray Data (``pip install 'smscan[ray]'``).

Data flow (one Ray Data pipeline, streamed)::

    read: one task on the driver's node (with ``ray://``: the head node, see ``RayCluster``)
          reads the source exactly as the local engine does
          (same parser, same rejects, --two-pass, the contiguity check, resume skip) and cuts the
          stream into *group chunks*: a group's records plus the rejects read while it was open
    map_batches: an actor pool (``ActorPoolStrategy(size=workers)``, ``num_gpus`` per actor when
          asked), each actor holding one reference model, masks the chunks of a batch with the
          local engine's ``export_groups``: scoring, masking, propagation and record layout are
          one code
    driver: receives finished groups in input order and writes them through the local engine's
          atomic, resumable writer (same files, same reject file, same state file)

Why chunks are cut by the reader, not with ``groupby().map_groups()``: duplicate
propagation needs a whole group in one actor call, and a chunk is one row, so a group can never
be split across batches; a Ray groupby would shuffle (materialise) the whole input and lose input
order, while the streaming read keeps memory flat and order fixed. Reading is one sequential task
(it is cheap beside scoring); only the model work is spread.

Ray is imported only in this module, and only when an export runs on it.
"""

from __future__ import annotations

import logging
import math
import pickle
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from smscan.errors import SmscanError
from smscan.exports.job import ExportSource, iter_source, not_done, open_writer
from smscan.exports.masked import (
    ExportPlan,
    ExportStats,
    GroupOutput,
    export_groups,
    record_group,
    scattered_group,
)
from smscan.model.scorer import Scorer
from smscan.records import DatasetRecord, Rejected
from smscan.stages import buffer_groups, contiguous

INSTALL_HINT = "pip install 'smscan[ray]'"
# Chunks per read block and per actor call: with one record per group this is the local
# engine's 16-record scoring batch; large groups are one chunk each anyway.
_CHUNKS_PER_BATCH = 16
_RAY_RETRY_ADVICE = "\nFailed to apply UDF transform"
_GPU_PRECISION = 0.0001  # Ray refuses finer fractions of a resource

Chunk = list[DatasetRecord | Rejected]


@dataclass(frozen=True, slots=True)
class ScorerRecipe:
    """How an export builds its scorer: a picklable ``load_scorer`` call, made by each Ray actor
    (the model is loaded there, never shipped from the driver) or by the local engine."""

    model: str | None = None
    device: str = "auto"
    dtype: str = "auto"
    batch_size: int | None = None
    threads: int = 0  # 0: the runtime's default; Ray sets OMP_NUM_THREADS to the actor's CPUs
    runtime: str = "auto"

    def __call__(self) -> Scorer:
        from smscan.model.load import load_scorer

        return load_scorer(
            self.model, device=self.device, dtype=self.dtype, batch_size=self.batch_size,
            threads=self.threads, runtime=self.runtime, pull_if_missing=True,
        )


@dataclass(frozen=True, slots=True)
class RayCluster:
    """Where the export runs and how many model actors it starts.

    Attributes:
        address: None starts a local Ray instance (stopped at the end); ``auto`` joins the
            cluster this machine belongs to; ``ray://HOST:10001`` connects a Ray client. An
            already initialised Ray (``ray.init`` in the caller) is used as it is. With a Ray
            client the read task is pinned to the node Ray reports as the driver's, which for a
            client is the head node (its client server runs the driver there): the input path
            must exist on the head node, while the checks before the export (the input exists,
            resume) and the writing of the output run in this process. Never run on a cluster.
        workers: model actors (each loads the reference model once and reserves one CPU).
        gpus_per_worker: GPUs reserved per actor (0: CPU actors). Fractions below 1 pack
            actors on one GPU; above 1, whole numbers only.
        num_cpus: CPUs of a local instance (None: all of this machine's).
    """

    address: str | None = None
    workers: int = 1
    gpus_per_worker: float = 0.0
    num_cpus: int | None = None

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise SmscanError(f"--workers must be at least 1, got {self.workers}")
        gpus = self.gpus_per_worker
        if not math.isfinite(gpus) or gpus < 0:
            raise SmscanError(f"--gpus-per-worker must be 0 or more, got {gpus}")
        if gpus > 1 and not gpus.is_integer():
            raise SmscanError(f"--gpus-per-worker above 1 must be a whole number (Ray splits one GPU only), got {gpus}")
        if 0 < gpus < _GPU_PRECISION:
            raise SmscanError(f"--gpus-per-worker must be 0 or at least {_GPU_PRECISION} (Ray's precision), got {gpus}")


def actors_that_fit(nodes: Iterable[Mapping[str, float]], *, gpus_per_worker: float) -> int:
    """How many actors of one CPU and ``gpus_per_worker`` GPUs the nodes hold at most.

    An actor's CPU and GPUs are on one node, and a fraction of a GPU is a fraction of one GPU,
    so this counts node by node, and GPU by GPU for fractions, as Ray's scheduler places them.

    Args:
        nodes: each alive node's total resources (``ray.nodes()[i]["Resources"]``).
        gpus_per_worker: GPUs per actor (0: CPU only).

    Returns:
        The number of actors that can run at once when the cluster is otherwise idle.

    Example:
        >>> actors_that_fit([{"CPU": 8.0, "GPU": 2.0}, {"CPU": 4.0}], gpus_per_worker=0.5)
        4
    """
    room = 0
    for resources in nodes:
        cpus = int(resources.get("CPU", 0) + 1e-9)
        gpus = int(resources.get("GPU", 0) + 1e-9)
        if gpus_per_worker == 0:
            room += cpus
        elif gpus_per_worker < 1:
            room += min(cpus, gpus * int(1 / gpus_per_worker + 1e-9))
        else:
            room += min(cpus, gpus // int(gpus_per_worker))
    return room


def require_ray() -> Any:
    """The ``ray`` module with Ray Data, or a SmscanError saying how to install it."""
    try:
        import ray  # type: ignore[import-not-found,import-untyped,unused-ignore]

        # Ray Data comes with the extra (ray[data]); plain ray lacks its dependencies.
        import ray.data  # type: ignore[import-not-found,import-untyped,unused-ignore]  # noqa: F401
    except ImportError as error:
        raise SmscanError(f"--engine ray needs Ray Data: {INSTALL_HINT}") from error
    return ray


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
    stream = contiguous(items, record_group, scattered_group) if check_contiguous else items
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
        started_here = _connect(ray, cluster)
        _check_room(ray, cluster)
        # Entered and left here, not inside the _results generator: the settings and the
        # warning filter would otherwise stay changed while this loop runs between batches
        # and be restored whenever the generator happened to be closed.
        with _quiet_ordered_data_context():
            for payload, end in _results(ray, source, writer.done, make_scorer, plan, cluster):
                if end:
                    for reason, count in pickle.loads(payload).items():
                        stats.skipped[reason] = stats.skipped.get(reason, 0) + count
                    continue
                group: GroupOutput = pickle.loads(payload)
                writer.write_group(group.records, group.rejected, done=group.consumed)
                stats.add(group)
                if on_group is not None:
                    on_group(group, stats)
    except BaseException as error:
        writer.close()
        cause = _smscan_cause(error)
        if cause is not None:
            raise _plain(cause) from None
        raise
    finally:
        if started_here:
            ray.shutdown()
    writer.finish()
    return stats


def _connect(ray: Any, cluster: RayCluster) -> bool:
    """Start or join Ray unless the caller already did; True when this call started it."""
    if ray.is_initialized():
        return False
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    if cluster.address is None:
        kwargs["num_cpus"] = cluster.num_cpus
    else:
        kwargs["address"] = cluster.address
    # A local instance says on stderr that it enabled token authentication (its secure default);
    # the user asked for an export, not a cluster. A warning that it is disabled still shows.
    auth_logger = logging.getLogger("ray._private.authentication.authentication_token_setup")
    auth_logger.addFilter(_drop_auth_enabled_notice)
    try:
        ray.init(**kwargs)
    except Exception as error:  # noqa: BLE001 - every start or connect failure is one message
        where = cluster.address or "a local instance"
        raise SmscanError(f"--engine ray: cannot start or join Ray ({where}): {error}") from error
    finally:
        auth_logger.removeFilter(_drop_auth_enabled_notice)
    return True


def _check_room(ray: Any, cluster: RayCluster) -> None:
    """Refuse actors the cluster can never place: Ray would wait for them without a word."""
    nodes = [node["Resources"] for node in ray.nodes() if node.get("Alive")]
    if actors_that_fit(nodes, gpus_per_worker=cluster.gpus_per_worker) >= cluster.workers:
        return
    total = ray.cluster_resources()
    cpus, gpus = total.get("CPU", 0), total.get("GPU", 0)
    asked, needs, fix = f"--workers {cluster.workers}", f"{cluster.workers} CPU(s)", "lower --workers"
    if cluster.gpus_per_worker:
        asked += f" --gpus-per-worker {cluster.gpus_per_worker:g}"
        needs += f" and {cluster.workers * cluster.gpus_per_worker:g} GPU(s) (each actor's on one node)"
        fix += " or --gpus-per-worker"
    raise SmscanError(
        f"--engine ray: {asked} needs {needs}; the Ray cluster has {cpus:g} CPU(s) and {gpus:g} GPU(s)"
        f" on {len(nodes)} node(s): {fix}"
    )


def _drop_auth_enabled_notice(record: logging.LogRecord) -> bool:
    return not record.getMessage().startswith("Token authentication is enabled")


def _results(
    ray: Any, source: ExportSource, done: int, make_scorer: Callable[[], Scorer], plan: ExportPlan, cluster: RayCluster
) -> Iterator[tuple[bytes, bool]]:
    from ray.data import ActorPoolStrategy  # type: ignore[import-not-found,import-untyped,unused-ignore]

    # The read task runs on the driver's node, so input paths mean what they mean here (with a
    # Ray client, the driver is on the head node: see RayCluster). It takes no CPU slot, else
    # actors holding every CPU of a small machine would starve it.
    here = {"ray.io/node-id": ray.get_runtime_context().get_node_id()}  # every node has this label
    dataset = ray.data.read_datasource(_datasource(source, done), num_cpus=0, label_selector=here)
    resources: dict[str, Any] = {"num_cpus": 1}  # _check_room counts one CPU per actor
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


@contextmanager
def _quiet_ordered_data_context() -> Iterator[None]:
    """Ray Data settings for one export, restored afterwards (a calling program may use Ray Data
    itself): input order kept, an actor's SmscanError raised as itself, and no progress bars,
    plan logs or tracebacks of errors we re-raise as one line (the CLI reports progress itself).

    Ray Data's settings and Python's warning filters are process-wide, so while the export runs
    they apply to the whole process (the caller's ``on_group`` included); used as one ``with``
    around the export, they are restored in order when it ends, however it ends."""
    from ray.data import DataContext  # type: ignore[import-not-found,import-untyped,unused-ignore]

    context = DataContext.get_current()
    logger = logging.getLogger("ray.data")
    saved = (
        context.execution_options.preserve_order, context.enable_progress_bars,
        context.print_on_execution_start, context.raise_original_map_exception, logger.level,
    )
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False
    context.print_on_execution_start = False
    context.raise_original_map_exception = True
    logger.setLevel(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            # An input of fewer blocks than --workers leaves actors idle: no fault of the user's.
            warnings.filterwarnings("ignore", message="The minimum number of concurrent actors", category=UserWarning)
            yield
    finally:
        (context.execution_options.preserve_order, context.enable_progress_bars,
         context.print_on_execution_start, context.raise_original_map_exception) = saved[:4]
        logger.setLevel(saved[4])


def _smscan_cause(error: BaseException) -> SmscanError | None:
    """The SmscanError an actor or the read task raised, unwrapped from Ray's exceptions."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        cause = getattr(current, "cause", None)  # RayTaskError keeps the original here
        if isinstance(current, SmscanError) and not type(current).__module__.startswith("ray"):
            if cause is None or not isinstance(cause, SmscanError):
                return current
        current = cause if isinstance(cause, BaseException) else (current.__cause__ or current.__context__)
    return None


def _plain(error: SmscanError) -> SmscanError:
    """The error as raised, without the retry advice Ray Data appends to its message."""
    message = str(error).split(_RAY_RETRY_ADVICE, 1)[0].rstrip("\n")
    try:
        return type(error)(message)
    except TypeError:  # a subclass with another constructor: keep its message, lose its type
        return SmscanError(message)
