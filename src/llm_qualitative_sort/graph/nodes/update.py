"""Update node: the strategy reads the round just played.

Elimination: losers drop a bracket, N losses eliminate (the bracket reassignment). Swiss:
the strengths are refitted to every call and the standings reordered.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from langgraph.runtime import Runtime

from llm_qualitative_sort.graph.context import TournamentContext
from llm_qualitative_sort.graph.state import TournamentState, run_strategy
from llm_qualitative_sort.tournament.records import round_matches, round_scores


async def update(state: TournamentState, runtime: Runtime[TournamentContext]) -> dict[str, Any]:
    """Apply the round's verdicts to the standing and tell listeners what changed."""
    strategy = run_strategy(state)
    history = state["history"]
    changed = strategy.update(state["standing"], history)
    scored = [score.item for score in round_scores(history[-1])]
    ranked = len(history[-1].get("groups") or ())  # ranking calls: one call each
    played = len(round_matches(history[-1])) + len(scored) + ranked
    completed = state["completed"] + played
    finished = strategy.finished(changed.standing)
    # A run that ends before its bound (a settled top K) ends its total here, so a bar fills.
    total = completed + (0 if finished else strategy.remaining_matches(changed.standing))
    events = (runtime.context or TournamentContext()).events(runtime.stream_writer)
    events.notes(state["items"], changed.notes, completed, total)
    left = strategy.players_left(changed.standing) if strategy.eliminates else None
    stop = strategy.early_stop(changed.standing) if finished else None
    # Plain data, as every payload (it travels over the API server); see `progress_event`.
    extra = {} if stop is None else {"early_stop": asdict(stop)}
    # Texts scored alone, each once per repetition (pointwise scoring, a pre-pass).
    events.round_end(f"round {state['round']}", played, left, completed, total, state["round"],
                     len(scored), len(set(scored)), ranked=ranked, **extra)
    return {"standing": changed.standing, "completed": completed}


def route_after_update(state: TournamentState) -> str:
    """Loop until the strategy says the tournament is over."""
    if not run_strategy(state).finished(state["standing"]):
        return "pairing"
    return after_play(state)


def after_play(state: TournamentState) -> str:
    """Where a run goes once its strategy has finished: its labelled pairs, or its ranking.

    A pointwise run asks no pair: its judge has scored every text alone already.
    """
    asks = state.get("human") and not run_strategy(state).settings.scores_alone
    return "labelled" if asks else "ranking"
