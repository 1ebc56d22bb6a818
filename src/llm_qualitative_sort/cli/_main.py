"""The entry point: parse, prepare the run, run it, and turn failures into exit codes.

Only argument parsing is imported up front: `--help`, a usage error or `--version` must not
pay for LangGraph and LangChain, which take most of a second to import.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO, cast

from llm_qualitative_sort.cli._exits import (
    EXIT_CLOSED_OUTPUT,
    EXIT_DETACHED,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_LOCKED,
    EXIT_OK,
    EXIT_STOPPED,
    EXIT_USAGE,
    UsageError,
)
from llm_qualitative_sort.cli._inputs import InputError
from llm_qualitative_sort.cli._parser import build_parser
from llm_qualitative_sort.cli._report import ReportPathError
from llm_qualitative_sort.cli._terminal import escaped, lines, one_line

if TYPE_CHECKING:
    # Only for annotations: the settings load pydantic, which parsing must not.
    from llm_qualitative_sort.cli._config import RunConfig
    from llm_qualitative_sort.cli._run import Plan

def usage_errors() -> tuple[type[BaseException], ...]:
    """Errors that mean "nothing ran, fix the command": exit 2, one line, no traceback."""
    from llm_qualitative_sort.cli._inventory import StorageError
    from llm_qualitative_sort.cli._providers import ProviderUnavailable
    from llm_qualitative_sort.cli._settings import SettingsError
    from llm_qualitative_sort.errors import RunMismatchError
    from llm_qualitative_sort.stores.cache import CacheError
    from llm_qualitative_sort.stores.postgres_connect import MissingExtra

    return (UsageError, InputError, SettingsError, ReportPathError, ProviderUnavailable,
            StorageError, CacheError, RunMismatchError, MissingExtra, ValueError, TypeError,
            OSError)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit code (see `llm-qualitative-sort --help`)."""
    args = build_parser().parse_args(argv)
    original = sys.stderr
    stderr = _Stderr(original)
    # A cast: the guard passes every other attribute on to the stream it wraps.
    sys.stderr = cast("TextIO", stderr)
    try:
        code = _dispatch(args)
    except BrokenPipeError:
        code = _output_closed()
    finally:
        sys.stderr = original
    return EXIT_CLOSED_OUTPUT if stderr.closed_early and code == EXIT_OK else code


class _Stderr:
    """The command's stderr: a reader that stops reading it (`2>&1 | head`) stops no run.

    A progress line written after the reader left would otherwise raise in the middle of the
    run. As for a closed stdout, the run goes on to its end with its report, the rest of
    stderr goes nowhere, and the command ends with exit 141.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.closed_early = False

    def write(self, text: str) -> int:
        if not self.closed_early:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._lost()
        return len(text)

    def flush(self) -> None:
        if not self.closed_early:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._lost()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def _lost(self) -> None:
        self.closed_early = True
        # What the stream still buffers would fail again when Python flushes it at exit.
        try:
            fd = self._stream.fileno()
        except (OSError, ValueError):  # not a file (pytest's capture): nothing to flush
            return
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)


def _dispatch(args: argparse.Namespace) -> int:
    try:
        if args.command in ("runs", "report"):
            from llm_qualitative_sort.cli._runs import runs_command

            return runs_command(args)
        if args.command == "calibrate":
            return _calibrate(args)
        from llm_qualitative_sort.cli._prepare import prepare

        plan = prepare(args)
    except BrokenPipeError:
        raise
    except usage_errors() as exc:
        return fail(exc, bool(args.verbose))
    return EXIT_OK if plan is None else _run(plan)  # a dry run prepares, runs nothing


def _calibrate(args: argparse.Namespace) -> int:
    from llm_qualitative_sort.cli._calibrate import calibrate_command
    from llm_qualitative_sort.errors import RunLockedError, RunStoppedError

    try:
        print(calibrate_command(args), end="")
    except RunLockedError as exc:
        print(f"error: {one_line(exc.reason, None)}\nnothing was called; run the same command "
              "again once its holder has stopped", file=sys.stderr)
        return EXIT_LOCKED
    except RunStoppedError as exc:
        print(f"error: {one_line(exc.reason, None)}\nthe answers so far are kept: run the same "
              "command again to go on", file=sys.stderr)
        return EXIT_STOPPED
    except KeyboardInterrupt:
        print("interrupted: the answers so far are kept; run the same command again to go on",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_OK


def _run(plan: Plan) -> int:
    import asyncio

    from llm_qualitative_sort.cli._run import OutputClosed, execute
    from llm_qualitative_sort.cli._signals import Signalled
    from llm_qualitative_sort.errors import (
        DamagedJournalError,
        RunDetached,
        RunLockedError,
        RunStoppedError,
    )

    config = plan.config
    try:
        asyncio.run(execute(plan, sys.stdout))
    except KeyboardInterrupt:
        return _stopped("interrupted", config, EXIT_INTERRUPTED, saved=_input_saved(plan))
    except Signalled as exc:
        return _stopped(str(exc), config, exc.exit_code, saved=_input_saved(plan))
    except OutputClosed:
        return _output_closed()
    except RunLockedError as exc:
        reason = one_line(exc.reason, None)
        print(f"error: {reason}\nnothing was called; wait for it with --wait SECONDS, or "
              "resume the run once its holder has stopped", file=sys.stderr)
        return EXIT_LOCKED
    except RunStoppedError as exc:
        cause = exc.__cause__
        steps = cause.steps if isinstance(cause, DamagedJournalError) else []
        return _stopped(one_line(exc.reason, None), config, EXIT_STOPPED,
                        saved=exc.input_saved, first=steps)
    except RunDetached as exc:
        _detached(exc, config)
        return EXIT_DETACHED
    except KeyError as exc:
        if str(exc.args[0] if exc.args else "").startswith("no run "):
            return fail(exc, config.verbose)
        return _internal(exc, config)
    except usage_errors() as exc:
        started_by = getattr(exc, "started_by", None)
        if started_by is not None:  # the command line has no allow_judge_change
            exc = UsageError(
                f"run {config.run_id!r} was started by the judge {started_by!r}, which these "
                "settings do not make: resume it with the flags that made it, or from Python "
                f"(`await sorter.resume({config.run_id!r})`) if it was started there")
        return fail(exc, config.verbose)
    except Exception as exc:
        return _internal(exc, config)
    return EXIT_OK


def _stopped(what: str, config: RunConfig, code: int, *, saved: bool = True,
             first: Sequence[tuple[str, str]] = ()) -> int:
    """Say why the run stopped and how to go on.

    Resume it; or, `saved` false (its input never reached the store), run the same command
    again under the same id. `first`: what to do before a resume that would otherwise stop
    the same way, as (words, command), one of them.
    """
    from llm_qualitative_sort.cli._run import shown_checkpoint
    from llm_qualitative_sort.stores.default import default_checkpoint_path

    ways = "".join(f"\n  {'or ' if n else ''}{one_line(words, None)}:\n    {command}"
                   for n, (words, command) in enumerate(first))
    before = (" (a resume alone would stop the same way), so first" + ways + "\nthen "
              if first else "\n")
    text = (f"{what}\nrun id {config.run_id}: everything finished so far is saved in "
            f"{shown_checkpoint(config)}{before}resume with:\n  "
            f"{config.resume_command(default_checkpoint_path())}")
    if not saved:
        text = (f"{what}\nrun id {config.run_id}: it stopped before its input was saved, so "
                "it cannot be resumed; run the same command again with --run-id "
                f"{config.run_id} (the answers already paid for are reused)")
    try:
        print(lines(text), file=sys.stderr, flush=True)
    except OSError:
        pass  # SIGHUP: the terminal may be gone; the run is saved all the same
    return code


def _input_saved(plan: Plan) -> bool:
    """Whether an interrupted run can be resumed: its input reached the store.

    A Ctrl-C (or a signal) in a new run's first moments can stop it before LangGraph wrote
    its input. Looked up in the store; a resumed run, or a store that cannot be read now,
    counts as saved (the resume then says what it finds).
    """
    if plan.texts is None:
        return True
    import asyncio
    from pathlib import Path

    from langchain_core.runnables import RunnableConfig

    from llm_qualitative_sort.cli._inventory import RunInventory
    from llm_qualitative_sort.cli._run import checkpoint_path
    from llm_qualitative_sort.graph import build_graph
    from llm_qualitative_sort.running.stored import input_saved

    async def look() -> bool:
        target = checkpoint_path(plan.config)
        if isinstance(target, Path) and not target.exists():
            return False  # interrupted before the run's file was made
        async with RunInventory.open(target) as runs:
            config: RunnableConfig = {"configurable": {"thread_id": plan.config.run_id}}
            return await input_saved(build_graph(runs.saver), config)

    try:
        return asyncio.run(look())
    except (Exception, KeyboardInterrupt):  # noqa: BLE001 - the stop is what matters
        return True


def _internal(exc: Exception, config: RunConfig) -> int:
    fail(exc, config.verbose, f"internal error ({type(exc).__name__}): ")
    print(escaped(f"run id {config.run_id}; please report this, with the --verbose output"),
          file=sys.stderr)
    return EXIT_ERROR


def _detached(exc: Any, config: RunConfig) -> None:
    from llm_qualitative_sort.cli._run import shown_checkpoint
    from llm_qualitative_sort.stores.default import default_checkpoint_path

    waiting = config.resume_command(default_checkpoint_path())
    reason = one_line(str(exc.reason), None)
    print(lines(f"detached: {reason}\nrun id {config.run_id}: the provider works on it while "
                f"nothing waits; everything is saved in {shown_checkpoint(config)}\n"
                f"check again (collects what ended, submits the next round):\n  {waiting} "
                f"--detach\nor wait for the end:\n  {waiting}"), file=sys.stderr)


def _output_closed() -> int:
    # Whoever read stdout has gone: stop quietly, as `seq 1 1000000 | head` does, and keep
    # Python from complaining again when it flushes stdout at exit.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_CLOSED_OUTPUT


def fail(exc: BaseException, verbose: bool, prefix: str = "") -> int:
    """Print a one-line error (and with `verbose` its traceback); return exit code 2."""
    if verbose:
        print(lines("".join(traceback.format_exception(exc))), file=sys.stderr, end="")
    print(f"error: {prefix}{message(exc)}", file=sys.stderr)
    return EXIT_USAGE


def message(exc: BaseException) -> str:
    """The sentence an exception carries, on one line and safe to print (it may quote input)."""
    # str(KeyError) is the repr of its argument; show the sentence itself.
    text = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
    return one_line(str(text), None) or type(exc).__name__
