"""Reassignment node: losers drop a bracket, N losses eliminate."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from llm_qualitative_sort._events import event
from llm_qualitative_sort.graph.context import TournamentContext
from llm_qualitative_sort.graph.state import TournamentState
from llm_qualitative_sort.models import EventType
from llm_qualitative_sort.tournament import active_players, apply_round, remaining_match_bound


def reassign(state: TournamentState, runtime: Runtime[TournamentContext]) -> dict[str, Any]:
    """Apply the round's verdicts to the loss and win counts."""
    matches = state["history"][-1]["matches"]
    n_losses = state["elimination_count"]
    pairs = [(m[0], m[1]) for m in matches]
    losses, wins, changes = apply_round(
        state["losses"], state["wins"], pairs, [m[2] for m in matches], n_losses
    )
    completed = state["completed"] + len(matches)
    total = completed + remaining_match_bound(losses, n_losses)
    items, emit = state["items"], runtime.stream_writer
    for change in changes if runtime.context.progress else []:
        fate = "eliminated" if change.eliminated else f"to bracket {change.after}"
        emit(event(EventType.BRACKET_CHANGE,
                   f"{items[change.player][:30]!r}: bracket {change.before} → {fate}",
                   completed, total, item=items[change.player], from_bracket=change.before,
                   to_bracket=change.after, eliminated=change.eliminated))
    left = len(active_players(losses, n_losses))
    emit(event(EventType.ROUND_END, f"round {state['round']}: {len(matches)} matches, "
               f"{left} left", completed, total, round=state["round"], matches=len(matches),
               remaining=left))
    return {"losses": losses, "wins": wins, "completed": completed}


def route_after_reassignment(state: TournamentState) -> str:
    """Loop while two or more players are left."""
    left = active_players(state["losses"], state["elimination_count"])
    return "pairing" if len(left) >= 2 else "ranking"
