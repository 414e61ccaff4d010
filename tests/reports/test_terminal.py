"""The terminal report: golden output on the fixture scan, width safety, quiet, colour and redaction."""

from __future__ import annotations

import re
from io import StringIO
import pytest
from rich.console import Console

from smscan.records import ScanResult
from smscan.records import Document
from smscan.reports.terminal import render_terminal
from tests.reports.golden import assert_golden, output, plain_console
from tests.reports.scans import LONG_LINE_SECRET, SECRET, fixture_scan


@pytest.mark.parametrize(
    ("name", "width", "redact", "quiet"),
    [
        ("terminal.txt", 80, True, False),
        ("terminal-no-redact.txt", 80, False, False),
        ("terminal-narrow.txt", 40, True, False),
        ("terminal-quiet.txt", 80, True, True),
    ],
)
def test_golden(name: str, width: int, redact: bool, quiet: bool) -> None:
    console = plain_console(width)
    render_terminal(console, fixture_scan(), redact_values=redact, quiet=quiet)
    assert_golden(name, output(console))


def test_an_empty_scan_says_there_was_nothing_to_scan() -> None:
    console = plain_console()
    render_terminal(console, ScanResult(), redact_values=True)
    assert_golden("terminal-empty.txt", output(console))


@pytest.mark.parametrize("width", [24, 33, 50, 79, 120])
def test_no_line_is_wider_than_the_console(width: int) -> None:
    console = plain_console(width)
    render_terminal(console, fixture_scan(), redact_values=False)
    assert max(len(line) for line in output(console).splitlines()) <= width


def test_a_long_path_folds_within_the_width() -> None:
    path = "very/deeply/nested/folder/structure/with/a/long/file_name_settings.py"
    result = fixture_scan([Document(path, f'api_key = "{SECRET}"\n', group="g")])
    console = plain_console(30)
    render_terminal(console, result, redact_values=True)
    text = output(console)
    assert max(len(line) for line in text.splitlines()) <= 30
    assert path in text.replace("\n", "")


def test_a_span_longer_than_the_line_is_cut_and_still_marked() -> None:
    secret = "Ab1" * 60
    result = fixture_scan([Document("k.py", f'api_key = "{secret}"\n', group="g")])
    console = plain_console(40)
    render_terminal(console, result, redact_values=False)
    lines = output(console).splitlines()
    assert any("^" * 20 in line for line in lines)
    assert max(len(line) for line in lines) <= 40


def test_tabs_and_control_characters_keep_the_marks_aligned() -> None:
    result = fixture_scan([Document("t.py", f'\tapi_key = "{SECRET}"\x1b\n', group="g")])
    result.findings = [f for f in result.findings if f.kind == "credential"]
    console = plain_console()
    render_terminal(console, result, redact_values=False)
    lines = output(console).splitlines()
    code = next(line for line in lines if SECRET in line and "│" in line)
    marks = lines[lines.index(code) + 1]
    assert "\x1b" not in code and "\t" not in code
    assert marks.index("^") == code.index(SECRET)
    assert marks.count("^") == len(SECRET)


def test_redaction_hides_every_line_of_a_multi_line_span() -> None:
    console = plain_console()
    render_terminal(console, fixture_scan(), redact_values=True)
    text = output(console)
    assert SECRET not in text and LONG_LINE_SECRET not in text
    assert "def connect" not in text  # inside the multi-line surprise span, drawn as one line


def colours(text: str) -> set[int]:
    """The SGR colour parameters (foreground, background) in ``text``."""
    found = set()
    for codes in re.findall(r"\x1b\[([0-9;]*)m", text):
        found |= {int(c) for c in codes.split(";") if c and (30 <= int(c) <= 49 or 90 <= int(c) <= 107)}
    return found


def test_colour_only_on_a_terminal_without_no_color() -> None:
    def render(environ: dict[str, str], terminal: bool) -> str:
        console = Console(file=StringIO(), width=80, force_terminal=terminal, _environ=environ)
        render_terminal(console, fixture_scan(), redact_values=True)
        return output(console)

    assert colours(render({"TERM": "xterm-256color"}, True))
    assert not colours(render({"TERM": "xterm-256color", "NO_COLOR": "1"}, True))
    assert "\x1b[" not in render({"TERM": "xterm-256color"}, False)


def test_redaction_hides_repeats_of_a_flagged_value_in_the_shown_line() -> None:
    # A test that repeats its secret in the expected output: the flagged span and the repeat are
    # on one line, and a piped report must show neither.
    line = f'assert parse("api_key = {SECRET}") == "dotenv set {SECRET}"\n'
    result = fixture_scan([Document("t.py", f'api_key = "{SECRET}"\n' + line, group="g")])
    console = plain_console(200)
    render_terminal(console, result, redact_values=True)
    text = output(console)
    assert "[24 chars]" in text
    assert SECRET not in text
    assert SECRET[4:] not in text


def test_the_summary_names_the_version_that_made_the_report() -> None:
    # Issue #15: the version in every report; JSON and SARIF carry it in their `tool` objects.
    from smscan import __version__

    console = plain_console(80)
    render_terminal(console, fixture_scan(), redact_values=True, quiet=True)
    assert output(console).splitlines()[0] == f"summary (smscan {__version__})"
