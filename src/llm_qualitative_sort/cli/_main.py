"""The entry point: parse, prepare the run, run it, and turn failures into exit codes."""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
import traceback
import uuid
from collections.abc import Sequence
from pathlib import Path

from llm_qualitative_sort._validation import check_settings
from llm_qualitative_sort.cache import CacheError
from llm_qualitative_sort.cli._config import RunConfig
from llm_qualitative_sort.cli._dry_run import estimate, print_estimate
from llm_qualitative_sort.cli._inputs import InputError, read_items
from llm_qualitative_sort.cli._parser import build_parser
from llm_qualitative_sort.cli._providers import ProviderUnavailable, demo_set
from llm_qualitative_sort.cli._rounds import simulated_rounds
from llm_qualitative_sort.cli._run import checkpoint_path, execute
from llm_qualitative_sort.errors import RunDetached, RunStoppedError
from llm_qualitative_sort.providers._batch import BatchOptions
from llm_qualitative_sort.reports import REPORT_FORMATS

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_STOPPED = 3
EXIT_DETACHED = 4  # --detach: the batch is at the provider, nothing waits for it
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a Ctrl-C

class UnknownRun(KeyError):
    """Stands for the `KeyError` that `QualitativeSorter.resume` raises for an unknown id."""


_USAGE_ERRORS = (InputError, ProviderUnavailable, ValueError, TypeError, UnknownRun, CacheError,
                 OSError)


class UsageError(Exception):
    """Options that do not fit together."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit code (see `llm-qualitative-sort --help`)."""
    args = build_parser().parse_args(argv)
    try:
        config, items = _prepare(args)
        if getattr(args, "dry_run", False):
            settings = check_settings(elimination_count=config.elimination_count,
                                      comparison_rounds=config.comparison_rounds,
                                      max_concurrent_requests=config.concurrency)
            plan = estimate(len(items or []), config.elimination_count, config.comparison_rounds)
            print_estimate(plan, args.price_per_call, sys.stdout,
                           simulated_rounds(settings, plan.items), config.batch_discount)
            return EXIT_OK
    except (UsageError, *_USAGE_ERRORS) as exc:
        return _fail(exc, args.verbose)
    return _run(config, items)


def _run(config: RunConfig, items: list[str] | None) -> int:
    try:
        asyncio.run(execute(config, items, sys.stdout))
    except KeyboardInterrupt:
        _fail_resumable("interrupted", config)
        return EXIT_INTERRUPTED
    except KeyError as exc:
        # Only "no run ..." is the user's mistake; any other KeyError is a bug.
        if str(exc.args[0] if exc.args else "").startswith("no run "):
            return _fail(UnknownRun(*exc.args), config.verbose)
        return _internal(exc, config)
    except RunStoppedError as exc:
        _fail_resumable(f"run stopped: {_message(exc.__cause__ or exc)}", config)
        return EXIT_STOPPED
    except RunDetached as exc:
        _detached(exc, config)
        return EXIT_DETACHED
    except _USAGE_ERRORS as exc:
        return _fail(exc, config.verbose)
    except Exception as exc:
        return _internal(exc, config)
    return EXIT_OK


def _internal(exc: Exception, config: RunConfig) -> int:
    _fail(exc, config.verbose, f"internal error ({type(exc).__name__}): ")
    print(f"run id {config.run_id}; please report this, with the --verbose output",
          file=sys.stderr)
    return EXIT_ERROR


def _prepare(args: argparse.Namespace) -> tuple[RunConfig, list[str] | None]:
    common = {"checkpoint": args.checkpoint, "out": args.out, "progress": args.progress,
              "verbose": args.verbose}
    if args.out and Path(args.out).suffix.lower() not in REPORT_FORMATS:
        raise UsageError(f"cannot tell the report format of {args.out!r}: use one of "
                         + ", ".join(REPORT_FORMATS))
    if args.command == "demo":
        demo = demo_set()
        config = RunConfig(criteria=demo["criteria"], run_id=uuid.uuid4().hex, seed=args.seed,
                           elimination_count=demo["elimination_count"], **common)
        return config, list(demo["texts"])
    if args.resume and (args.run_id or args.input or args.dry_run):
        raise UsageError("--resume continues a stored run: give no input, --run-id or --dry-run")
    if not args.criteria and not args.dry_run:
        raise UsageError("--criteria is required: say what makes one text better")
    _check_batch(args)
    config = RunConfig(
        criteria=args.criteria or "",
        run_id=args.resume or args.run_id or uuid.uuid4().hex,
        provider=args.provider, model=args.model, base_url=args.base_url,
        elimination_count=args.elimination_count, comparison_rounds=args.comparison_rounds,
        concurrency=args.concurrency, cache_dir=args.cache_dir, resume=bool(args.resume),
        mock_latency=args.mock_latency, batch=args.batch, detach=args.detach,
        batch_discount=args.batch_discount, batch_poll=args.batch_poll, **common,
        # A drawn seed is printed in the resume command, so a resumed mock run judges alike.
        seed=args.seed if args.seed is not None or args.resume else secrets.randbelow(2**31),
    )
    if args.resume:
        return config, None
    if args.input in (None, "-") and sys.stdin.isatty():
        raise UsageError("no input: give a file, or pipe the items on stdin")
    items = read_items(args.input, fmt=args.format, field=args.field, column=args.column)
    return config, items


def _check_batch(args: argparse.Namespace) -> None:
    if args.batch and args.provider == "mock" and not args.dry_run:
        raise UsageError("--batch needs --provider openai or google (the mock has no batches)")
    if args.detach and not args.batch:
        raise UsageError("--detach needs --batch: only a provider batch can wait without us")
    BatchOptions(poll_interval=args.batch_poll, max_poll_interval=max(600.0, args.batch_poll),
                 discount=args.batch_discount)  # ValueError naming a bad value, before any call


def _detached(exc: RunDetached, config: RunConfig) -> None:
    waiting = config.resume_command()
    print(f"detached: {exc.reason}\nrun id {config.run_id}: the provider works on it while "
          f"nothing waits; everything is saved in {checkpoint_path(config)}\n"
          f"check again (collects what ended, submits the next round):\n  {waiting}\n"
          f"or wait for the end: the same without --detach", file=sys.stderr)


def _fail(exc: BaseException, verbose: bool, prefix: str = "") -> int:
    if verbose:
        traceback.print_exception(exc)
    print(f"error: {prefix}{_message(exc)}", file=sys.stderr)
    return EXIT_USAGE


def _fail_resumable(what: str, config: RunConfig) -> None:
    print(f"{what}\nrun id {config.run_id}: everything finished so far is saved in "
          f"{checkpoint_path(config)}\nresume with:\n  {config.resume_command()}",
          file=sys.stderr)


def _message(exc: BaseException) -> str:
    # str(KeyError) is the repr of its argument; show the sentence itself.
    text = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
    return " ".join(str(text).split()) or type(exc).__name__
