"""`runs list | show | rm | prune` and `report`: the stored runs, without calling any judge."""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
from datetime import datetime
from pathlib import Path

from llm_qualitative_sort.cli import _inventory
from llm_qualitative_sort.cli._config import RunConfig
from llm_qualitative_sort.cli._exits import EXIT_OK, UsageError
from llm_qualitative_sort.cli._inventory import RunInventory, RunSummary, StorageError, priced
from llm_qualitative_sort.cli._report import check_report_path, ids_by_text, write_cli_report
from llm_qualitative_sort.cli._run import checkpoint_path, has_runs, named_ids
from llm_qualitative_sort.cli._run_rows import COLUMNS, as_json, details, list_row, when
from llm_qualitative_sort.cli._settings import layered
from llm_qualitative_sort.cli._terminal import escaped, json_text, one_line
from llm_qualitative_sort.results.events import plural
from llm_qualitative_sort.stores import store_for
from llm_qualitative_sort.stores.postgres_connect import is_dsn, redact
from llm_qualitative_sort.tournament import scores_alone

Target = Path | str  # an SQLite file or a PostgreSQL URI

LIST_LIMIT = 20  # runs listed by default: the newest


def runs_command(args: argparse.Namespace) -> int:
    """Run `runs ...` or `report RUN_ID`; return the exit code."""
    path = checkpoint_path(layered({"checkpoint": args.checkpoint}, config_file=args.config))
    action = args.runs_command if args.command == "runs" else "report"
    try:
        return asyncio.run(_ACTIONS[action](path, args))
    except sqlite3.DatabaseError as exc:  # a damaged or foreign file: say which
        raise StorageError(f"cannot use {path} as a checkpoint database: {exc}") from exc


async def _list(path: Target, args: argparse.Namespace) -> int:
    if not has_runs(path):
        print(escaped(f"no runs kept in {path}"), file=sys.stderr)
        return EXIT_OK
    if args.limit is not None and args.limit < 0:
        raise UsageError(f"--limit {args.limit}: expected 0 (every run) or more")
    async with RunInventory.open(path) as runs:
        summaries, more = await _listed(runs, args)
        where = runs.where
    if args.json:
        for summary in summaries:
            print(json_text(as_json(summary)))
        return EXIT_OK
    rows = [COLUMNS] + [tuple(one_line(cell, None) for cell in list_row(s)) for s in summaries] \
        if summaries else []
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(len(COLUMNS) - 1)]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=False))
              + "  " + row[-1])
    chosen = " ".join(f"{name}={getattr(args, name)}" for name in ("status", "strategy")
                      if getattr(args, name))
    print(escaped(plural(len(summaries), "run") + (f" ({chosen})" if chosen else "")
                  + f" in {where}" + (f"; {more} more, older (--limit 0 lists all)" if more
                                      else "")), file=sys.stderr)
    return EXIT_OK


async def _listed(runs: RunInventory, args: argparse.Namespace) -> tuple[list[RunSummary], int]:
    """The newest runs that pass the filters, at most `--limit`; and how many more pass."""
    limit = LIST_LIMIT if args.limit is None else args.limit or None
    ids = list(reversed(await runs.run_ids()))  # newest first
    if not (args.status or args.strategy) and limit is not None:
        # Nothing to filter on: only the runs shown are read (a shared store holds many).
        shown = [await runs.summary(run_id) for run_id in ids[:limit]]
        return [s for s in shown if s is not None], max(len(ids) - limit, 0)
    found = [s for s in [await runs.summary(run_id) for run_id in ids]
             if s is not None and _passes(s, args)]
    return found[:limit], len(found[limit:]) if limit is not None else 0


def _passes(summary: RunSummary, args: argparse.Namespace) -> bool:
    # "stopped" takes in the runs no lease tells apart from stopped ones.
    state = {"unfinished": "stopped", "not started": "stopped"}.get(summary.state,
                                                                       summary.state)
    strategy = summary.settings.get("strategy") or "elimination"
    return (not args.status or state == args.status) and (
        not args.strategy or strategy == args.strategy)


async def _show(path: Target, args: argparse.Namespace) -> int:
    async with RunInventory.open(path) as runs:
        summary = await _one(runs, args.run_id)
        values = await runs.values(summary.run_id) if summary.state == "finished" else {}
    if args.json:
        print(json_text(as_json(summary), indent=2))
        return EXIT_OK
    for name, value in details(summary, _shown(path)):
        print(f"{name + ':':<20} {one_line(str(value), None)}")
    ids = ids_by_text(values.get("items", []), summary.ids) if named_ids(
        summary.settings.get("source") or {}) else {}
    for rank, group in values.get("rankings", [])[:10]:
        print(f"{rank:>4}  " + " | ".join(
            ("" if t not in ids else f"[{one_line(str(ids[t]), 40)}] ") + one_line(t, 80)
            for t in group))
    return EXIT_OK


async def _remove(path: Target, args: argparse.Namespace) -> int:
    async with RunInventory.open(path) as runs:
        chosen = [await _one(runs, run_id) for run_id in args.run_ids]
        for summary in chosen:
            if summary.state == "running":
                raise UsageError(f"run {summary.run_id!r} is running ({summary.holder}); "
                                 "stop it first")
        for run_id in dict.fromkeys(summary.run_id for summary in chosen):
            await runs.delete(run_id)
            print(escaped(f"deleted run {run_id}"))
    _compact(path)
    return EXIT_OK


async def _prune(path: Target, args: argparse.Namespace) -> int:
    before = _date(args.before)
    async with RunInventory.open(path) as runs:
        old = [s for s in await runs.summaries()
               if s.state == "finished" and s.updated is not None and s.updated < before]
        for summary in old:
            if not args.dry_run:
                await runs.delete(summary.run_id)
            print(escaped(f"{'would delete' if args.dry_run else 'deleted'} run "
                          f"{summary.run_id} (finished {when(summary.updated)})"))
    if not args.dry_run and old:
        _compact(path)
    print(f"{plural(len(old), 'finished run')} last saved before {before.isoformat()}",
          file=sys.stderr)
    return EXIT_OK


async def _report(path: Target, args: argparse.Namespace) -> int:
    check_report_path(args.out, make_dirs=bool(args.mkdir))
    from llm_qualitative_sort.results.from_state import Ranking, sort_result
    from llm_qualitative_sort.tournament import settings_from_state

    async with RunInventory.open(path) as runs:
        summary = await _one(runs, args.run_id)
        run_id = summary.run_id
        if summary.state != "finished":
            raise UsageError(f"run {run_id!r} is {summary.state} ("
                             f"{plural(summary.matches, 'match')} played): finish it with "
                             "`sort --resume` first")
        values = await runs.values(run_id)
    known = {k: v for k, v in summary.settings.items() if k in RunConfig.model_fields}
    config = RunConfig(**known)
    config.out, config.run_id = args.out, run_id
    config.lang = args.lang or config.lang
    config.excel = config.excel if args.excel is None else args.excel
    if args.ranking and scores_alone(config.strategy):
        raise UsageError(f"--ranking {args.ranking}: run {run_id!r} scored each text alone "
                         "(pointwise) and is ranked by its scores; there are no matches to "
                         "rank by")
    config.ranking = args.ranking or config.ranking
    span = (summary.updated - summary.started).total_seconds() if summary.started and \
        summary.updated else 0.0
    # The sort keeps its own elapsed time: the report then shows the figure the sort did.
    span = float(summary.settings.get("elapsed_time", span))
    ranking: Ranking = "bradley_terry" if config.ranking == "bradley_terry" else "wins"
    prices = summary.settings
    # A single judge's calls name no judge; the stored settings do (a panel's calls do).
    # The sort names it by its identity (kept in the run's state); older runs by their flags.
    judge = str(values.get("judge") or ":".join(str(prices[k]) for k in ("provider", "model")
                                                  if prices.get(k)))
    result = sort_result(values, run_id, span, ranking, lambda i, o: priced(prices, i, o),
                         judge=judge,
                         verdicts="soft" if settings_from_state(values).soft_verdicts else "hard")
    # A run checked against people: their agreement, and the order asked for.
    from llm_qualitative_sort.results.labelled import stored_with_people

    result = stored_with_people(result, values, anchor=config.ranking is None)
    written = write_cli_report(result, config, summary.ids, values["items"])
    print(escaped(f"report of run {run_id} written to {written}"), file=sys.stderr)
    return EXIT_OK


_ACTIONS = {"list": _list, "show": _show, "rm": _remove, "prune": _prune, "report": _report}


async def _one(runs: RunInventory, run_id: str) -> RunSummary:
    """The run named by its id or the start of it (`RunInventory.find`)."""
    try:
        summary = await runs.find(run_id)
    except _inventory.AmbiguousRunId as exc:
        raise UsageError(str(exc)) from None
    if summary is None:
        raise UsageError(f"no run {run_id!r} in {runs.where} (see `runs list`; a run is "
                         f"named by its id or its first {_inventory.SHORTEST_START} characters "
                         "or more)")
    return summary


def _shown(path: Target) -> str:
    return redact(path) if isinstance(path, str) and is_dsn(path) else str(path)


def _compact(path: Target) -> None:
    try:
        freed = store_for(path).compact()
    except Exception as exc:  # in use by a running sort: its space is reused later
        print(one_line(f"note: could not compact {_shown(path)} now ({exc})", None),
              file=sys.stderr)
        return
    if freed is not None:  # a database server reuses the space on its own
        print(escaped(f"{path}: {freed / 1e6:.1f} MB given back"), file=sys.stderr)


def _date(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(f"--before {text!r}: expected a date such as 2026-11-01") from None
    return moment if moment.tzinfo else moment.astimezone()  # a bare date is local time
