"""The runs kept in a store, as stored: list, inspect, load, delete, compact.

Everything shown is derived from what runs already write: LangGraph's checkpoints (read
through the saver's API: `aget_tuple`, `aget_state`, `adelete_thread`), the run journal
(calls of unfinished runs) and the catalog (settings the checkpoint does not hold). Only
the list of run ids comes from SQL (in the store's `StoredRuns`), since a saver has no call
that lists its threads. The same code reads an SQLite file and a PostgreSQL database.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from langchain_core.runnables import RunnableConfig

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.graph import build_graph
from llm_qualitative_sort.graph.state import SETTINGS_KEYS
from llm_qualitative_sort.results.from_state import counts
from llm_qualitative_sort.stores import StorageError, StoredRuns, store_for
from llm_qualitative_sort.stores.leases import RunLease
from llm_qualitative_sort.tournament import settings_from_state
from llm_qualitative_sort.tournament.records import round_scores

__all__ = ["AmbiguousRunId", "LeaseLiveness", "Liveness", "RunInventory", "RunSummary",
           "StorageError", "priced"]


# How much of a run's id names it on the command line (as a commit's start names it in git).
SHORTEST_START = 4


class AmbiguousRunId(InputError):
    """The start of a run id that several runs' ids share."""

    def __init__(self, given: str, run_ids: list[str]) -> None:
        shown = ", ".join(run_ids[:5]) + (", …" if len(run_ids) > 5 else "")
        super().__init__(f"{given!r} starts the ids of {len(run_ids)} runs ({shown}): "
                         "give more of the id")


class Liveness(Protocol):
    """Tells whether a live process holds an unfinished run (the run lease answers this)."""

    async def holder(self, run_id: str) -> str | None:
        """A description of the live holder (host, pid, since when), or None."""


class LeaseLiveness:
    """Liveness from the run lease kept beside the checkpoint (see `stores.leases`)."""

    def __init__(self, lease: RunLease) -> None:
        self._lease = lease

    async def holder(self, run_id: str) -> str | None:
        """Who holds the run now, in words, or None."""
        holder = await self._lease.live_holder(run_id)
        return None if holder is None else holder.describe()


@dataclass
class RunSummary:
    """One stored run as `runs list` and `runs show` present it.

    `state` is "finished", "running" or "stopped" (from the lease), "unfinished" when
    nothing tells running from stopped, or "not started" (killed before its input was
    saved: start it again under its id). Calls count paid calls; for an unfinished run
    they come from the journal, which holds every call made so far.
    """

    run_id: str
    started: datetime | None
    updated: datetime | None
    state: str
    items: int = 0
    settings: dict[str, Any] = field(default_factory=dict)
    ids: list[Any] = field(default_factory=list)
    holder: str | None = None
    rounds: int = 0
    matches: int = 0
    # Of the settled rounds' `matches`, the calls that scored a text alone (pointwise, a
    # pre-pass), and how many texts they scored (fewer with repetitions).
    scorings: int = 0
    texts_scored: int = 0
    calls: int = 0
    cache_hits: int = 0
    failed_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def cost(self) -> float | None:
        """Estimated cost from the stored prices, or None without prices."""
        return priced(self.settings, self.input_tokens, self.output_tokens)


def priced(settings: dict[str, Any], input_tokens: int, output_tokens: int) -> float | None:
    """The cost of the tokens at the prices per million in `settings`, or None without prices."""
    price_in = settings.get("input_price_per_million")
    price_out = settings.get("output_price_per_million")
    if price_in is None and price_out is None:
        return None
    return (input_tokens * (price_in or 0.0) + output_tokens * (price_out or 0.0)) / 1e6


class RunInventory:
    """The runs of one store; open it with `RunInventory.open(target)`.

    Args:
        runs: The store's runs, opened.
        liveness: Tells running from stopped runs (default: the store's lease).
    """

    def __init__(self, runs: StoredRuns, where: str, liveness: Liveness | None) -> None:
        self.runs = runs
        self.where = where
        self.saver = runs.saver
        self.catalog = runs.catalog
        self._liveness = liveness

    @classmethod
    @asynccontextmanager
    async def open(cls, target: str | Path, *, liveness: Liveness | None = None,
                   create: bool = False) -> AsyncIterator[RunInventory]:
        """The inventory of a checkpoint file or PostgreSQL URI; it must exist unless `create`.

        Raises:
            StorageError: Nothing is kept there, or it is not a checkpoint store.
        """
        store = store_for(target)
        async with store.runs(create=create) as runs:
            yield cls(runs, store.where, liveness or LeaseLiveness(runs.lease))

    async def run_ids(self) -> list[str]:
        """Every run with a checkpoint, oldest first."""
        return await self.runs.run_ids()

    async def summaries(self) -> list[RunSummary]:
        """Every run, newest first."""
        found = [await self.summary(run_id) for run_id in await self.run_ids()]
        return [s for s in reversed(found) if s is not None]

    async def find(self, given: str) -> RunSummary | None:
        """The run `given` names: its whole id, or the start of one run's id alone.

        A start shorter than `SHORTEST_START` characters names no run but its own. Several
        runs whose ids start so: `AmbiguousRunId`, naming them.
        """
        summary = await self.summary(given)
        if summary is not None or len(given) < SHORTEST_START:
            return summary
        starting = [run_id for run_id in await self.run_ids() if run_id.startswith(given)]
        if len(starting) > 1:
            raise AmbiguousRunId(given, starting)
        return await self.summary(starting[0]) if starting else None

    async def summary(self, run_id: str) -> RunSummary | None:
        """The run `run_id`, or None if no checkpoint of it is kept."""
        latest = await self.saver.aget_tuple(_config(run_id))
        if latest is None:
            return None
        first = await self._first_checkpoint_time(run_id)
        values = latest.checkpoint["channel_values"]
        record = await self.catalog.get(run_id)
        summary = RunSummary(run_id, first, _time(latest.checkpoint["ts"]), "not started",
                             ids=list(record.get("ids", [])))
        if "standing" not in values:
            return summary  # killed before its input reached the disk
        summary.items = int(values.get("item_count", 0))
        summary.settings = {**record.get("settings", {}), **_tournament_settings(values)}
        summary.rounds = int(values.get("round", 0))
        summary.matches = int(values.get("completed", 0))
        if "rankings" in values:
            summary.state = "finished"
            self._count_history(summary, await self.values(run_id))
        else:
            await self._liveness_of(summary)
            # The checkpoint holds the calls of every settled round, the journal the rest.
            self._count_history(summary, await self.values(run_id))
            await self._count_journal(summary, values.get("settled", []))
        return summary

    async def values(self, run_id: str) -> dict[str, Any]:
        """The run's full stored state (items, history, rankings, ...), {} if none."""
        state = await build_graph(self.saver).aget_state(_config(run_id))
        return dict(state.values)

    async def delete(self, run_id: str) -> None:
        """Remove the run: its checkpoints and writes, catalog row and journal rows."""
        await self.saver.adelete_thread(run_id)
        await self.runs.delete_rows(run_id)

    async def _first_checkpoint_time(self, run_id: str) -> datetime | None:
        checkpoint_id = await self.runs.first_checkpoint_id(run_id)
        if checkpoint_id is None:
            return None
        config = _config(run_id)
        config["configurable"]["checkpoint_id"] = checkpoint_id
        first = await self.saver.aget_tuple(config)
        return None if first is None else _time(first.checkpoint["ts"])

    async def _liveness_of(self, summary: RunSummary) -> None:
        if self._liveness is None:
            summary.state = "unfinished"
            return
        summary.holder = await self._liveness.holder(summary.run_id)
        summary.state = "running" if summary.holder else "stopped"

    @staticmethod
    def _count_history(summary: RunSummary, values: dict[str, Any]) -> None:
        history = values.get("history", [])
        scored = [score.item for round_ in history for score in round_scores(round_)]
        summary.scorings, summary.texts_scored = len(scored), len(set(scored))
        # Every stored call, whatever it asked: a pair's, a text's score, a ranking call.
        totals = counts(history)
        summary.calls, summary.cache_hits = totals["total_api_calls"], totals["cache_hits"]
        summary.failed_calls = totals["failed_calls"]
        summary.input_tokens = totals["input_tokens"]
        summary.output_tokens = totals["output_tokens"]

    async def _count_journal(self, summary: RunSummary, settled: list[int]) -> None:
        counts = await self.runs.journal_counts(summary.run_id, settled)
        if counts is None:
            return
        summary.calls += counts["calls"]
        summary.cache_hits += counts["cache_hits"]
        summary.failed_calls += counts["failed_calls"]
        summary.input_tokens += counts["input_tokens"]
        summary.output_tokens += counts["output_tokens"]


def _config(run_id: str) -> RunnableConfig:
    return {"configurable": {"thread_id": run_id, "checkpoint_ns": ""}}


def _time(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp)


def _tournament_settings(values: dict[str, Any]) -> dict[str, Any]:
    """The settings the checkpoint itself holds (authoritative over any catalog copy)."""
    settings: dict[str, Any] = {"criteria": values.get("criteria")} if "criteria" in values else {}
    # Every setting of the run's strategy by its name (a run of an earlier version too).
    if any(key in values for key in SETTINGS_KEYS):
        settings.update(settings_from_state(values).stored())
    settings["seed"] = values.get("rng_seed")
    if isinstance(values.get("judge"), str):
        settings["judge"] = values["judge"]
    return settings
