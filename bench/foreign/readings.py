"""Look-alikes as a reviewer reads them: which of the flagged look-alikes are credentials after all.

A source's look-alikes are the strings its own rules reject: a Google API key Gitleaks allowlists,
a typed password a Nosey Parker rule does not match, a Discord token one character short. Many are
values any reviewer would stop a commit for. ``readings.jsonl`` holds one reading per look-alike a
tool flagged, written by a person who read it in its file: ``credential`` (a value a reviewer
calls a secret: drawn, typed or shaped like one, whatever the source's rule says) or
``not-credential`` (a name, a public value, a stand-in made of words, a CSRF token, ...), with
why. Only look-alikes some tool flagged are read; the others count as not credentials, so the rate
reported (non-credentials flagged over the look-alikes not read as credentials, the same
denominator for every tool on the sample) is an upper bound of the share a tool flags.

    python -m bench.foreign readings --work W [--tool smscan] [--readings bench/foreign/readings.jsonl]

Look-alikes a tool flags that have no reading yet are listed (source, id, index): read them,
add their lines, run again. The readings name items, never their values.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

READINGS = Path(__file__).with_name("readings.jsonl")
VERDICTS = ("credential", "not-credential")


@dataclass(frozen=True)
class Reading:
    source: str
    id: str
    index: int
    verdict: str
    why: str


class ReadingsError(Exception):
    """A malformed readings file: one message, exit code 2."""


def load_readings(path: Path) -> dict[tuple[str, str, int], Reading]:
    """The readings of ``path`` by ``(source, id, index of the look-alike in its example)``."""
    readings: dict[tuple[str, str, int], Reading] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            reading = Reading(str(row["source"]), str(row["id"]), int(row["index"]), str(row["verdict"]), str(row["why"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise ReadingsError(f"{path}:{number}: not a reading ({exc})") from exc
        if reading.verdict not in VERDICTS:
            raise ReadingsError(f"{path}:{number}: verdict must be one of {', '.join(VERDICTS)}")
        readings[(reading.source, reading.id, reading.index)] = reading
    return readings


def flagged_lookalikes(work: Path, tool: str) -> tuple[list[tuple[str, str, int]], list[tuple[str, str, int]]]:
    """The keys of every look-alike of the scored sample under ``work``, and of those ``tool`` flagged."""
    predictions = json.loads((work / "data" / "preds" / f"{tool}.json").read_text(encoding="utf-8"))["files"]
    every = []
    flagged = []
    for line in (work / "data" / "labels.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        spans = predictions.get(row["path"], [])
        for index, negative in enumerate(row["negatives"]):
            every.append((row["source"], row["id"], index))
            if any(start < negative["end"] and end > negative["start"] for start, end in spans):
                flagged.append(every[-1])
    return every, flagged


def report(work: Path, tool: str, readings_path: Path) -> str:
    """Flagged look-alikes by their reading, per source, as Markdown."""
    readings = load_readings(readings_path)
    every, flagged = flagged_lookalikes(work, tool)
    sources = sorted({key[0] for key in flagged})
    unread = [key for key in flagged if key not in readings]
    lines = [
        f"{tool}: {len(flagged)} of {len(every)} look-alikes flagged; read as credentials / not credentials / unread.",
        "",
        "| source | flagged | credentials | not credentials | unread |",
        "|---|---|---|---|---|",
    ]
    for source in [*sources, "all"]:
        keys = [key for key in flagged if source in ("all", key[0])]
        verdicts = [readings[key].verdict if key in readings else "unread" for key in keys]
        lines.append(
            f"| {source} | {len(keys)} | {verdicts.count('credential')} | {verdicts.count('not-credential')} | {verdicts.count('unread')} |"
        )
    # Every look-alike of the sample read as a credential, whichever tool flagged it: the same
    # denominator for every tool scored on the sample.
    credentials = sum(1 for key in every if key in readings and readings[key].verdict == "credential")
    not_credentials = sum(1 for key in flagged if key in readings and readings[key].verdict == "not-credential")
    others = len(every) - credentials
    lines += [
        "",
        f"Non-credentials flagged, at most: {not_credentials} of the {others} look-alikes not read as credentials "
        f"({not_credentials / max(others, 1):.3f}); as the sources label them: {len(flagged)} of {len(every)} "
        f"({len(flagged) / max(len(every), 1):.3f}).",
    ]
    if unread:
        lines += ["", "Unread (source, id, index): " + "; ".join(f"{s} {i} {n}" for s, i, n in unread)]
    return "\n".join(lines)


def readings_cmd(a: argparse.Namespace) -> int:
    try:
        print(report(a.work, a.tool, a.readings))
    except FileNotFoundError as exc:
        raise ReadingsError(f"{exc.filename}: no such file (is --work an eval run's folder, with --tool's predictions?)") from exc
    return 0
