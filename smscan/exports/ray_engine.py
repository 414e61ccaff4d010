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

The read task is ``ray_read.py``, the actor ``ray_masker.py``; Ray is imported only in those, here
and in ``ray_cluster.py`` (where it runs), only when an export runs on it.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smscan.exports.job import ExportSource, ScorerRecipe, open_writer, write_finished_group
from smscan.exports.masked import ExportStats, GroupOutput
from smscan.exports.plan import ExportPlan
from smscan.exports.ray_cluster import (
    RayCluster,
    check_room,
    connect,
    plain_error,
    quiet_ordered_data_context,
    require_ray,
    smscan_cause,
)
from smscan.exports.ray_masker import GroupMasker
from smscan.exports.ray_read import CHUNKS_PER_BATCH, group_chunk_source
from smscan.model.scorer import Scorer


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
                write_finished_group(writer, stats, group, on_group)
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
    from ray.data import ActorPoolStrategy

    # The read task runs on the driver's node, so input paths mean what they mean here (with a
    # Ray client, the driver is on the head node: see RayCluster). It takes no CPU slot, else
    # actors holding every CPU of a small machine would starve it.
    here = {"ray.io/node-id": ray.get_runtime_context().get_node_id()}  # every node has this label
    dataset = ray.data.read_datasource(group_chunk_source(source, done), num_cpus=0, label_selector=here)
    resources: dict[str, Any] = {"num_cpus": 1}  # check_room counts one CPU per actor
    if cluster.gpus_per_worker:
        resources["num_gpus"] = cluster.gpus_per_worker
    masked = dataset.map_batches(
        GroupMasker,
        fn_constructor_args=(make_scorer, plan),
        batch_size=CHUNKS_PER_BATCH,
        batch_format="pyarrow",
        compute=ActorPoolStrategy(size=cluster.workers),
        **resources,
    )
    order = _InOrder()
    # batch_size=None: Ray Data's blocks as they come, CHUNKS_PER_BATCH groups each
    for batch in masked.iter_batches(batch_size=None, batch_format="pyarrow"):
        for seq, payload, end in zip(
            batch.column("seq").to_pylist(), batch.column("payload").to_pylist(), batch.column("end").to_pylist()
        ):
            yield from order.push(seq, payload, end)


# RayCluster, ScorerRecipe and require_ray are what `smscan export --engine ray` imports from here.
__all__ = ["RayCluster", "ScorerRecipe", "require_ray", "run_ray_export"]
