"""The Typer app and its one error boundary.

Exit codes for every command: 0 clean, 1 findings, 2 usage or input error (one line on stderr),
3 internal error (a bug: the traceback is shown), 130 on Ctrl-C.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import typer

from smscan.cli.baseline import baseline_command
from smscan.cli.cache import cache_app
from smscan.cli.calibrate import calibrate_command
from smscan.cli.eval import eval_command
from smscan.cli.explain import explain_command
from smscan.cli.export import export_command
from smscan.cli.interrupt import Interrupted, sigint_raises_interrupted
from smscan.cli.git_modes import (
    diff_command, files_command, hook_command, install_hook_command, staged_command,
)
from smscan.cli.model import model_app
from smscan.cli.repo import repo_command
from smscan.cli.serve import serve_command
from smscan.errors import SmscanError

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
EXIT_BUG = 3
EXIT_INTERRUPTED = 130

app = typer.Typer(
    name="smscan",
    help="Find what a reference language model finds surprising in code.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    pretty_exceptions_show_locals=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.command("repo")(repo_command)
app.command("staged")(staged_command)
app.command("diff")(diff_command)
app.command("files")(files_command)
app.command("hook")(hook_command)
app.command("baseline")(baseline_command)
app.command("install-hook")(install_hook_command)
app.command("calibrate")(calibrate_command)
app.command("eval")(eval_command)
app.command("explain")(explain_command)
app.command("export")(export_command)
app.command("serve")(serve_command)
app.add_typer(model_app, name="model")
app.add_typer(cache_app, name="cache")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code (the console script passes it to sys.exit)."""
    try:
        with sigint_raises_interrupted(), _pull_progress():
            code = app(args=list(argv) if argv is not None else None, standalone_mode=False, prog_name="smscan")
    except Interrupted as interrupt:
        return _interrupted(interrupt)
    except SmscanError as error:
        print(f"smscan: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except typer.Abort:
        print("smscan: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except typer.Exit as exit_:
        return int(exit_.exit_code)
    except typer.TyperException as error:
        # Usage errors from the (vendored) click layer: bad option value, unknown command.
        show = getattr(error, "show", None)
        if callable(show):
            show(file=sys.stderr)
        else:
            print(f"smscan: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt as interrupt:
        return _interrupted(interrupt)
    except Exception:  # noqa: BLE001 - the one place a bug becomes exit 3 with its traceback
        traceback.print_exc()
        print("smscan: internal error (a bug); please report it with the traceback above", file=sys.stderr)
        return EXIT_BUG
    if code == EXIT_INTERRUPTED:  # a KeyboardInterrupt not from SIGINT, which Typer returns as 130
        return _interrupted(KeyboardInterrupt())
    return int(code) if isinstance(code, int) else EXIT_CLEAN


@contextmanager
def _pull_progress() -> Iterator[None]:
    # A model pulled on first use (a scan or export that finds none) shows its stages, download
    # size and rate on stderr, as `smscan model pull` does, not a bare spinner for minutes.
    from smscan.model.pull import BYTE_STAGES, STAGE_LABELS, reporting_pulls
    from smscan.reports.progress import StageProgress

    with StageProgress(sys.stderr, labels=STAGE_LABELS, byte_stages=BYTE_STAGES) as pulls, reporting_pulls(pulls.update):
        yield


def _interrupted(interrupt: BaseException) -> int:
    # One line; a command may say how to continue (export: --resume) as the interrupt's message.
    print(f"smscan: interrupted; {interrupt}" if str(interrupt) else "smscan: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED
