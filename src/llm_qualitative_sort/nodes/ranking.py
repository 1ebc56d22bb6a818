"""Ranking node: the tournament's winner first, then by wins; equal wins share a rank."""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig

from llm_qualitative_sort._results import counts
from llm_qualitative_sort.graph.state import TournamentState
from llm_qualitative_sort.tournament import final_ranks


def rank(state: TournamentState, config: RunnableConfig) -> dict[str, Any]:
    """Rank every item; also give the run's counts and id (the output Studio shows)."""
    items = state["items"]
    wins = state.get("wins", [0] * len(items))
    losses = state.get("losses", [0] * len(items))
    ranks = final_ranks(wins, losses, state.get("elimination_count", 2))
    return {
        "rankings": [(r, [items[i] for i in players]) for r, players in ranks],
        "statistics": counts(state.get("history", [])),
        "run_id": str(config.get("configurable", {}).get("thread_id", "")),
    }
