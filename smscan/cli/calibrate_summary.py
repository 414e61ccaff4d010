"""The summary `smscan calibrate` prints after saving an entry: threshold, validation and
cross-validated metrics, operating points."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from smscan.kinds import SURPRISE


def print_calibration_summary(console: Console, kind: str, output: Path, entry: dict[str, Any]) -> None:
    if kind == SURPRISE:
        _print_surprise_summary(console, output, entry)
        return
    unit = entry["unit"]
    validation = entry["validation"][unit]
    cv = entry["cross_validation"]
    console.print(f"{kind}: threshold {entry['threshold']:.4f} nats ({entry['criterion']}) saved to {output}")
    console.print(
        f"  validation ({unit}s, {entry['examples']} examples): TPR {validation['tpr']:.3f}  "
        f"FPR {validation['fpr']:.5f}  precision {validation['precision']:.3f}  F1 {validation['f1']:.3f}  "
        f"AUROC {validation['auroc']}"
    )
    console.print(
        f"  {cv['folds']}-fold cross-validated: TPR {cv['tpr']:.3f}  FPR {cv['fpr']:.5f}  "
        f"precision {cv['precision']:.3f}  F1 {cv['f1']:.3f}"
    )
    points = ", ".join(f"{name} {point['threshold']:.3f}" for name, point in entry["operating_points"].items())
    console.print(f"  operating points: {points}")


def _print_surprise_summary(console: Console, output: Path, entry: dict[str, Any]) -> None:
    rule = entry["rule"]
    validation = entry["validation"]["token"]
    margin = f", values whole at randomness {rule['value_threshold']}" if rule.get("masking") == "values" else ", paper rule"
    cutoff = f"threshold {entry['threshold']:.4f} nats" if rule.get("ranking", "global") == "global" else (
        f"local ranking, rank_max {entry['threshold']:.4f} of {rule['neighbours']} neighbours each side"
    )
    console.print(
        f"surprise: {cutoff} ({entry['criterion']}; window {rule['window']}, "
        f"consensus {rule['consensus']}, propagation {'on' if rule['propagate'] else 'off'}{margin}) saved to {output}"
    )
    console.print(
        f"  validation (reference tokens, {entry['examples']} examples): target coverage "
        f"{validation['tpr']:.3f}  collateral rate {validation['fpr']:.5f}  F1 {validation['f1']:.3f}"
    )
    cv = entry.get("cross_validation")
    if cv:
        console.print(
            f"  {cv['folds']}-fold cross-validated: target coverage {cv['tpr']:.3f}  "
            f"collateral rate {cv['fpr']:.5f}  F1 {cv['f1']:.3f}"
        )
        if "spread" in cv:
            spread = cv["spread"]
            console.print(
                f"  spread over folds: coverage {spread['tpr_mean']:.3f} ± {spread['tpr_std']:.3f} (min {spread['tpr_min']:.3f})  "
                f"collateral {spread['fpr_mean']:.4f} ± {spread['fpr_std']:.4f} (max {spread['fpr_max']:.4f})"
            )
    if entry.get("landing", {}).get("margin"):
        console.print(f"  landing: value threshold lowered by {entry['landing']['margin']:.3f}, the worst fold's overshoot")
    if entry.get("curve"):
        curve = "  ".join(f"{p['value_threshold']:.2f}:{p['tpr']:.3f}/{p['fpr']:.4f}" for p in entry["curve"])
        console.print(f"  validation curve (value threshold:coverage/collateral): {curve}")
    points = ", ".join(
        f"{name} {point.get('value_threshold', point['threshold']):.3f} ({point['tpr']:.3f}/{point['fpr']:.4f})"
        for name, point in entry["operating_points"].items()
    )
    console.print(f"  operating points (threshold, coverage/collateral): {points}")
