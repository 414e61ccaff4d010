"""The read task of a Ray export: the source read as the local engine reads it, cut into whole groups.

One task on the driver's node reads the source with the local engine's parser, rejects,
``--two-pass``, ``stages.contiguous`` and ``job.not_done``, and cuts the stream into *group
chunks* with ``stages.buffer_groups``: a group's records plus the rejects read while it was open.
Each chunk is one pickled row, so a group is never split across the actors' batches; rows travel
as Arrow blocks of ``CHUNKS_PER_BATCH``, and the last row carries the skip counters.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable, Iterator
from functools import partial
from typing import Any

from smscan.exports.job import ExportSource, iter_source, not_done
from smscan.exports.masked import ExportStats, record_group, scattered_record
from smscan.records import DatasetRecord, Rejected
from smscan.judge.stages import buffer_groups, contiguous

# Chunks per read block and per actor call: with one record per group this is the local
# engine's 16-record scoring batch; large groups are one chunk each anyway.
CHUNKS_PER_BATCH = 16

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


def read_blocks(source: ExportSource, done: int) -> Iterator[Any]:
    """The read task: rows ``(seq, payload, end)``; the last row carries the skip counters."""
    import pyarrow as pa

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
            if len(rows) >= CHUNKS_PER_BATCH:
                yield block(rows, seq, False)
                seq += len(rows)
                rows = []
    finally:
        records.close()
    if rows:
        yield block(rows, seq, False)
        seq += len(rows)
    yield block([pickle.dumps(dict(stats.skipped))], seq, True)


def group_chunk_source(source: ExportSource, done: int) -> Any:
    from ray.data import Datasource, ReadTask
    from ray.data.block import BlockMetadata

    class GroupChunkSource(Datasource):  # type: ignore[misc,unused-ignore]  # Ray is untyped: its base class is Any
        """One ordered read task: the input is read sequentially, as the local engine reads it."""

        def estimate_inmemory_data_size(self) -> int | None:
            return None

        def get_read_tasks(self, parallelism: int, per_task_row_limit: int | None = None, data_context: Any = None) -> list[Any]:
            metadata = BlockMetadata(num_rows=None, size_bytes=None, exec_stats=None, input_files=None)
            return [ReadTask(partial(read_blocks, source, done), metadata)]

    return GroupChunkSource()  # type: ignore[no-untyped-call,unused-ignore]  # Ray is untyped
