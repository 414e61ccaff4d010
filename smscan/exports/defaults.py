"""What a plain ``smscan export`` masks besides surprise: the credential detector's findings.

A user who asks for a masked export expects every credential the scanner would report to be
masked whole, so the default export (``--masking values`` with no ``--kinds``) adds the
``credential`` kind at its calibrated threshold. A threshold is only meaningful for the model it
was calibrated for; with a model that has no ``credential`` entry the export masks surprise
alone and says so (``note``), rather than refusing a default the user never asked for.
"""

from __future__ import annotations

from pathlib import Path

from smscan.config import Settings
from smscan.errors import ThresholdsError
from smscan.kinds import CREDENTIAL
from smscan.rules import Detection, resolve_detections


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
