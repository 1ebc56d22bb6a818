"""From arguments to a checked `Plan`: every check that can run before the first call runs here.

Settings are layered (flags, stored run, environment, config file, defaults); the items are
read and checked with line numbers; the report path, the judge (its client library and
key) and the cache are tried. `--dry-run` goes through all of it, then prints the estimate.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import math
import secrets
import sys
import uuid
from typing import Any

from llm_qualitative_sort.cli._config import RunConfig
from llm_qualitative_sort.cli._dry_run import estimate, print_estimate
from llm_qualitative_sort.cli._exits import UsageError
from llm_qualitative_sort.cli._inputs import Record, Source, checked, read_records
from llm_qualitative_sort.cli._parser import chat_model_args
from llm_qualitative_sort.cli._report import check_report_path
from llm_qualitative_sort.cli._run import Plan, checkpoint_path, has_runs
from llm_qualitative_sort.cli._settings import conflicts, layered
from llm_qualitative_sort.cli._terminal import one_line
from llm_qualitative_sort.providers.registry import BATCH_PROVIDERS
from llm_qualitative_sort.tournament import strategy_class
from llm_qualitative_sort.tournament.checks import check_concurrency

# The settings, the texts and ids (None, the ids: a resumed run's), the records read.
Prepared = tuple[RunConfig, list[str] | None, list[Any], list[Record] | None]
_FLAG_NAMES = set(RunConfig.model_fields) - {"run_id", "resume", "chat_model_args"}


def prepare(args: argparse.Namespace) -> Plan | None:
    """The plan of `sort` or `demo`; None after a dry run (which has printed its estimate)."""
    flags = command_line_settings(args)
    if args.command == "demo":
        prepared = _demo(args, layered(flags, config_file=args.config))
    elif args.resume:
        prepared = _resumed(args, flags)
    else:
        prepared = _new(args, layered(flags, config_file=args.config))
    return _checked_plan(*prepared, args)


def command_line_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The settings given as flags (None where a flag was not given)."""
    flags = {name: getattr(args, name, None) for name in _FLAG_NAMES}
    flags["chat_model_args"] = chat_model_args(getattr(args, "chat_model_arg", None)) or None
    return flags


def _demo(args: argparse.Namespace, settings: RunConfig) -> Prepared:
    from llm_qualitative_sort.cli._providers import demo_set

    demo = demo_set()
    keep = {k: getattr(settings, k) for k in ("checkpoint", "out", "lang", "excel", "mkdir",
                                              "progress", "verbose")}
    config = RunConfig(criteria=demo["criteria"], run_id=uuid.uuid4().hex, seed=args.seed,
                       elimination_count=demo["elimination_count"], **keep)
    texts = list(demo["texts"])
    return config, texts, list(range(1, len(texts) + 1)), None


def _new(args: argparse.Namespace, config: RunConfig) -> Prepared:
    if args.run_id is not None and not args.run_id.strip():
        raise UsageError("--run-id must not be empty")
    if not config.criteria.strip():
        raise UsageError("--criteria is required: say what makes one text better")
    config.run_id = args.run_id or uuid.uuid4().hex
    if config.seed is None and args.run_id:
        # Started again under its id (after a kill before its items were saved, or to get
        # its result): the stored run's seed, so that it pairs and judges as before.
        config.seed = asyncio.run(_stored_seed(checkpoint_path(config), args.run_id))
    if config.seed is None:
        # Drawn here and printed when the run starts; kept with the run for its resumption.
        config.seed = secrets.randbelow(2**31)
    if args.input in (None, "-") and sys.stdin.isatty():
        raise UsageError("no input: give a file, or pipe the items on stdin")
    source = Source(args.input, args.format, args.field, args.column, args.id_field,
                    args.id_column)
    records = checked(read_records(source), source.name, dedupe=args.dedupe,
                      note=lambda text: print(one_line(text, None), file=sys.stderr))
    config.source = source.describe()
    by_text = {r.text: r.id for r in records}
    texts = [r.text for r in records]
    return config, texts, [by_text[t] for t in sorted(texts)], records


def _resumed(args: argparse.Namespace, flags: dict[str, Any]) -> Prepared:
    if args.run_id or args.input or args.dry_run:
        raise UsageError("--resume continues a stored run: give no input, --run-id or --dry-run")
    where = layered(flags, config_file=args.config)
    summary = asyncio.run(_stored(checkpoint_path(where), args.resume))
    stored = {k: v for k, v in summary.settings.items() if k in _FLAG_NAMES | {"chat_model_args"}}
    problems = conflicts(flags, stored)
    if problems:
        raise UsageError(f"run {summary.run_id!r} keeps the settings it was started with: "
                         + "; ".join(problems) + ". Drop those flags, or start a new run")
    config = layered(flags, config_file=args.config, stored=stored)
    config.run_id, config.resume = summary.run_id, True
    return config, None, summary.ids, None


async def _stored_seed(path: Any, run_id: str) -> int | None:
    from llm_qualitative_sort.cli._inventory import RunInventory

    if not has_runs(path):
        return None
    async with RunInventory.open(path) as runs:
        summary = await runs.summary(run_id)
        record = await runs.catalog.get(run_id)
    seed = summary.settings.get("seed") if summary is not None else None
    seed = seed if seed is not None else record.get("settings", {}).get("seed")
    return seed if isinstance(seed, int) else None


async def _stored(path: Any, run_id: str) -> Any:
    from llm_qualitative_sort.cli._inventory import RunInventory

    if not has_runs(path):
        raise UsageError(f"no run {run_id!r} in {path} (the file does not exist)")
    async with RunInventory.open(path) as runs:
        try:
            summary = await runs.find(run_id)
        except ValueError as exc:  # the start of several runs' ids
            raise UsageError(str(exc)) from None
        where = runs.where
    if summary is None:
        raise UsageError(f"no run {run_id!r} in {where}")
    run_id = summary.run_id
    if summary.state == "not started":
        raise UsageError(f"run {run_id!r} was stopped before its items were saved: start it "
                         f"again with `sort FILE --run-id {run_id}` and the same settings")
    return summary


def _checked_plan(config: RunConfig, texts: list[str] | None, ids: list[Any],
                  records: list[Record] | None, args: argparse.Namespace) -> Plan | None:
    dry_run = bool(getattr(args, "dry_run", False))
    settings = config.strategy_settings()
    check_concurrency(config.concurrency)
    if texts is not None:
        strategy_class(settings).check_texts(settings, texts, config.criteria)
    _check_numbers(config)
    _check_batch(config, dry_run)
    if config.out:
        check_report_path(config.out, probe=not dry_run, make_dirs=bool(config.mkdir))
    from llm_qualitative_sort.cli._prompt import item_fields, load_prompt
    from llm_qualitative_sort.cli._providers import make_provider

    prompt = load_prompt(config)
    fields = item_fields(prompt, records, Source(getattr(args, "input", None)).name)
    human = _human(config, texts, records)
    provider = make_provider(config)
    _check_mock_options(config, provider)
    # Imported here, not at the top: the schedules load LangGraph, which parsing must not.
    from llm_qualitative_sort.graph.schedules import check_schedule

    # The sorter's own check (a pipelined schedule needs elimination and live calls), made
    # before anything is stored or called.
    try:
        check_schedule(config.schedule, strategy_class(settings), provider)
    except ValueError as exc:
        raise UsageError(f"--schedule {config.schedule}: {exc}") from exc
    if dry_run:
        from llm_qualitative_sort.cli._rounds import simulated_rounds

        price = args.price_per_call
        if price is not None and not 0 <= price < math.inf:
            raise UsageError(f"--price-per-call must be a finite number >= 0, got {price}")

        assert texts is not None
        plan = estimate(len(texts), settings)
        if human is not None and not settings.scores_alone:  # pointwise asks no pair
            from llm_qualitative_sort.results.labelled import labelled_pairs, within_budget

            # A budget pays for them (Swiss): the tournament's share of it is what is left.
            shared = within_budget(settings, len(texts), human)
            plan = dataclasses.replace(estimate(len(texts), shared),
                                       labelled_pairs=len(labelled_pairs(human)))
        rounds = simulated_rounds(settings, len(texts), texts=texts, criteria=config.criteria)
        from llm_qualitative_sort.providers._tokens import mean_call_tokens

        print_estimate(plan, args.price_per_call, sys.stdout, rounds, config.batch_discount,
                       mean_call_tokens(list(texts), config.criteria,
                                        alone=settings.scores_alone,
                                        shown=getattr(settings, "group_size", 2)),
                       _token_calls(settings, texts, config.criteria))
        return None
    adjust, adjust_fields = _adjust(args, texts, records, pairwise=not settings.scores_alone)
    return Plan(config, provider, open_cache(config.cache_dir), texts, ids, prompt=prompt,
                fields=fields, human=human, adjust=adjust, adjust_fields=adjust_fields)


def _token_calls(settings: Any, texts: list[str], criteria: str) -> int | None:
    """The calls Swiss's `budget_tokens` pays for at the texts' estimates (None: no such)."""
    budget_tokens = getattr(settings, "budget_tokens", None)
    if budget_tokens is None:
        return None
    from llm_qualitative_sort.tournament.swiss.tokens import calls_paid_for, estimates

    return calls_paid_for(budget_tokens, estimates(texts, criteria, settings.group_size),
                          len(texts), settings.group_size, settings.prepass is not None)


def _human(config: RunConfig, texts: list[str] | None, records: list[Record] | None) -> Any:
    """People's labels of `--human`, items as indices into `texts` (None: not given).

    A resumed run goes on with the labels it keeps, so its file is not read again.
    """
    if not config.human or texts is None:
        return None
    # Imported here: the labels' checks load numpy, which parsing must not.
    from llm_qualitative_sort.results.human import read_human

    # A file names items by the input's ids (its line numbers when none are named), as text.
    ids = [str(r.id) for r in records] if records else [str(i) for i in range(1, len(texts) + 1)]
    return read_human(config.human, ids)


def _adjust(args: argparse.Namespace, texts: list[str] | None, records: list[Record] | None,
            *, pairwise: bool) -> tuple[list[str] | None, list[dict[str, Any]] | None]:
    """`--adjust`, checked against the records before any call: (covariates, fields)."""
    adjust = getattr(args, "adjust", None)
    if not adjust:
        return None, None
    if texts is None or records is None:
        raise UsageError("--adjust takes the run's items: give the input file, not --resume")
    # Imported here, not at the top: the covariates' fit loads SciPy, which parsing must not.
    from llm_qualitative_sort.results.adjusted import check_adjust

    by_text = {record.text: record for record in records}
    fields = [by_text[text].fields for text in texts]
    try:
        checked = check_adjust(adjust, texts, fields, pairwise=pairwise)
    except ValueError as exc:
        raise UsageError(f"--adjust: {exc}") from None
    return adjust, fields if checked is not None and checked.reads_fields else None


def open_cache(where: str | None) -> Any:
    """A `FileCache` in a directory, or a `PostgresCache` for a postgresql:// URI."""
    if not where:
        return None
    from llm_qualitative_sort.stores.postgres_connect import is_dsn

    if is_dsn(where):
        from llm_qualitative_sort.stores.postgres_cache import PostgresCache

        return PostgresCache(where)
    from llm_qualitative_sort.stores.cache import FileCache

    return FileCache(where)


def _check_numbers(config: RunConfig) -> None:
    positive = {"--timeout": config.timeout, "--requests-per-second": config.requests_per_second}
    at_least_zero = {"--input-price-per-million": config.input_price_per_million,
                     "--output-price-per-million": config.output_price_per_million,
                     "--rate-wait-limit": config.rate_wait_limit,
                     "--mock-latency": config.mock_latency,
                     "--mock-tie-margin": config.mock_tie_margin}
    for flag, value in positive.items():
        if value is not None and not 0 < value < math.inf:
            raise UsageError(f"{flag} must be a positive, finite number, got {value}")
    for flag, value in at_least_zero.items():
        if value is not None and not 0 <= value < math.inf:
            raise UsageError(f"{flag} must be a finite number >= 0, got {value}")
    if config.wait is not None and not 0 <= config.wait:  # inf: as long as it takes
        raise UsageError(f"--wait must be seconds >= 0 (or inf), got {config.wait}")


def _check_mock_options(config: RunConfig, provider: Any) -> None:
    """Refuse an option that the judges would ignore, before any call.

    A cap on requests when every judge is a mock (it sends none); a mock's option without
    a mock.
    """
    from llm_qualitative_sort.providers import MockLLMProvider
    from llm_qualitative_sort.providers.panel import leaf_judges

    mocks = [isinstance(judge, MockLLMProvider) for judge in leaf_judges(provider)]
    if config.requests_per_second is not None and all(mocks):
        raise UsageError(f"--requests-per-second {config.requests_per_second}: the mock judge "
                         "sends no requests, so there is nothing to cap; drop it "
                         "(--mock-latency SECONDS slows the mock's calls)")
    if config.mock_logprobs is not None and not any(mocks):
        raise UsageError(f"--mock-logprobs {config.mock_logprobs}: no judge is the mock "
                         f"(--provider {config.provider}); drop it")


def _check_batch(config: RunConfig, dry_run: bool) -> None:
    if config.batch and config.provider not in BATCH_PROVIDERS and not dry_run:
        raise UsageError(f"--batch needs --provider {' or '.join(BATCH_PROVIDERS)} (only they "
                         "have batches)")
    if config.detach and not config.batch:
        raise UsageError("--detach needs --batch: only a provider batch can wait without us")
    from llm_qualitative_sort.providers._batch import BatchOptions

    # A ValueError naming a bad value, before any call.
    BatchOptions(poll_interval=config.batch_poll,
                 max_poll_interval=max(600.0, config.batch_poll),
                 discount=config.batch_discount)
