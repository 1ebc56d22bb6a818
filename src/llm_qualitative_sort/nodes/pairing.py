"""Pairing node: the next round's matches inside loss brackets."""

from __future__ import annotations

from typing import Any

from llm_qualitative_sort.graph.state import TournamentState
from llm_qualitative_sort.tournament import pair_round, round_rng


def pair(state: TournamentState) -> dict[str, Any]:
    """Pair the active players with the round's own generator."""
    round_number = state["round"] + 1
    rng = round_rng(state["rng_seed"], round_number)
    pairing = pair_round(state["losses"], state["elimination_count"], rng)
    return {"round": round_number, "pairs": pairing.pairs, "bye": pairing.bye}
