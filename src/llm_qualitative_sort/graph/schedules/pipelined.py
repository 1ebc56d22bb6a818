"""Pipelined play: a match starts as soon as its players are free; no round barrier.

One node, `play`, loops: each pass is a segment of about a round's matches, after which
LangGraph checkpoints the standing, the matches closed and those still open, while calls in
flight go on. Exactly resumable (pairings are journaled before their calls start), but not
reproducible from the seed alone: who is free when depends on the latencies.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import StateGraph

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.graph.nodes.play import play
from llm_qualitative_sort.graph.nodes.update import after_play
from llm_qualitative_sort.graph.schedules.base import Schedule
from llm_qualitative_sort.graph.state import TournamentState, run_strategy
from llm_qualitative_sort.tournament import Strategy


def _route_after_play(state: TournamentState) -> str:
    finished = not state.get("in_flight") and run_strategy(state).finished(state["standing"])
    return after_play(state) if finished else "play"


class Pipelined(Schedule):
    """play ⟲ (segments) until nothing is open and the strategy has finished."""

    name = "pipelined"
    entry = "play"

    @classmethod
    def check(cls, strategy: type[Strategy[Any]], provider: Any) -> None:
        """Only strategies with pipelined rules, and only live calls."""
        if not strategy.pipelined:
            raise InputError(f"schedule='pipelined' cannot play strategy={strategy.name!r}: "
                             f"{strategy.not_pipelined_because}")
        batch = getattr(provider, "batch_client", None)
        if callable(batch) and batch() is not None:
            raise InputError("schedule='pipelined' needs live calls: a provider batch answers "
                             "a whole round at once (use the default schedule='rounds' with "
                             "batch=True)")

    @classmethod
    def wire(cls, builder: StateGraph[Any, Any, Any, Any]) -> None:
        """The play loop."""
        builder.add_node("play", play)
        builder.add_conditional_edges("play", _route_after_play,
                                      ["play", "labelled", "ranking"])
