"""What a command reports and at which thresholds: resolved here once, for every command.

Scan, export, explain, eval and calibrate all ask :func:`resolve_detections` and
:func:`resolve_surprise`, so they agree on every rule and threshold. Precedence, per value:

    a flag  >  the config file  >  a thresholds file's entry  >  the packaged default

Thresholds files are looked up in ``calibration.thresholds.threshold_files`` order
(``--thresholds``, the config's ``thresholds``, ``.smscan/thresholds.json``, the packaged file).
A detector kind needs an entry calibrated for the model in use. Raw ``surprise`` reads the
``surprise`` entry of a file the user names (flag, config, repository file); the packaged
``surprise`` entry (the default model's SM50..SM95 masking operating points) is read only when an
operating point is named, so a plain ``--kinds surprise`` scan or export keeps the documented
default threshold (``Settings.threshold``, 6.0 nats) unless the user chose otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smscan.config import Settings
from smscan.detectors import DEFAULT_KINDS, Detector, make_detector
from smscan.kinds import SURPRISE
from smscan.masking import MaskRule


@dataclass(frozen=True, slots=True)
class Detection:
    """A detector and the calibrated threshold its findings must reach."""

    detector: Detector
    threshold: float
    source: str = ""
    """Where the threshold came from (a thresholds file, or the packaged defaults)."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.detector.kind,
            **self.detector.rule(),
            "threshold": self.threshold,
            "thresholds": self.source,
        }


@dataclass(frozen=True, slots=True)
class SurpriseParameters:
    """Raw Surprise Masking's resolved values and where the threshold came from."""

    window: int
    threshold: float
    consensus: int
    propagate: bool
    ranking: str = "global"
    source: str = "settings"
    value_threshold: float | None = None
    """Value-aware masking's value threshold from a calibrated entry (None: none saved)."""


@dataclass(frozen=True, slots=True)
class RuleFlags:
    """Rule values a command's own flags give (None: not given); they beat everything else."""

    thresholds: Path | None = None
    operating_point: str | None = None
    window: int | None = None
    threshold: float | None = None
    consensus: int | None = None
    propagate: bool | None = None
    masking: str | None = None
    """The export's ``--masking``: read the ``surprise`` entry calibrated for it
    (``smscan/calibration/maskings.py``); None reads the file's entry as it is."""


def resolve_detections(
    settings: Settings, kinds: tuple[str, ...], *, root: Path, fingerprint: str, thresholds: Path | None = None
) -> tuple[Detection, ...]:
    """Each detector kind of ``kinds`` with the threshold calibrated for ``fingerprint``.

    Raises:
        ThresholdsError: a kind has no entry, or its first entry was made for another model.
    """
    from smscan.calibration.thresholds import find_entry, threshold_files

    wanted = [kind for kind in kinds if kind != SURPRISE]
    if not wanted:
        return ()
    files = threshold_files(root, flag=thresholds, configured=settings.thresholds)
    detections = []
    for kind in wanted:
        entry = find_entry(files, kind, fingerprint=fingerprint, model=settings.model)
        detections.append(Detection(make_detector(kind, entry.rule), entry.threshold, entry.source))
    return tuple(detections)


def resolve_surprise(
    settings: Settings, *, root: Path, fingerprint: str, flags: RuleFlags = RuleFlags()
) -> SurpriseParameters:
    """Raw Surprise Masking's window, threshold, consensus and propagation (module docstring).

    Raises:
        ThresholdsError: ``flags.operating_point`` names no saved point, or there is no entry for
            it; a file the user named holds a ``surprise`` entry made for another model.
    """
    saved, tau, source = _surprise_entry(settings, root=root, fingerprint=fingerprint, flags=flags)

    def pick(key: str, flag: Any, saved_value: Any) -> Any:
        if flag is not None:
            return flag
        if key in settings.given or saved_value is None:
            return getattr(settings, key)
        return saved_value

    if flags.threshold is not None:
        threshold, source = flags.threshold, "--threshold"
    elif flags.operating_point is None and ("threshold" in settings.given or tau is None):
        threshold, source = settings.threshold, "settings"
    else:
        assert tau is not None
        threshold = tau
    return SurpriseParameters(
        window=int(pick("window", flags.window, saved.get("window"))),
        threshold=float(threshold),
        consensus=int(pick("consensus", flags.consensus, saved.get("consensus"))),
        propagate=bool(pick("propagate", flags.propagate, saved.get("propagate"))),
        ranking=str(saved.get("ranking", "global")),
        source=source,
        value_threshold=None if saved.get("value_threshold") is None else float(saved["value_threshold"]),
    )


def _surprise_entry(
    settings: Settings, *, root: Path, fingerprint: str, flags: RuleFlags
) -> tuple[dict[str, Any], float | None, str]:
    """The saved ``surprise`` rule, its threshold (or the operating point's) and its file."""
    from smscan.calibration.thresholds import PACKAGED, find_entry, threshold_files
    from smscan.errors import ThresholdsError

    files = threshold_files(root, flag=flags.thresholds, configured=settings.thresholds)
    for where, data in files:
        entry = data["kinds"].get(SURPRISE)
        if entry is None:
            continue
        if where == PACKAGED and flags.operating_point is None:
            break  # the packaged entry is a table of operating points, used when one is named
        if flags.masking is not None:
            data = {"kinds": {SURPRISE: _entry_for_masking(where, entry, flags.masking, flags.threshold is not None)}}
        found = find_entry([(where, data)], SURPRISE, fingerprint=fingerprint, model=settings.model)
        tau = found.operating_point(flags.operating_point) if flags.operating_point else found.threshold
        rule = dict(found.rule)
        if flags.operating_point:  # a value-aware entry saves each point's value threshold too
            point = found.data["operating_points"][flags.operating_point]
            rule.pop("value_threshold", None)
            if "value_threshold" in point:
                rule["value_threshold"] = point["value_threshold"]
        return rule, tau, found.source
    if flags.operating_point is not None:
        raise ThresholdsError(
            f"--operating-point {flags.operating_point}: no calibrated surprise entry; calibrate one with "
            "`smscan calibrate --kind surprise --labels FILE -o .smscan/thresholds.json`"
        )
    return {}, None, "settings"


def _entry_for_masking(where: str, entry: dict[str, Any], masking: str, threshold_given: bool) -> Any:
    """The entry calibrated for ``masking``. A paper entry alone serves value-aware masking too
    (its threshold as the code threshold: a superset of the paper's mask); a value-aware entry
    alone cannot serve the paper's rule (its threshold is the much stricter code threshold)
    unless ``--threshold`` replaces it (the window, consensus and propagation still apply).

    Raises:
        ThresholdsError: ``masking`` is ``paper``, the file holds a value-aware entry only and no
            ``--threshold`` was given.
    """
    from smscan.calibration.maskings import entry_for_masking, masking_of
    from smscan.errors import ThresholdsError

    found = entry_for_masking(entry, masking)
    if found is not None:
        return found
    if masking == "values" or threshold_given:
        return entry
    raise ThresholdsError(
        f"{where}: the surprise entry was calibrated for --masking {masking_of(entry)}, not --masking {masking}; "
        f"calibrate one with `smscan calibrate --kind surprise --masking {masking} --labels FILE -o {where}` "
        f"or export with --masking {masking_of(entry)}"
    )


@dataclass(frozen=True, slots=True)
class ScanRules:
    """What a scan reports: raw ``surprise`` spans (when asked for) and each detector's findings."""

    surprise: MaskRule | None
    detections: tuple[Detection, ...]

    @property
    def kinds(self) -> tuple[str, ...]:
        return ((SURPRISE,) if self.surprise is not None else ()) + tuple(d.detector.kind for d in self.detections)

    def as_dict(self) -> dict[str, object]:
        """The report's ``rule`` object: the kinds, then one rule per kind with its threshold."""
        out: dict[str, object] = {"kinds": list(self.kinds)}
        if self.surprise is not None:
            out[SURPRISE] = self.surprise.report_dict()
        for detection in self.detections:
            out[detection.detector.kind] = detection.as_dict()
        return out


def surprise_rule(settings: Settings, *, root: Path, fingerprint: str, flags: RuleFlags = RuleFlags()) -> MaskRule:
    """A scan's raw Surprise Masking rule: flags and config over a thresholds file's entry.

    Scans rank windows globally (one threshold), whatever ranking a saved entry names.
    """
    resolved = resolve_surprise(settings, root=root, fingerprint=fingerprint, flags=flags)
    return MaskRule(
        window=resolved.window, threshold=resolved.threshold, consensus=resolved.consensus,
        propagate=resolved.propagate,
    )


def scan_rules(settings: Settings, *, root: Path, fingerprint: str, thresholds: Path | None = None) -> ScanRules:
    """The kinds to report (``settings.kinds``, else credential and dead-code) and their rules.

    Raises:
        ThresholdsError: an entry is missing, or made for another model fingerprint (the
            message names both and the calibrate command).
    """
    kinds = settings.kinds or DEFAULT_KINDS
    detections = resolve_detections(settings, kinds, root=root, fingerprint=fingerprint, thresholds=thresholds)
    flags = RuleFlags(thresholds=thresholds)  # a file named by the flag is read as export reads it
    surprise = surprise_rule(settings, root=root, fingerprint=fingerprint, flags=flags) if SURPRISE in kinds else None
    return ScanRules(surprise, detections)


def unscored_rules(settings: Settings) -> ScanRules:
    """The rules a report states when nothing was scored: the configured ones, no file read."""
    if SURPRISE not in (settings.kinds or ()):
        return ScanRules(None, ())
    return ScanRules(MaskRule(settings.window, settings.threshold, consensus=settings.consensus, propagate=settings.propagate), ())
