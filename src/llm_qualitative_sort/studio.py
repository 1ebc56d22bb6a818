"""The tournament graph as LangGraph Studio and `langgraph dev` load it (see `langgraph.json`).

The input is plain data (`TournamentInput`); the judge is chosen by name in the run's
context (`{"provider": "mock" | "openai" | "google", "model": ...}`), with the seeded mock
as the default so a run needs no key.

Example:
    >>> from llm_qualitative_sort.studio import graph
    >>> graph.name
    'llm-qualitative-sort'
"""

from llm_qualitative_sort.graph import TournamentGraph, build_graph

__all__ = ["graph"]

# No checkpointer: the API server attaches its own persistence to every graph it serves.
graph: TournamentGraph = build_graph()
