"""Pairing node: the strategy plans the next round's matches."""

from __future__ import annotations

from typing import Any

from llm_qualitative_sort.graph.state import TournamentState, run_strategy


async def pair(state: TournamentState) -> dict[str, Any]:
    """Ask the strategy for round `round + 1`."""
    round_number = state["round"] + 1
    plan = run_strategy(state).plan(state["standing"], state.get("history", []), round_number)
    matches = [[m.a, m.b, m.first_repetition] for m in plan.matches]
    update: dict[str, Any] = {"round": round_number, "matches": matches, "bye": plan.bye}
    # Written only by a run that scores texts (and once more to clear them): the state of
    # every other run is checkpointed as it always was.
    if plan.scores or state.get("scores"):
        update["scores"] = [[s.item, s.repetition] for s in plan.scores]
    if plan.groups or state.get("groups"):  # a pairwise run's state never holds the key
        update["groups"] = [[g.first_repetition, *g.items] for g in plan.groups]
    return update
