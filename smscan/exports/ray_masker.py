"""The actor of a Ray export's pool: one reference model, masking batches of whole-group chunks."""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

from smscan.errors import SmscanError
from smscan.exports.masked import export_groups
from smscan.exports.plan import ExportPlan
from smscan.exports.ray_read import Chunk
from smscan.model.scorer import Scorer


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
        import pyarrow as pa

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
