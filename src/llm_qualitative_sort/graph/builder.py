"""Wiring: prepare → pairing → comparison → update → (loop) → ranking."""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from llm_qualitative_sort.graph.context import TournamentContext
from llm_qualitative_sort.graph.state import TournamentInput, TournamentOutput, TournamentState
from llm_qualitative_sort.nodes import compare, pair, prepare, rank, update
from llm_qualitative_sort.nodes.update import route_after_update

TournamentGraph = CompiledStateGraph[
    TournamentState, TournamentContext, TournamentInput, TournamentOutput
]


def _route_after_prepare(state: TournamentState) -> str:
    return "pairing" if len(state["items"]) >= 2 else "ranking"


def build_graph(checkpointer: BaseCheckpointSaver[Any] | None = None) -> TournamentGraph:
    """Compile the tournament graph.

    Example:
        >>> graph = build_graph()
        >>> sorted(graph.get_graph().nodes)[:3]
        ['__end__', '__start__', 'comparison']
    """
    builder = StateGraph(
        TournamentState,
        context_schema=TournamentContext,
        input_schema=TournamentInput,
        output_schema=TournamentOutput,
    )
    builder.add_node("prepare", prepare)
    builder.add_node("pairing", pair)
    builder.add_node("comparison", compare)
    builder.add_node("update", update)
    builder.add_node("ranking", rank)
    builder.add_edge(START, "prepare")
    builder.add_conditional_edges("prepare", _route_after_prepare, ["pairing", "ranking"])
    builder.add_edge("pairing", "comparison")
    builder.add_edge("comparison", "update")
    builder.add_conditional_edges("update", route_after_update, ["pairing", "ranking"])
    builder.add_edge("ranking", END)
    return builder.compile(checkpointer=checkpointer, name="llm-qualitative-sort")
