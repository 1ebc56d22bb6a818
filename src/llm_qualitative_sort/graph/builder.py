"""Wiring: prepare → the run's schedule (rounds or pipelined) → labelled pairs → ranking.

The schedules are in `schedules`; the labelled pairs are asked only in a run with people's
labels (`nodes.labelled`).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from llm_qualitative_sort.graph.context import TournamentContext
from llm_qualitative_sort.graph.nodes.labelled import ask_labelled
from llm_qualitative_sort.graph.nodes.prepare import prepare
from llm_qualitative_sort.graph.nodes.ranking import rank
from llm_qualitative_sort.graph.schedules import SCHEDULES
from llm_qualitative_sort.graph.state import TournamentInput, TournamentOutput, TournamentState

TournamentGraph = CompiledStateGraph[
    TournamentState, TournamentContext, TournamentInput, TournamentOutput
]


def _route_after_prepare(state: TournamentState) -> str:
    if len(state["items"]) < 2:
        return "ranking"
    return SCHEDULES[state.get("schedule", "rounds")].entry


def build_graph(checkpointer: BaseCheckpointSaver[Any] | None = None) -> TournamentGraph:
    """The tournament graph, with `checkpointer`.

    The graph is the same for every run: it is compiled once per process, and each call
    gets a copy of its own that holds `checkpointer` (a copy costs microseconds, a compile
    milliseconds).

    Example:
        >>> graph = build_graph()
        >>> sorted(graph.get_graph().nodes)[:3]
        ['__end__', '__start__', 'comparison']
    """
    return _compiled().copy(update={"checkpointer": checkpointer})


@cache
def _compiled() -> TournamentGraph:
    builder = StateGraph(
        TournamentState,
        context_schema=TournamentContext,
        input_schema=TournamentInput,
        output_schema=TournamentOutput,
    )
    builder.add_node("prepare", prepare)
    builder.add_node("ranking", rank)
    builder.add_node("labelled", ask_labelled)
    builder.add_edge("labelled", "ranking")
    builder.add_edge(START, "prepare")
    entries = [schedule.entry for schedule in SCHEDULES.values()]
    builder.add_conditional_edges("prepare", _route_after_prepare, [*entries, "ranking"])
    for schedule in SCHEDULES.values():
        schedule.wire(builder)
    builder.add_edge("ranking", END)
    return builder.compile(name="llm-qualitative-sort")
