"""Settings: defaults, discovery of the config file, validation.

Discovery (first found wins): ``--config FILE``, else ``.smscan.toml`` at the scan root, else
``[tool.smscan]`` in the root's ``pyproject.toml``, else the defaults. Command-line flags beat the
file, the file beats the defaults. Keys are the field names of :class:`Settings`; an unknown key or
a bad value is a :class:`ConfigError` naming the file and the key.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PureWindowsPath
from typing import Any, Literal, get_args

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

from smscan.errors import ConfigError
from smscan.fileio.finite import check_finite
from smscan.config.instructions import ScoringRule, resolve_instructions
from smscan.kinds import Kind

# Mean NLL (nats/token) over a 4-token window at or above which a window is surprising to the
# default model. Chosen on measured data; see docs/BENCHMARKS.md ("Default threshold").
DEFAULT_SURPRISE_THRESHOLD = 6.0
DEFAULT_WINDOW_TOKENS = 4
# The longest window any rule may use (scan, export and calibration check the same bound).
MAX_WINDOW_TOKENS = 256
DEFAULT_MAX_FILE_BYTES = 1_000_000

Device = Literal["auto", "cpu", "cuda", "mps"]
Dtype = Literal["auto", "bf16", "fp16", "fp32", "int8"]
Runtime = Literal["auto", "torch", "ctranslate2"]
"""Finding kinds a user may choose to report (``kinds``; empty means all)."""
Ranking = Literal["global", "local"]
"""``ranking``: how windows are selected (paper D.1, D.2), for scans, exports and calibration alike."""
WorkerUse = Literal["off", "use", "auto"]
"""``worker``: never use a warm worker; use one that runs (default); or also start one (hooks)."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything a scan needs that a user may set; validated on construction."""

    model: str = "default"
    device: Device = "auto"
    dtype: Dtype = "auto"
    # What runs the model: "auto" is CTranslate2 for the default model on CPU, torch otherwise
    # (smscan/model/runtime.py). dtype "int8" exists on CTranslate2 only.
    runtime: Runtime = "auto"
    # CPU threads of the model's forward pass; 0 chooses for a shared machine (model/threads.py). On a
    # busy machine one thread can be several times faster (docs/BENCHMARKS.md).
    threads: int = 0
    # A warm worker (`smscan serve`) for the same model and settings scores in place of this
    # process: "use" one that runs, "auto" also starts one in the background, "off" never.
    worker: WorkerUse = "use"
    # How tokens are scored (smscan/config/instructions.py): the document alone, after one instruction,
    # or the contrast of a violating and a compliant instruction; instructions name a purpose
    # (credentials, personal-data, dead-code) or are the texts themselves.
    scoring_rule: ScoringRule = "unprompted"
    instructions: tuple[str, ...] = ()
    threshold: float = DEFAULT_SURPRISE_THRESHOLD
    window: int = DEFAULT_WINDOW_TOKENS
    consensus: int = 1
    # Window selection: "global" selects windows whose mean NLL reaches threshold; "local" those
    # whose rank among up to `neighbours` windows on each side is below rank_max (0-100).
    ranking: Ranking = "global"
    rank_max: float = 10.0
    neighbours: int = 32
    propagate: bool = True
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    skip_lock_files: bool = True
    skip_vendored: bool = True
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    # Root-relative files: calibrated thresholds, and the baseline of accepted findings ("" = none).
    thresholds: str = ""
    baseline: str = ""
    # The score cache (smscan/scoring/cache.py): on, holding at most score_cache_mb megabytes of scores
    # (offsets digests and NLL, never text) in <cache root>/scores or $SMSCAN_SCORE_CACHE.
    score_cache: bool = True
    score_cache_mb: int = 200
    # Where the values came from, for --verbose and the JSON stats; not a config key.
    source: str = field(default="defaults", compare=False)
    # The keys a config file or a flag set (the rest are defaults): a calibrated thresholds entry
    # beats a default but never a value the user chose (smscan.rules.resolve).
    given: frozenset[str] = field(default=frozenset(), compare=False)
    # Where each given value came from ("--model", ".smscan.toml key 'model'", "environment
    # variable SMSCAN_MODEL"), so an error found later (a model that does not load) names it.
    origins: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    def origin(self, key: str) -> str | None:
        """Where ``key``'s value came from, or None for a default."""
        return dict(self.origins).get(key)

    def __post_init__(self) -> None:
        _check_choice("device", self.device, Device)
        _check_choice("dtype", self.dtype, Dtype)
        _check_choice("worker", self.worker, WorkerUse)
        _check_choice("runtime", self.runtime, Runtime)
        _check_choice("scoring_rule", self.scoring_rule, ScoringRule)
        try:
            resolve_instructions(self.scoring_rule, self.instructions)
        except ValueError as error:
            raise InvalidSetting("instructions", str(error)) from error
        if self.dtype == "int8" and self.runtime == "torch":
            raise InvalidSetting("dtype", "dtype int8 needs runtime ctranslate2 (or auto); torch scores in bf16, fp16 or fp32")
        if not self.model or not isinstance(self.model, str):
            raise InvalidSetting("model", "model must be a non-empty string")
        # A contrast is a log-likelihood ratio around 0, so its threshold may be negative.
        low = -100 if self.scoring_rule == "contrast" else 0
        if not low < self.threshold < 100:
            raise InvalidSetting("threshold", f"threshold must be between {low} and 100 nats, got {self.threshold}")
        if not 1 <= self.window <= MAX_WINDOW_TOKENS:
            raise InvalidSetting("window", f"window must be 1..{MAX_WINDOW_TOKENS} tokens, got {self.window}")
        if not 1 <= self.consensus <= self.window:
            raise InvalidSetting("consensus", f"consensus must be 1..window ({self.window}), got {self.consensus}")
        _check_choice("ranking", self.ranking, Ranking)
        if not 0 < self.rank_max <= 100:
            raise InvalidSetting("rank_max", f"rank_max must be in (0, 100], got {self.rank_max}")
        if not 1 <= self.neighbours <= 100_000:
            raise InvalidSetting("neighbours", f"neighbours must be 1..100000 windows, got {self.neighbours}")
        for kind in self.kinds:
            _check_choice("kinds", kind, Kind)
        if not 0 <= self.threads <= 1024:
            raise InvalidSetting("threads", f"threads must be an integer 0..1024 (0: automatic), got {self.threads!r}")
        if not 1 <= self.score_cache_mb <= 1_000_000:
            raise InvalidSetting("score_cache_mb", f"score_cache_mb must be 1..1000000 (megabytes), got {self.score_cache_mb!r}")
        if self.max_file_bytes < 1:
            raise InvalidSetting("max_file_bytes", f"max_file_bytes must be positive, got {self.max_file_bytes}")


class InvalidSetting(ValueError):
    """A Settings value out of its range; ``key`` says which, so a message can name its source."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


CONFIG_KEYS = tuple(f.name for f in dataclasses.fields(Settings) if f.name not in ("source", "given", "origins"))


def _check_choice(key: str, value: object, choices: Any) -> None:
    allowed = get_args(choices)
    if value not in allowed:
        raise InvalidSetting(key, f"{key} must be one of {', '.join(allowed)}, got {value!r}")


def find_config_file(root: Path, explicit: Path | None = None) -> tuple[Path, str] | None:
    """Return (file, table) to read settings from, or None for the defaults.

    ``table`` is ``""`` for a ``.smscan.toml`` (keys at the top level) and ``"tool.smscan"`` for a
    ``pyproject.toml``.
    """
    if explicit is not None:
        if not explicit.is_file():
            raise ConfigError(f"{explicit}: config file not found")
        return explicit, "tool.smscan" if explicit.name == "pyproject.toml" else ""
    dedicated = root / ".smscan.toml"
    if dedicated.is_file():
        return dedicated, ""
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        table = _read_toml(pyproject).get("tool", {}).get("smscan")
        if table is not None:
            return pyproject, "tool.smscan"
    return None


def _read_toml(path: Path) -> dict[str, Any]:
    from smscan.fileio.regular import read_config_file  # regular files only: a FIFO would hang

    try:
        return tomllib.loads(read_config_file(path).decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: not UTF-8 ({error.reason} at byte {error.start})") from error
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from error
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from error


def load_settings(
    root: Path,
    *,
    explicit: Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] = os.environ,
    origins: Mapping[str, str] | None = None,
) -> Settings:
    """Build the effective Settings for a scan rooted at ``root``.

    Args:
        root: the scan root (git top level or the scanned folder) where config is discovered.
        explicit: a config file given with ``--config``.
        overrides: values given on the command line; None values mean "not given".
        environ: the environment; ``SMSCAN_MODEL`` sets the model below the config file.
        origins: what to call each override in a message (the CLI passes its flags, e.g.
            ``{"kinds": "--kinds"}``); an override not named here is "the value given for KEY".

    Returns:
        The validated Settings, with ``source`` naming where file values came from.

    Raises:
        ConfigError: unreadable file, unknown key or bad value; the message names where the bad
            value came from: the file and key, the environment variable, or the override.
    """
    values: dict[str, Any] = {}
    where: dict[str, str] = {}
    source = "defaults"
    if environ.get("SMSCAN_MODEL"):
        values["model"] = environ["SMSCAN_MODEL"]
        where["model"] = "environment variable SMSCAN_MODEL"
    found = find_config_file(root, explicit)
    if found is not None:
        path, table = found
        data = _read_toml(path)
        if table:
            data = data.get("tool", {}).get("smscan", {})
        table_name = f"{path}" + (f" [{table}]" if table else "")
        from_file = _validate_table(data, where=table_name)
        values.update(from_file)
        where.update({key: f"{table_name} key {key!r}" for key in from_file})
        source = str(path)
    for key, value in (overrides or {}).items():
        if value is not None:
            values[key] = value
            where[key] = (origins or {}).get(key, f"the value given for {key}")
    try:
        return Settings(**values, source=source, given=frozenset(values), origins=tuple(where.items()))
    except InvalidSetting as error:
        raise ConfigError(f"{where.get(error.key, source)}: {error}") from error
    except ValueError as error:
        raise ConfigError(f"{source}: {error}") from error


ROOT_RELATIVE_KEYS = ("baseline", "thresholds")
"""Config keys naming files relative to the root, which must stay inside it."""


def _stays_inside(relative: str) -> bool:
    depth = 0
    if relative.startswith(("/", "\\")) or PureWindowsPath(relative).drive:
        return False
    for part in relative.replace("\\", "/").split("/"):
        depth += -1 if part == ".." else 0 if part in ("", ".") else 1
        if depth < 0:
            return False
    return True


def _validate_table(data: Mapping[str, Any], *, where: str) -> dict[str, Any]:
    check_finite(data, source=where, error=ConfigError)
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key not in CONFIG_KEYS:
            raise ConfigError(
                f"{where}: unknown key {key!r}; known keys: {', '.join(CONFIG_KEYS)}"
            )
        expected = {f.name: f.default for f in dataclasses.fields(Settings)}[key]
        if isinstance(expected, tuple):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where}: key {key!r} must be a list of strings")
            value = tuple(value)
        elif isinstance(expected, bool):
            if not isinstance(value, bool):
                raise ConfigError(f"{where}: key {key!r} must be true or false")
        elif isinstance(expected, (int, float)) and not isinstance(expected, bool):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ConfigError(f"{where}: key {key!r} must be a number")
            if isinstance(expected, int) and not isinstance(expected, float):
                if not isinstance(value, int):
                    raise ConfigError(f"{where}: key {key!r} must be an integer")
        elif not isinstance(value, str):
            raise ConfigError(f"{where}: key {key!r} must be a string")
        if key in ROOT_RELATIVE_KEYS and value and not _stays_inside(value):
            # A repository's config must not point smscan at files elsewhere: `smscan baseline`
            # writes the baseline there.
            raise ConfigError(f"{where}: key {key!r} must be a path inside the repository, got {value!r}")
        values[key] = value
    try:
        Settings(**values)
    except InvalidSetting as error:
        raise ConfigError(f"{where} key {error.key!r}: {error}") from error
    except ValueError as error:
        raise ConfigError(f"{where}: {error}") from error
    return values
