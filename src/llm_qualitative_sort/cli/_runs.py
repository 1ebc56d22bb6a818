"""`runs list | show | rm | prune` and `report`: the stored runs, without calling any judge."""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from llm_qualitative_sort._postgres import is_dsn, redact
from llm_qualitative_sort.cli._config import RunConfig
from llm_qualitative_sort.cli._exits import EXIT_OK, UsageError
from llm_qualitative_sort.cli._inventory import RunInventory, RunSummary, StoreError, priced
from llm_qualitative_sort.cli._report import check_report_path, ids_by_text, write_cli_report
from llm_qualitative_sort.cli._run import (
    checkpoint_path,
    has_runs,
    named_ids,
    one_line,
)
from llm_qualitative_sort.cli._settings import layered, read_config_file, read_environment
from llm_qualitative_sort.reports._text import judge_name
from llm_qualitative_sort.stores import store_for
from llm_qualitative_sort.tournament import shown_settings

Target = Path | str  # an SQLite file or a PostgreSQL URI

LIST_LIMIT = 20  # runs listed by default: the newest
_COLUMNS = ("RUN ID", "STARTED", "ITEMS", "SETTINGS", "STATE", "CALLS", "COST")


def runs_command(args: argparse.Namespace) -> int:
    """Run `runs ...` or `report RUN_ID`; return the exit code."""
    file_settings, _ = read_config_file(args.config)
    where = RunConfig(**layered({"checkpoint": args.checkpoint}, read_environment(),
                                file_settings))
    path = checkpoint_path(where)
    action = args.runs_command if args.command == "runs" else "report"
    try:
        return asyncio.run(_ACTIONS[action](path, args))
    except sqlite3.DatabaseError as exc:  # a damaged or foreign file: say which
        raise StoreError(f"cannot use {path} as a checkpoint database: {exc}") from exc


async def _list(path: Target, args: argparse.Namespace) -> int:
    if not has_runs(path):
        print(f"no runs kept in {path}", file=sys.stderr)
        return EXIT_OK
    if args.limit is not None and args.limit < 0:
        raise UsageError(f"--limit {args.limit}: expected 0 (every run) or more")
    async with RunInventory.open(path) as runs:
        summaries, more = await _listed(runs, args)
        where = runs.where
    if args.json:
        for summary in summaries:
            print(json.dumps(_as_json(summary), ensure_ascii=False))
        return EXIT_OK
    rows = [_COLUMNS] + [_row(s) for s in summaries] if summaries else []
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(len(_COLUMNS) - 1)]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=False))
              + "  " + row[-1])
    chosen = " ".join(f"{name}={getattr(args, name)}" for name in ("status", "strategy")
                      if getattr(args, name))
    print(f"{len(summaries)} run(s)" + (f" ({chosen})" if chosen else "") + f" in {where}"
          + (f"; {more} more, older (--limit 0 lists all)" if more else ""), file=sys.stderr)
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
        values = await runs.values(args.run_id) if summary.state == "finished" else {}
    if args.json:
        print(json.dumps(_as_json(summary), ensure_ascii=False, indent=2))
        return EXIT_OK
    for name, value in _details(summary, _shown(path)):
        print(f"{name + ':':<20} {value}")
    ids = ids_by_text(values.get("items", []), summary.ids) if named_ids(
        summary.settings.get("source") or {}) else {}
    for rank, group in values.get("rankings", [])[:10]:
        print(f"{rank:>4}  " + " | ".join(
            ("" if t not in ids else f"[{one_line(str(ids[t]), 40)}] ") + one_line(t, 80)
            for t in group))
    return EXIT_OK


async def _remove(path: Target, args: argparse.Namespace) -> int:
    async with RunInventory.open(path) as runs:
        for run_id in args.run_ids:
            summary = await _one(runs, run_id)
            if summary.state == "running":
                raise UsageError(f"run {run_id!r} is running ({summary.holder}); stop it first")
        for run_id in args.run_ids:
            await runs.delete(run_id)
            print(f"deleted run {run_id}")
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
            print(f"{'would delete' if args.dry_run else 'deleted'} run {summary.run_id} "
                  f"(finished {_when(summary.updated)})")
    if not args.dry_run and old:
        _compact(path)
    print(f"{len(old)} finished run(s) last saved before {before.isoformat()}", file=sys.stderr)
    return EXIT_OK


async def _report(path: Target, args: argparse.Namespace) -> int:
    check_report_path(args.out, make_dirs=bool(args.mkdir))
    from llm_qualitative_sort.results.from_state import Ranking, sort_result

    async with RunInventory.open(path) as runs:
        summary = await _one(runs, args.run_id)
        if summary.state != "finished":
            raise UsageError(f"run {args.run_id!r} is {summary.state} ({summary.matches} "
                             "matches played): finish it with `sort --resume` first")
        values = await runs.values(args.run_id)
    known = {k: v for k, v in summary.settings.items() if k in RunConfig.__dataclass_fields__}
    config = RunConfig(**known)
    config.out, config.run_id = args.out, args.run_id
    config.lang = args.lang or config.lang
    config.excel = config.excel if args.excel is None else args.excel
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
    result = sort_result(values, args.run_id, span, ranking, lambda i, o: priced(prices, i, o),
                         judge=judge, verdicts=str(values.get("verdicts", "hard")))
    written = write_cli_report(result, config, summary.ids, values["items"])
    print(f"report of run {args.run_id} written to {written}", file=sys.stderr)
    return EXIT_OK


_ACTIONS = {"list": _list, "show": _show, "rm": _remove, "prune": _prune, "report": _report}


async def _one(runs: RunInventory, run_id: str) -> RunSummary:
    summary = await runs.summary(run_id)
    if summary is None:
        raise UsageError(f"no run {run_id!r} in {runs.where} (see `runs list`)")
    return summary


def _shown(path: Target) -> str:
    return redact(path) if isinstance(path, str) and is_dsn(path) else str(path)


def _compact(path: Target) -> None:
    try:
        freed = store_for(path).compact()
    except Exception as exc:  # in use by a running sort: its space is reused later
        print(f"note: could not compact {_shown(path)} now ({exc})", file=sys.stderr)
        return
    if freed is not None:  # a database server reuses the space on its own
        print(f"{path}: {freed / 1e6:.1f} MB given back", file=sys.stderr)


def _row(s: RunSummary) -> tuple[str, ...]:
    return (s.run_id, _when(s.started), str(s.items), _settings_text(s.settings), s.state,
            str(s.calls), "—" if s.cost is None else f"{s.cost:.4f}")


def _settings_text(settings: dict[str, Any]) -> str:
    # A run started from Python keeps only its judge's identity (no command-line provider).
    judge = settings.get("provider") or (
        judge_name(settings["judge"]) if isinstance(settings.get("judge"), str) else "?")
    model = settings.get("model") or settings.get("chat_model")
    parts = [f"{judge}:{model}" if model else judge]
    if settings.get("strategy") == "swiss":
        parts += ["swiss", f"K={settings.get('comparison_rounds')}"]
        parts += [f"{name}={settings[name]}" for name in ("budget", "top_k")
                  if settings.get(name) is not None]
        if settings.get("stop_when_settled"):
            parts.append("stop-when-settled")
        if settings.get("prepass"):
            parts.append(f"prepass={settings['prepass']}")
    elif settings.get("strategy") == "pointwise":
        parts += ["pointwise", f"scale={_scale_text(settings.get('scale'))}",
                  f"repetitions={settings.get('repetitions') or 1}"]
        if settings.get("inverse"):
            parts.append("inverse")
    else:
        parts += [f"N={settings.get('elimination_count')}",
                  f"K={settings.get('comparison_rounds')}"]
    if settings.get("ties"):
        parts.append("ties")
    if settings.get("verdicts") == "soft":
        parts.append("soft-verdicts")
    if settings.get("ranking") == "bradley_terry":
        parts.append("bt")
    return " ".join(parts)


def _scale_text(scale: Any) -> str:
    """A pointwise run's scale in a few characters: "1-4" (its labels' range)."""
    if isinstance(scale, list) and scale and all(isinstance(e, list) for e in scale):
        return f"{scale[0][0]}-{scale[-1][0]}"
    return str(scale) if scale else "1-4"


def _scale_shown(scale: Any) -> str:
    """A pointwise run's labels in full: "1 (useless), 2, 3 (good)" or "1-4"."""
    if isinstance(scale, list) and all(isinstance(e, list) and len(e) == 2 for e in scale):
        return ", ".join(f"{label} ({text})" if text else str(label) for label, text in scale)
    return _scale_text(scale)


def _details(s: RunSummary, path: str) -> list[tuple[str, Any]]:
    settings = shown_settings(s.settings)  # a Swiss run's N is not a setting of it
    rows: list[tuple[str, Any]] = [
        ("run id", s.run_id), ("state", s.state + (f" ({s.holder})" if s.holder else "")),
        ("started", _when(s.started)), ("last saved", _when(s.updated)), ("items", s.items),
        ("criteria", settings.pop("criteria", None)), ("rounds", s.rounds),
        ("matches", s.matches), ("calls", f"{s.calls} paid, {s.cache_hits} from cache, "
                                          f"{s.failed_calls} without verdict"),
        ("tokens", f"{s.input_tokens} in, {s.output_tokens} out"),
        ("cost", "—" if s.cost is None else f"{s.cost:.4f}"), ("checkpoint", path),
    ]
    rows += [(name.replace("_", " "),
              _scale_shown(value) if name == "scale" else _value_text(value))
             for name, value in settings.items() if value not in (None, {}, [])]
    if s.state not in ("finished", "running"):
        rows.append(("resume with", f"llm-qualitative-sort sort --resume {s.run_id} "
                                    f"--checkpoint {path}"))
    return rows


def _value_text(value: Any) -> Any:
    """A setting as a reader writes it: a mapping as "name=value, …", a list comma-separated."""
    if isinstance(value, dict):
        return ", ".join(f"{name}={_value_text(v)}" for name, v in value.items()
                         if v is not None)
    if isinstance(value, list | tuple):
        return ", ".join(str(_value_text(v)) for v in value)
    return value


def _as_json(s: RunSummary) -> dict[str, Any]:
    return {"run_id": s.run_id, "started": _iso(s.started), "last_saved": _iso(s.updated),
            "state": s.state, "holder": s.holder, "items": s.items, "rounds": s.rounds,
            "matches": s.matches, "calls": s.calls, "cache_hits": s.cache_hits,
            "failed_calls": s.failed_calls, "input_tokens": s.input_tokens,
            "output_tokens": s.output_tokens, "cost": s.cost, "settings": s.settings}


def _when(moment: datetime | None) -> str:
    return "—" if moment is None else moment.astimezone().strftime("%Y-%m-%d %H:%M")


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _date(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(f"--before {text!r}: expected a date such as 2026-11-01") from None
    return moment if moment.tzinfo else moment.astimezone()  # a bare date is local time
