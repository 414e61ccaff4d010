"""Saved thresholds: the file format, where they are looked up, and the model fingerprint check.

One JSON file holds one entry per finding kind (format in ``docs/thresholds-format.md``).
Calibrating a kind adds or replaces its entry and leaves the others alone. A threshold is only
meaningful for the model that produced the scores it was chosen on, so every entry records the
model fingerprint, and an entry for another fingerprint is refused, naming both fingerprints
and the command that calibrates the model in use.

A scorer fingerprint ``F+ct2-fp32`` (the weights ``F`` run by CTranslate2 in float32, the same
function as torch fp32 within about 1e-4 nats) and ``F`` accept each other's entries;
``F+ct2-int8`` accepts only its own: int8 shifts scores and needs entries calibrated for it.

A prompted or contrast scorer adds ``+prompted-<hash>`` or ``+contrast-<hash>`` (the rule and its
instructions, ``smscan/model/prompted.py``); an entry applies only under the same rule and
instructions, and a mismatch says so in its own message.

Lookup, per kind, first found wins: ``--thresholds FILE``, the config's ``thresholds`` key,
``.smscan/thresholds.json`` in the repository, the defaults shipped in the package (calibrated for
the default model on the shared development sets).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from smscan.fileio.atomic import write_text_atomically
from smscan.errors import ThresholdsError
from smscan.fileio.finite import check_finite
from smscan.fileio.regular import read_config_file

FORMAT = "smscan-thresholds"
VERSION = 1
REPOSITORY_FILE = Path(".smscan") / "thresholds.json"
PACKAGED_NAME = "default_thresholds.json"
PACKAGED = "packaged defaults"
# Named operating points: the validation recall a threshold was chosen to reach (paper's SM50..95).
OPERATING_POINTS = {"SM50": 0.50, "SM70": 0.70, "SM90": 0.90, "SM95": 0.95}

_REQUIRED = ("fingerprint", "rule", "threshold")
# Scorer fingerprint suffixes (smscan/model/ct2.py) that compute the same scores as the bare weights.
SAME_SCORES_SUFFIXES = ("+ct2-fp32",)
# The scoring-rule suffix a PromptedScorer puts on its fingerprint (smscan/model/prompted.py).
_RULE_SUFFIX = re.compile(r"\+(?P<rule>prompted|contrast)-(?P<digest>[0-9a-f]{12})$")


def operating_point_criterion(criterion: str) -> str:
    """The ``recall:R`` criterion an operating point name stands for (``SM90`` -> ``recall:0.9``);
    any other criterion as given.

    Example:
        >>> operating_point_criterion("SM90"), operating_point_criterion("fpr:0.01")
        ('recall:0.9', 'fpr:0.01')
    """
    return f"recall:{OPERATING_POINTS[criterion]}" if criterion in OPERATING_POINTS else criterion


def split_scoring_rule(fingerprint: str) -> tuple[str, str]:
    """A scorer fingerprint as (the fingerprint without its rule, the rule and instruction hash).

    Example:
        >>> split_scoring_rule("sha256:ab+ct2-fp32+contrast-0123456789ab"), split_scoring_rule("sha256:ab")
        (('sha256:ab+ct2-fp32', 'contrast-0123456789ab'), ('sha256:ab', 'unprompted'))
    """
    match = _RULE_SUFFIX.search(fingerprint)
    if match is None:
        return fingerprint, "unprompted"
    return fingerprint[: match.start()], fingerprint[match.start() + 1 :]


def is_same_scores(entry_fingerprint: str, fingerprint: str) -> bool:
    """Whether an entry made for ``entry_fingerprint`` applies to scores of ``fingerprint``.

    Example:
        >>> is_same_scores("sha256:ab", "sha256:ab+ct2-fp32"), is_same_scores("sha256:ab", "sha256:ab+ct2-int8")
        (True, False)
    """
    return _without_same_scores_suffix(entry_fingerprint) == _without_same_scores_suffix(fingerprint)


def _without_same_scores_suffix(fingerprint: str) -> str:
    for suffix in SAME_SCORES_SUFFIXES:
        if fingerprint.endswith(suffix):
            return fingerprint[: -len(suffix)]
    return fingerprint


@dataclass(frozen=True, slots=True)
class ThresholdEntry:
    """The calibrated threshold of one kind, and everything that says what made it."""

    kind: str
    fingerprint: str
    threshold: float
    rule: Mapping[str, Any]
    source: str
    data: Mapping[str, Any]

    def operating_point(self, name: str) -> float:
        """The threshold saved for a named operating point (``SM90``, ``best-f1``...)."""
        points = self.data.get("operating_points", {})
        if name not in points:
            known = ", ".join(sorted(points)) or "none"
            raise ThresholdsError(
                f"{self.source}: kind {self.kind!r} has no operating point {name!r} (saved: {known})"
            )
        return float(points[name]["threshold"])


def read_thresholds_file(path: Path) -> dict[str, Any]:
    """The parsed file, validated. A missing file reads as empty.

    Raises:
        ThresholdsError: unreadable, not JSON, or not the thresholds format (file and key named).
    """
    if not path.exists():
        return {"format": FORMAT, "version": VERSION, "kinds": {}}
    try:
        data = json.loads(read_config_file(path).decode("utf-8"))
    except OSError as error:
        raise ThresholdsError(f"{path}: cannot read thresholds: {error.strerror}") from error
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ThresholdsError(f"{path}: not a JSON thresholds file ({error})") from error
    check_finite(data, source=str(path), error=ThresholdsError)
    _validate(path, data)
    checked: dict[str, Any] = data
    return checked


def _validate(path: Path | str, data: Any) -> None:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ThresholdsError(f"{path}: not an smscan thresholds file (expected \"format\": \"{FORMAT}\")")
    if data.get("version") != VERSION:
        raise ThresholdsError(f"{path}: thresholds format version {data.get('version')!r}; this smscan reads {VERSION}")
    kinds = data.get("kinds")
    if not isinstance(kinds, dict):
        raise ThresholdsError(f"{path}: key 'kinds' must be an object of kind -> entry")
    for kind, entry in kinds.items():
        if not isinstance(entry, dict):
            raise ThresholdsError(f"{path}: kinds.{kind} must be an object")
        for key in _REQUIRED:
            if key not in entry:
                raise ThresholdsError(f"{path}: kinds.{kind} lacks {key!r}")
        threshold = entry["threshold"]
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
            raise ThresholdsError(f"{path}: kinds.{kind}.threshold must be a number")
        if not isinstance(entry["rule"], dict) or not isinstance(entry["fingerprint"], str):
            raise ThresholdsError(f"{path}: kinds.{kind} needs a 'rule' object and a 'fingerprint' string")


def write_entry(path: Path, kind: str, entry: Mapping[str, Any]) -> None:
    """Add or replace one kind's entry of a thresholds file, atomically.

    Raises:
        ThresholdsError: the existing file is malformed, or the file cannot be written.
    """
    data = read_thresholds_file(path)
    data["kinds"][kind] = dict(entry)
    data["kinds"] = dict(sorted(data["kinds"].items()))
    _validate(path, data)
    text = json.dumps(data, indent=2, sort_keys=False, allow_nan=False) + "\n"
    try:
        write_text_atomically(path, text)
    except OSError as error:
        raise ThresholdsError(f"{path}: cannot write thresholds: {error.strerror}") from error


def packaged_thresholds() -> dict[str, Any]:
    """The thresholds shipped for the default model."""
    text = resources.files("smscan.rules").joinpath(PACKAGED_NAME).read_text(encoding="utf-8")
    data = json.loads(text)
    _validate(PACKAGED, data)
    checked: dict[str, Any] = data
    return checked


def threshold_files(
    root: Path | None, *, flag: Path | None = None, configured: str = ""
) -> list[tuple[str, dict[str, Any]]]:
    """The thresholds files to consult, in lookup order, as (where, parsed content).

    A file named by the flag or the config must exist; the repository file is optional (and not
    read when ``root`` is None: the Python API has no repository). A relative configured path is
    relative to ``root`` (the current folder without one).
    """
    files: list[tuple[str, dict[str, Any]]] = []
    for named in (flag, Path(configured) if configured else None):
        if named is None:
            continue
        path = named if named.is_absolute() or named is flag or root is None else root / named
        if not path.is_file():
            raise ThresholdsError(f"{path}: thresholds file not found")
        files.append((str(path), read_thresholds_file(path)))
    repository = None if root is None else root / REPOSITORY_FILE
    if repository is not None and repository.is_file():
        files.append((str(repository), read_thresholds_file(repository)))
    files.append((PACKAGED, packaged_thresholds()))
    return files


def find_entry(
    files: Sequence[tuple[str, Mapping[str, Any]]], kind: str, *, fingerprint: str, model: str
) -> ThresholdEntry:
    """The first entry for ``kind`` in lookup order, checked against the model in use.

    Raises:
        ThresholdsError: no file has the kind, or the first that has it was calibrated for a
            different model fingerprint or under another scoring rule or instructions (both are
            named, and the fix).
    """
    for where, data in files:
        entry = data["kinds"].get(kind)
        if entry is None:
            continue
        _check_scoring_rule(where, kind, entry["fingerprint"], fingerprint)
        if not is_same_scores(split_scoring_rule(entry["fingerprint"])[0], split_scoring_rule(fingerprint)[0]):
            if entry["fingerprint"].split("+", 1)[0] == fingerprint.split("+", 1)[0]:
                raise ThresholdsError(
                    f"{where}: the {kind} threshold was calibrated for model fingerprint "
                    f"{entry['fingerprint']}, but the model in use ({model}) runs the same weights as "
                    f"{fingerprint}, whose scores differ (int8 shifts them); scan with the runtime and dtype "
                    f"the entry was made with (fp32: `dtype = \"fp32\"`), or calibrate this one with `smscan "
                    f"calibrate --kind {kind} --labels FILE --dtype {'int8' if fingerprint.endswith('-int8') else 'fp32'} "
                    f"-o .smscan/thresholds.json`, or scan raw surprise with `--kinds surprise --threshold T`"
                )
            raise ThresholdsError(
                f"{where}: the {kind} threshold was calibrated for model fingerprint "
                f"{entry['fingerprint']}, but the model in use ({model}) has fingerprint "
                f"{fingerprint}; calibrate it with `smscan calibrate --kind {kind} --labels FILE "
                f"--model {model} -o .smscan/thresholds.json` (or --synthetic PATH), or scan "
                f"raw surprise with `--kinds surprise --threshold T`"
            )
        return ThresholdEntry(
            kind=kind,
            fingerprint=entry["fingerprint"],
            threshold=float(entry["threshold"]),
            rule=entry["rule"],
            source=where,
            data=entry,
        )
    raise ThresholdsError(
        f"no calibrated threshold for kind {kind!r}; calibrate one with `smscan calibrate --kind "
        f"{kind} --labels FILE -o .smscan/thresholds.json`, or scan raw surprise with "
        f"`--kinds surprise --threshold T`"
    )


def _check_scoring_rule(where: str, kind: str, entry_fingerprint: str, fingerprint: str) -> None:
    """Refuse an entry calibrated under another scoring rule or instruction set."""
    saved, used = split_scoring_rule(entry_fingerprint)[1], split_scoring_rule(fingerprint)[1]
    if saved == used:
        return
    saved_rule, used_rule = saved.split("-", 1)[0], used.split("-", 1)[0]
    if saved_rule == used_rule:
        what = f"the {saved_rule} scoring rule with other instructions ({saved}) than this command's ({used})"
    else:
        what = f"the {saved_rule} scoring rule ({saved}), but this command scores with {used_rule} ({used})"
    raise ThresholdsError(
        f"{where}: the {kind} threshold was calibrated under {what}; a threshold never applies under "
        f"another rule or instructions: calibrate one for this rule with `smscan calibrate --kind {kind} "
        f"--labels FILE --scoring-rule {used_rule} [--instructions ...] -o .smscan/thresholds.json`, or "
        f"score with scoring_rule = \"{saved_rule}\" and the instructions the entry was made with"
    )
