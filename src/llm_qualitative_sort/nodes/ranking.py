"""Ranking node: the strategy's final ranks; equal ranks share a place.

Elimination ranks the winner first, then by wins; Swiss ranks by Bradley–Terry strength.
"""

from __future__ import annotations

from typing import Any

from llm_qualitative_sort.graph.state import TournamentState, run_strategy


def rank(state: TournamentState) -> dict[str, Any]:
    """Rank every item."""
    items = state["items"]
    ranks = run_strategy(state).rank(state["standing"], state.get("history", []))
    return {"rankings": [(r, [items[i] for i in players]) for r, players in ranks]}
