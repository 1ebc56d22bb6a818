"""Round-synchronous play (the default): pair a round, play all of it, apply it, repeat.

Deterministic: with the same seeds the same pairings and verdicts follow whatever the
latencies, since every round is paired from the standing after the previous one.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import StateGraph

from llm_qualitative_sort.graph.nodes.comparison import compare
from llm_qualitative_sort.graph.nodes.pairing import pair
from llm_qualitative_sort.graph.nodes.update import route_after_update, update
from llm_qualitative_sort.graph.schedules.base import Schedule


class Rounds(Schedule):
    """pairing → comparison → update, looping until the strategy has finished."""

    name = "rounds"
    entry = "pairing"

    @classmethod
    def wire(cls, builder: StateGraph[Any, Any, Any, Any]) -> None:
        """The round loop."""
        builder.add_node("pairing", pair)
        builder.add_node("comparison", compare)
        builder.add_node("update", update)
        builder.add_edge("pairing", "comparison")
        builder.add_edge("comparison", "update")
        builder.add_conditional_edges("update", route_after_update,
                                      ["pairing", "labelled", "ranking"])
