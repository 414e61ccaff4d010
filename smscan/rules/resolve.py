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
from typing import Any, Literal

from smscan.config.settings import Ranking, Settings
from smscan.detectors import DEFAULT_KINDS, make_detector
from smscan.engine.masking import MaskRule
from smscan.errors import SmscanError, ThresholdsError
from smscan.kinds import CREDENTIAL, SURPRISE
from smscan.records import Detection
from smscan.rules.flags import RuleFlags
from smscan.rules.maskings import DEFAULT_VALUE_THRESHOLD
from smscan.rules.surprise_entries import saved_surprise_entry


@dataclass(frozen=True, slots=True)
class SurpriseParameters:
    """Raw Surprise Masking's resolved values and where the threshold came from."""

    window: int
    threshold: float
    consensus: int
    propagate: bool
    ranking: Ranking = "global"
    source: str = "settings"
    value_threshold: float | None = None
    """Value-aware masking's value threshold from a calibrated entry (None: none saved)."""
    rank_max: float = 10.0
    neighbours: int = 32

    def mask_rule(self) -> MaskRule:
        """These values as the one rule type scans, exports and calibration mask with.

        Raises:
            ValueError: the values do not make a rule (consensus above the window, say).
        """
        return MaskRule(
            window=self.window, threshold=self.threshold, ranking=self.ranking, rank_max=self.rank_max,
            neighbours=self.neighbours, consensus=self.consensus, propagate=self.propagate,
        )


def resolve_detections(
    settings: Settings,
    kinds: tuple[str, ...],
    *,
    root: Path | None,
    fingerprint: str,
    thresholds: Path | None = None,
    point: str | None = None,
    threshold: float | None = None,
) -> tuple[Detection, ...]:
    """Each detector kind of ``kinds`` with the threshold calibrated for ``fingerprint`` (at the
    saved operating point ``point`` when given; ``threshold`` replaces the saved one and no file is
    read: the detector keeps its default rule).

    Raises:
        ThresholdsError: a kind has no entry, its first entry was made for another model, or it
            has no operating point ``point``.
    """
    from smscan.rules.thresholds_file import find_entry, threshold_files

    wanted = [kind for kind in kinds if kind != SURPRISE]
    if not wanted:
        return ()
    if threshold is not None:
        return tuple(Detection(make_detector(kind), threshold, "--threshold") for kind in wanted)
    files = threshold_files(root, flag=thresholds, configured=settings.thresholds)
    detections = []
    for kind in wanted:
        entry = find_entry(files, kind, fingerprint=fingerprint, model=settings.model)
        if point is None:
            detections.append(Detection(make_detector(kind, entry.rule), entry.threshold, entry.source))
        else:
            detections.append(Detection(make_detector(kind, entry.rule), entry.operating_point(point), f"{entry.source} ({point})"))
    return tuple(detections)


def resolve_surprise(
    settings: Settings, *, root: Path | None, fingerprint: str, flags: RuleFlags = RuleFlags()
) -> SurpriseParameters:
    """Raw Surprise Masking's window selection (ranking and its cutoff), consensus and propagation.

    A saved entry's threshold is its ranking's cutoff (nats for ``global``, ``rank_max`` for
    ``local``); it is used under that ranking only.

    Raises:
        ThresholdsError: ``flags.operating_point`` names no saved point, or there is no entry for
            it; a file the user named holds a ``surprise`` entry made for another model, or
            calibrated under another window selection than the one the flags or config choose;
            the saved rule holds values no rule can have (or none combined with the settings).
        SmscanError: a cutoff flag of the window selection not in use.
    """
    saved, tau, source = saved_surprise_entry(settings, root=root, fingerprint=fingerprint, flags=flags)
    try:
        resolved = _resolve_surprise(settings, flags, saved, tau, source)
        resolved.mask_rule()  # a saved rule the settings cannot combine with fails here, named
    except (TypeError, ValueError) as error:
        raise ThresholdsError(f"surprise rule ({source}): {error}") from error
    return resolved


def _resolve_surprise(
    settings: Settings, flags: RuleFlags, saved: dict[str, Any], tau: float | None, source: str
) -> SurpriseParameters:
    """Each value of the rule by precedence (module docstring); the cutoff of the ranking in use."""

    def pick(key: str, flag: Any, saved_value: Any) -> Any:
        if flag is not None:
            return flag
        if key in settings.given or saved_value is None:
            return getattr(settings, key)
        return saved_value

    ranking = str(pick("ranking", flags.ranking, saved.get("ranking")))
    if ranking not in ("global", "local"):
        raise ValueError(f"ranking must be global or local, got {ranking!r}")
    if saved and saved.get("ranking", "global") != ranking:
        raise _other_selection(source, saved=str(saved.get("ranking", "global")), used=ranking, settings=settings, flags=flags)
    _refuse_other_cutoff(ranking, settings=settings, flags=flags)
    # The cutoff of the ranking in use: a flag, else a value the user chose, else the entry's.
    cutoff_key, cutoff_flag = ("threshold", flags.threshold) if ranking == "global" else ("rank_max", flags.rank_max)
    cutoff: float
    if cutoff_flag is not None:
        cutoff, source = cutoff_flag, "--threshold" if ranking == "global" else "--rank-max"
    elif flags.operating_point is None and (cutoff_key in settings.given or tau is None):
        cutoff, source = getattr(settings, cutoff_key), "settings"
    else:
        assert tau is not None
        cutoff = tau
    return SurpriseParameters(
        window=int(pick("window", flags.window, saved.get("window"))),
        threshold=float(cutoff) if ranking == "global" else settings.threshold,
        consensus=int(pick("consensus", flags.consensus, saved.get("consensus"))),
        propagate=bool(pick("propagate", flags.propagate, saved.get("propagate"))),
        ranking="local" if ranking == "local" else "global",  # checked above; narrows the type
        source=source,
        value_threshold=None if saved.get("value_threshold") is None else float(saved["value_threshold"]),
        rank_max=float(cutoff) if ranking == "local" else settings.rank_max,
        neighbours=int(pick("neighbours", flags.neighbours, saved.get("neighbours"))),
    )


def _refuse_other_cutoff(ranking: str, *, settings: Settings, flags: RuleFlags) -> None:
    """A cutoff flag of the ranking not in use would be ignored: say so instead (exit 2). A config
    file may hold both cutoffs (one for each ranking a flag may choose), so only flags are checked."""
    other_key, other_flag = ("rank_max", flags.rank_max) if ranking == "global" else ("threshold", flags.threshold)
    named = "--rank-max" if other_key == "rank_max" else "--threshold"
    if other_flag is None and settings.origin(other_key) != named:  # scans pass their flags as settings
        return
    use = "--threshold (nats)" if ranking == "global" else "--rank-max (percent)"
    raise SmscanError(f"{named} is the cutoff of {'local' if ranking == 'global' else 'global'} window selection, "
                       f"but the selection in use is {ranking}: give {use}, or choose the ranking that cutoff belongs to")


def _other_selection(source: str, *, saved: str, used: str, settings: Settings, flags: RuleFlags) -> Exception:
    """The one message for a ``surprise`` entry calibrated under another window selection."""
    chosen_by = "--ranking" if flags.ranking is not None else settings.origin("ranking") or "the ranking given"
    return ThresholdsError(
        f"{source}: the surprise threshold was calibrated with {saved} window selection, but {chosen_by} "
        f"selects {used}; a threshold never applies under another selection rule: calibrate one with "
        f"`smscan calibrate --kind surprise --ranking {used} --labels FILE -o .smscan/thresholds.json`, "
        f"or select with ranking = \"{saved}\""
    )


Purpose = Literal["scan", "export", "eval"]
"""Which command's defaults :func:`resolve_rules` applies: a scan reports credential and dead-code
findings, an export masks raw ``surprise`` (plus credential findings under value-aware masking),
eval measures exactly the kinds it is given, at a named operating point when one is asked for."""


@dataclass(frozen=True, slots=True)
class Rules:
    """What a command reports or masks: raw ``surprise`` (when asked for) and each detector's
    findings at its threshold.

    Attributes:
        surprise: the raw Surprise Masking rule, or None when ``surprise`` is not a kind.
        detections: the detectors with their calibrated thresholds.
        value_threshold: value-aware masking's value threshold (exports; None: the raw rule alone).
        note: a one-line note for the summary (a default kind left out, and why), or None.
        surprise_source: where the raw rule's cutoff came from.
    """

    surprise: MaskRule | None
    detections: tuple[Detection, ...]
    value_threshold: float | None = None
    note: str | None = None
    surprise_source: str = ""
    """Where the raw rule's cutoff came from (a flag, the settings, or a thresholds file)."""

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


def resolve_rules(
    settings: Settings, flags: RuleFlags = RuleFlags(), *, root: Path | None, fingerprint: str, purpose: Purpose = "scan"
) -> Rules:
    """The one place every command and the Python API resolve their kinds, rules and thresholds.

    Args:
        settings: the command's settings (``settings.kinds`` unset: the purpose's default kinds).
        flags: the command's own rule flags (they beat the config, files and defaults).
        root: where the repository's thresholds file is looked up; None reads no repository file
            (the Python API: flags, the config's file and the packaged defaults only).
        fingerprint: the scoring model's fingerprint (a threshold belongs to one model).
        purpose: whose defaults apply (:data:`Purpose`).

    Returns:
        The resolved :class:`Rules`.

    Raises:
        ThresholdsError: an entry is missing, or made for another model (the message names both
            and the calibrate command); an operating point that was never saved.
        SmscanError: a rule value out of range.

    Example:
        >>> rules = resolve_rules(Settings(), root=Path("."), fingerprint=fp)  # doctest: +SKIP
        >>> rules.kinds
        ('credential', 'dead-code')
    """
    if purpose == "export":
        return _export_rules(settings, flags, root=root, fingerprint=fingerprint)
    kinds = settings.kinds or (DEFAULT_KINDS if purpose == "scan" else ())
    point = flags.operating_point if purpose == "eval" else None
    threshold = flags.threshold if purpose == "eval" and SURPRISE not in kinds else None
    detections = resolve_detections(
        settings, kinds, root=root, fingerprint=fingerprint, thresholds=flags.thresholds, point=point, threshold=threshold
    )
    if purpose == "scan":
        flags = RuleFlags(thresholds=flags.thresholds)  # a scan's rule flags arrive as settings
    if SURPRISE not in kinds:
        return Rules(None, detections)
    resolved = resolve_surprise(settings, root=root, fingerprint=fingerprint, flags=flags)
    value_threshold = resolved.value_threshold if purpose == "eval" else None
    return Rules(resolved.mask_rule(), detections, value_threshold, surprise_source=resolved.source)


def _export_rules(settings: Settings, flags: RuleFlags, *, root: Path | None, fingerprint: str) -> Rules:
    """An export masks ``surprise`` unless ``kinds`` says otherwise; value-aware masking
    (``flags.masking == "values"``) adds credential findings to the default kinds when the model
    has a calibrated credential entry, and says so in ``note`` when it has none."""
    kinds = settings.kinds or (SURPRISE,)
    rule, value_threshold = None, None
    if SURPRISE in kinds:
        resolved = resolve_surprise(settings, root=root, fingerprint=fingerprint, flags=flags)
        try:
            rule = resolved.mask_rule()
        except ValueError as error:
            raise SmscanError(f"export rule: {error}") from error
        if flags.masking == "values":
            value_threshold = DEFAULT_VALUE_THRESHOLD if resolved.value_threshold is None else resolved.value_threshold
        source = resolved.source
    else:
        source = ""
    if flags.masking == "values" and not settings.kinds:
        try:
            detections = resolve_detections(settings, (CREDENTIAL,), root=root, fingerprint=fingerprint, thresholds=flags.thresholds)
        except ThresholdsError as error:
            return Rules(rule, (), value_threshold, f"note: credential findings are not masked: {error}", source)
        return Rules(rule, detections, value_threshold, surprise_source=source)
    detections = resolve_detections(settings, kinds, root=root, fingerprint=fingerprint, thresholds=flags.thresholds)
    return Rules(rule, detections, value_threshold, surprise_source=source)


def unscored_rules(settings: Settings) -> Rules:
    """The rules a report states when nothing was scored: the configured ones, no file read."""
    if SURPRISE not in (settings.kinds or ()):
        return Rules(None, ())
    return Rules(settings_rule(settings), ())


def settings_rule(settings: Settings) -> MaskRule:
    """The raw rule the configured values alone make (no thresholds file read)."""
    return MaskRule(
        settings.window, settings.threshold, ranking=settings.ranking, rank_max=settings.rank_max,
        neighbours=settings.neighbours, consensus=settings.consensus, propagate=settings.propagate,
    )
