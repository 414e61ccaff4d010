"""Where a Ray export runs: the cluster's size and resources, starting or joining Ray, Ray Data's
settings for one export, and Ray's errors turned back into the SmscanError an actor raised.

Ray is imported only inside these functions, and only when an export runs on it.
"""

from __future__ import annotations

import logging
import math
import warnings
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from smscan.errors import InvalidValue, SmscanError

INSTALL_HINT = "pip install 'smscan[ray]'"
_RAY_RETRY_ADVICE = "\nFailed to apply UDF transform"
_GPU_PRECISION = 0.0001  # Ray refuses finer fractions of a resource


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
            raise InvalidValue("workers", f"must be at least 1, got {self.workers}")
        gpus = self.gpus_per_worker
        if not math.isfinite(gpus) or gpus < 0:
            raise InvalidValue("gpus_per_worker", f"must be 0 or more, got {gpus}")
        if gpus > 1 and not gpus.is_integer():
            raise InvalidValue("gpus_per_worker", f"above 1 must be a whole number (Ray splits one GPU only), got {gpus}")
        if 0 < gpus < _GPU_PRECISION:
            raise InvalidValue("gpus_per_worker", f"must be 0 or at least {_GPU_PRECISION} (Ray's precision), got {gpus}")


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
        import ray

        # Ray Data comes with the extra (ray[data]); plain ray lacks its dependencies.
        import ray.data  # noqa: F401
    except ImportError as error:
        raise SmscanError(f"the Ray engine needs Ray Data: {INSTALL_HINT}") from error
    return ray


def connect(ray: Any, cluster: RayCluster) -> bool:
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
        raise SmscanError(f"the Ray engine cannot start or join Ray ({where}): {error}") from error
    finally:
        auth_logger.removeFilter(_drop_auth_enabled_notice)
    return True


def check_room(ray: Any, cluster: RayCluster) -> None:
    """Refuse actors the cluster can never place: Ray would wait for them without a word."""
    nodes = [node["Resources"] for node in ray.nodes() if node.get("Alive")]
    if actors_that_fit(nodes, gpus_per_worker=cluster.gpus_per_worker) >= cluster.workers:
        return
    total = ray.cluster_resources()
    cpus, gpus = total.get("CPU", 0), total.get("GPU", 0)
    asked, needs, fix = f"workers {cluster.workers}", f"{cluster.workers} CPU(s)", "fewer workers"
    if cluster.gpus_per_worker:
        asked += f", gpus_per_worker {cluster.gpus_per_worker:g}"
        needs += f" and {cluster.workers * cluster.gpus_per_worker:g} GPU(s) (each actor's on one node)"
        fix += " or fewer GPUs per worker"
    raise SmscanError(
        f"Ray actors ({asked}) need {needs}; the Ray cluster has {cpus:g} CPU(s) and {gpus:g} GPU(s)"
        f" on {len(nodes)} node(s): use {fix}"
    )


def _drop_auth_enabled_notice(record: logging.LogRecord) -> bool:
    return not record.getMessage().startswith("Token authentication is enabled")


@contextmanager
def quiet_ordered_data_context() -> Iterator[None]:
    """Ray Data settings for one export, restored afterwards (a calling program may use Ray Data
    itself): input order kept, an actor's SmscanError raised as itself, and no progress bars,
    plan logs or tracebacks of errors we re-raise as one line (the CLI reports progress itself).

    Ray Data's settings and Python's warning filters are process-wide, so while the export runs
    they apply to the whole process (the caller's ``on_group`` included); used as one ``with``
    around the export, they are restored in order when it ends, however it ends."""
    from ray.data import DataContext

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


def smscan_cause(error: BaseException) -> SmscanError | None:
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


def plain_error(error: SmscanError) -> SmscanError:
    """The error as raised, without the retry advice Ray Data appends to its message."""
    message = str(error).split(_RAY_RETRY_ADVICE, 1)[0].rstrip("\n")
    try:
        return type(error)(message)
    except TypeError:  # a subclass with another constructor: keep its message, lose its type
        return SmscanError(message)
