"""The Typer app and its one error boundary.

Exit codes for every command: 0 clean, 1 findings, 2 usage or input error (one line on stderr),
3 internal error (a bug: the traceback is shown), 130 on Ctrl-C.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Annotated, Any

import typer

from smscan.cli.baseline import baseline_command
from smscan.cli.cache import cache_app
from smscan.cli.calibrate import calibrate_command
from smscan.cli.eval import eval_command
from smscan.cli.explain import explain_command
from smscan.cli.export import export_command
from smscan.cli.interrupt import Interrupted, sigint_raises_interrupted
from smscan.cli.git_modes import (
    diff_command,
    files_command,
    hook_command,
    install_hook_command,
    staged_command,
)
from smscan.cli.help import Command, plain_app
from smscan.cli.model import model_app
from smscan.cli.options import FLAG
from smscan.cli.repo import repo_command
from smscan.cli.serve import serve_command
from smscan.cli.services import Services
from smscan.errors import InvalidValue, SmscanError
from smscan.reports.visible import visible

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
EXIT_BUG = 3
EXIT_INTERRUPTED = 130

app = plain_app(
    name="smscan",
    # Help wraps at the terminal width, at most 100 columns.
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)

# Command name, function, the one line the command list shows.
COMMANDS: tuple[tuple[str, Callable[..., Any], str], ...] = (
    ("repo", repo_command, "Scan the files of a work tree or folder."),
    ("staged", staged_command, "Scan what is about to be committed."),
    ("diff", diff_command, "Scan what a commit range added."),
    ("files", files_command, "Scan the given files, whole."),
    ("hook", hook_command, "The pre-commit framework's entry point."),
    ("baseline", baseline_command, "Accept the current findings in a baseline file."),
    ("install-hook", install_hook_command, "Install a plain git pre-commit hook."),
    ("explain", explain_command, "Show why a file's spans were or were not reported."),
    ("calibrate", calibrate_command, "Choose a kind's threshold on labelled data."),
    ("eval", eval_command, "Measure a kind's findings on labelled data."),
    ("export", export_command, "Write masked training records."),
    ("serve", serve_command, "Keep the reference model loaded for fast scans."),
)
for _name, _function, _line in COMMANDS:
    app.command(_name, cls=Command, short_help=_line)(_function)
app.add_typer(model_app, name="model", short_help="Get and inspect the reference model.")
app.add_typer(cache_app, name="cache", short_help="Inspect or clear the score cache.")


def _show_version(value: bool) -> None:
    if value:
        from smscan import __version__

        typer.echo(f"smscan {__version__}")
        raise typer.Exit(EXIT_CLEAN)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", metavar=FLAG, is_eager=True, callback=_show_version, help="Show the version and exit.")
    ] = False,
) -> None:
    """Find what a reference language model finds surprising in code: leaked credentials and
    injected dead code, before they are committed."""


def main(argv: Sequence[str] | None = None, *, services: Services | None = None) -> int:
    """Run the CLI and return its exit code (the console script passes it to sys.exit).

    Args:
        argv: the arguments after the program name (None: ``sys.argv[1:]``).
        services: the model loader, environment and streams commands use (tests pass fakes).

    Returns:
        0 clean, 1 findings, 2 usage or input error, 3 a bug, 130 interrupted.
    """
    args = list(argv) if argv is not None else None
    try:
        with sigint_raises_interrupted(), _pull_progress():
            code = app(args=args, standalone_mode=False, prog_name="smscan", obj=services or Services())
    except Interrupted as interrupt:
        return _interrupted(interrupt)
    except InvalidValue as error:
        # The library names its parameter; the user typed a flag.
        print(f"smscan: error: --{error.name.replace('_', '-')} {error.problem}", file=sys.stderr)
        return EXIT_ERROR
    except SmscanError as error:
        print(f"smscan: error: {visible(str(error))}", file=sys.stderr)
        return EXIT_ERROR
    except typer.Abort:
        print("smscan: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except typer.Exit as exit_:
        return int(exit_.exit_code)
    except typer.TyperException as error:
        if type(error).__name__ == "NoArgsIsHelpError":  # `smscan` or `smscan model` alone: the help
            print(error.format_message(), file=sys.stderr)
            return EXIT_ERROR
        # Usage errors from the (vendored) click layer: bad option value, unknown command.
        print(f"smscan: error: {visible(_usage_message(error))}", file=sys.stderr)
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


def _usage_message(error: Exception) -> str:
    """A click usage error as one line that says where to find help."""
    format_message = getattr(error, "format_message", None)
    message = format_message() if callable(format_message) else str(error)
    message = " ".join(str(message).split())
    context = getattr(error, "ctx", None)
    if context is not None:
        return f"{message} (see '{context.command_path} --help')"
    return message


@contextmanager
def _pull_progress() -> Iterator[None]:
    # A model pulled on first use (a scan or export that finds none) shows its stages, download
    # size and rate on stderr, as `smscan model pull` does, not a bare spinner for minutes.
    from smscan.model.pull_stages import BYTE_STAGES, STAGE_LABELS, reporting_pulls
    from smscan.reports.progress import StageProgress

    with StageProgress(sys.stderr, labels=STAGE_LABELS, byte_stages=BYTE_STAGES) as pulls, reporting_pulls(pulls.update):
        yield


def _interrupted(interrupt: BaseException) -> int:
    # One line; a command may say how to continue (export: --resume) as the interrupt's message.
    print(f"smscan: interrupted; {interrupt}" if str(interrupt) else "smscan: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED
