"""Ranking node: the strategy's final ranks; equal ranks share a place.

Elimination ranks the winner first, then by wins; Swiss ranks by Bradley–Terry strength.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from langchain_core.runnables import RunnableConfig

from llm_qualitative_sort.graph.state import TournamentState, run_strategy
from llm_qualitative_sort.results.from_state import counts


async def rank(state: TournamentState, config: RunnableConfig) -> dict[str, Any]:
    """Rank every item; also give the run's counts and id (the output Studio shows)."""
    items = state["items"]
    strategy = run_strategy(state)
    ranks = strategy.rank(state["standing"], state.get("history", []))
    stop = strategy.early_stop(state["standing"])
    return {
        "rankings": [(r, [items[i] for i in players]) for r, players in ranks],
        "early_stop": None if stop is None else asdict(stop),
        "statistics": counts(state.get("history", [])),
        "run_id": str(config.get("configurable", {}).get("thread_id", "")),
    }
