"""A learned judgement's parameters, read from JSON with numpy: no pickle, no scikit-learn.

A judgement file (``format: "smscan-judgement"``, ``version: 1``) holds two logistic models over
the features of :mod:`smscan.detectors.judgement.features`, each named by its features::

    {"format": "smscan-judgement", "version": 1, "kind": "credential",
     "cheap": {"features": [...], "mean": [...], "scale": [...], "coef": [...], "intercept": 0.0,
               "sure_out": -4.0, "sure_in": 6.0},
     "full":  {"features": [...], "mean": [...], "scale": [...], "coef": [...], "intercept": 0.0},
     "trained": {... provenance: command, sources, date ...}}

A model's log-odds are ``intercept + sum(coef * (x - mean) / scale)``; each term is that
feature's push in or out, what ``smscan explain`` shows. The cheap model decides alone below
``sure_out`` (never a credential) and at or above ``sure_in`` (a credential without the model);
in between the full model, which adds the reference model's surprise, decides.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

from smscan.errors import SmscanError

FORMAT = "smscan-judgement"
VERSION = 1
PACKAGED = "credential_judgement.json"


@dataclass(frozen=True)
class LinearModel:
    """A logistic model over named features, standardised by ``mean`` and ``scale``."""

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], known: Sequence[str], *, where: str) -> LinearModel:
        """The model in ``data``; its features must all be ``known`` and its numbers finite.

        Raises:
            SmscanError: a missing or malformed part, named with ``where``.
        """
        try:
            features = tuple(str(name) for name in data["features"])
            arrays = [np.asarray(data[part], dtype=np.float64) for part in ("mean", "scale", "coef")]
            intercept = float(data["intercept"])
        except (KeyError, TypeError, ValueError) as error:
            raise SmscanError(f"{where}: not a judgement model ({error})") from None
        unknown = [name for name in features if name not in known]
        if unknown:
            raise SmscanError(f"{where}: unknown features {', '.join(unknown[:5])}")
        for array in arrays:
            if array.shape != (len(features),) or not np.isfinite(array).all():
                raise SmscanError(f"{where}: mean, scale and coef need one finite number per feature")
        if not math.isfinite(intercept) or (arrays[1] <= 0).any():
            raise SmscanError(f"{where}: the intercept must be finite and every scale positive")
        return cls(features, arrays[0], arrays[1], arrays[2], intercept)

    def as_dict(self) -> dict[str, Any]:
        return {
            "features": list(self.features), "mean": self.mean.tolist(), "scale": self.scale.tolist(),
            "coef": self.coef.tolist(), "intercept": self.intercept,
        }

    def select(self, vector: np.ndarray, index: Mapping[str, int]) -> np.ndarray:
        """This model's features out of a full feature vector laid out by ``index``."""
        return vector[[index[name] for name in self.features]]

    def terms(self, x: np.ndarray) -> np.ndarray:
        """Each feature's push on the log-odds (positive: towards a credential)."""
        return np.asarray(self.coef * (x - self.mean) / self.scale, dtype=np.float64)

    def log_odds(self, x: np.ndarray) -> float:
        return self.intercept + float(self.terms(x).sum())

    def pushes(self, x: np.ndarray, top: int = 4) -> list[tuple[str, float]]:
        """The ``top`` features that pushed ``x`` most, in or out, largest first."""
        terms = self.terms(x)
        order = np.argsort(-np.abs(terms), kind="stable")[:top]
        return [(self.features[i], round(float(terms[i]), 3)) for i in order if terms[i] != 0]


@dataclass(frozen=True)
class Judgement:
    """The cheap and the full model of a judgement file, and the cheap model's two cut-offs."""

    cheap: LinearModel
    full: LinearModel
    sure_out: float
    sure_in: float
    digest: str
    """The first 16 hex digits of the file's SHA-256: saved in the rule a threshold was calibrated for."""

    @classmethod
    def from_json(cls, text: str, *, where: str) -> Judgement:
        from smscan.detectors.judgement.features import CHEAP_FEATURES, FEATURES

        try:
            data = json.loads(text)
        except ValueError as error:
            raise SmscanError(f"{where}: not JSON ({error})") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != VERSION:
            raise SmscanError(f"{where}: not a {FORMAT} file of version {VERSION}")
        if not isinstance(data.get("cheap"), dict) or not isinstance(data.get("full"), dict):
            raise SmscanError(f"{where}: needs a 'cheap' and a 'full' model")
        cheap = LinearModel.from_dict(data["cheap"], CHEAP_FEATURES, where=f"{where} (cheap)")
        full = LinearModel.from_dict(data["full"], FEATURES, where=f"{where} (full)")
        try:
            sure_out, sure_in = float(data["cheap"]["sure_out"]), float(data["cheap"]["sure_in"])
        except (KeyError, TypeError, ValueError):
            raise SmscanError(f"{where}: the cheap model needs 'sure_out' and 'sure_in'") from None
        if not sure_out <= sure_in:
            raise SmscanError(f"{where}: sure_out must not be above sure_in")
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
        return cls(cheap, full, sure_out, sure_in, digest)


_packaged: Judgement | None = None


def packaged_judgement() -> Judgement:
    """The judgement shipped with smscan (read once)."""
    global _packaged
    if _packaged is None:
        text = resources.files("smscan.detectors.judgement").joinpath(PACKAGED).read_text("utf-8")
        _packaged = Judgement.from_json(text, where=PACKAGED)
    return _packaged
