"""The tournament as a LangGraph state machine: state, run context, nodes, schedules and wiring."""

from llm_qualitative_sort.graph.builder import TournamentGraph, build_graph
from llm_qualitative_sort.graph.context import TournamentContext
from llm_qualitative_sort.graph.state import TournamentInput, TournamentOutput, TournamentState

__all__ = [
    "TournamentContext",
    "TournamentGraph",
    "TournamentInput",
    "TournamentOutput",
    "TournamentState",
    "build_graph",
]
