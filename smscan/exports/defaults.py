"""An export's rules (:func:`export_rules`), and what a plain ``smscan export`` masks besides
surprise: the credential detector's findings.

A user who asks for a masked export expects every credential the scanner would report to be
masked whole, so the default export (``--masking values`` with no ``--kinds``) adds the
``credential`` kind at its calibrated threshold. A threshold is only meaningful for the model it
was calibrated for; with a model that has no ``credential`` entry the export masks surprise
alone and says so (``note``), rather than refusing a default the user never asked for.
"""

from __future__ import annotations

from pathlib import Path

from smscan.config.settings import Settings
from smscan.errors import SmscanError, ThresholdsError
from smscan.kinds import CREDENTIAL, SURPRISE
from smscan.engine.masking import MaskRule
from smscan.rules.flags import RuleFlags
from smscan.rules.resolve import Detection, resolve_detections, resolve_surprise


def export_rules(
    settings: Settings, *, root: Path, fingerprint: str, flags: RuleFlags, masking: str = "paper"
) -> tuple[MaskRule | None, tuple[Detection, ...], float | None, str | None]:
    """The masking rule, detections, value threshold (None: raw rule alone) and a note for the
    summary, resolved as every command resolves them (``smscan.rules.resolve``: flag > config >
    thresholds file > packaged default). An export masks ``surprise`` unless ``kinds`` says
    otherwise; ``masking="values"`` adds credential findings to the default kinds
    (:func:`default_export_detections`). ``flags.masking`` picks the thresholds file's ``surprise``
    entry calibrated for that masking.

    Raises:
        SmscanError: a rule value out of range (``ThresholdsError``: a missing or foreign entry).
    """
    kinds = settings.kinds or (SURPRISE,)
    rule, value_threshold = None, None
    if SURPRISE in kinds:
        resolved = resolve_surprise(settings, root=root, fingerprint=fingerprint, flags=flags)
        try:
            rule = resolved.mask_rule()
        except ValueError as error:
            raise SmscanError(f"export rule: {error}") from error
        if masking == "values":
            from smscan.exports.values import DEFAULT_VALUE_THRESHOLD

            value_threshold = DEFAULT_VALUE_THRESHOLD if resolved.value_threshold is None else resolved.value_threshold
    if masking == "values" and not settings.kinds:
        detections, note = default_export_detections(settings, root=root, fingerprint=fingerprint, thresholds=flags.thresholds)
        return rule, detections, value_threshold, note
    detections = resolve_detections(settings, kinds, root=root, fingerprint=fingerprint, thresholds=flags.thresholds)
    return rule, detections, value_threshold, None


def default_export_detections(
    settings: Settings, *, root: Path, fingerprint: str, thresholds: Path | None
) -> tuple[tuple[Detection, ...], str | None]:
    """The default export's detections: ``credential`` when calibrated for the model.

    Args:
        settings: the export's settings (``settings.kinds`` unset).
        root: where the repository's thresholds file is looked up.
        fingerprint: the scoring model's fingerprint.
        thresholds: ``--thresholds FILE``, if given.

    Returns:
        The detections, and a one-line note when credential findings are left out (else None).
    """
    try:
        return resolve_detections(settings, (CREDENTIAL,), root=root, fingerprint=fingerprint, thresholds=thresholds), None
    except ThresholdsError as error:
        return (), f"note: credential findings are not masked: {error}"
