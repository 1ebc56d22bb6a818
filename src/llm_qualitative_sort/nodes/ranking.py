"""Ranking node: final ranks by wins; equal wins share a rank."""

from __future__ import annotations

from typing import Any

from llm_qualitative_sort.graph.state import TournamentState
from llm_qualitative_sort.tournament import competition_ranks


def rank(state: TournamentState) -> dict[str, Any]:
    """Rank every item by its wins."""
    items = state["items"]
    wins = state.get("wins", [0] * len(items))
    ranks = competition_ranks(wins)
    return {"rankings": [(r, [items[i] for i in players]) for r, players in ranks]}
