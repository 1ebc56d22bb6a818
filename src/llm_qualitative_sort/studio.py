"""The tournament graph as LangGraph Studio and `langgraph dev` load it (see `langgraph.json`).

The input is plain data (`TournamentInput`); the judge is chosen by name in the run's
context (`{"provider": "mock" | "openai" | "google", "model": ...}`), with the seeded mock
as the default so a run needs no key.

Example:
    >>> from llm_qualitative_sort.studio import graph
    >>> graph.name
    'llm-qualitative-sort'
"""

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.graph import TournamentGraph, build_graph
from llm_qualitative_sort.stores.default import CHECKPOINT_VARIABLE
from llm_qualitative_sort.stores.postgres_connect import is_dsn

__all__ = ["graph", "postgres_checkpointer"]

# No checkpointer: the API server attaches its own persistence to every graph it serves.
graph: TournamentGraph = build_graph()


@asynccontextmanager
async def postgres_checkpointer() -> AsyncIterator[Any]:
    """LangGraph's PostgreSQL checkpointer on `$LLM_QUALITATIVE_SORT_CHECKPOINT`.

    For `langgraph.postgres.json`: the API server then keeps its threads' checkpoints in
    that database (the production server does so on its own, with `POSTGRES_URI`).

    Raises:
        ValueError: The variable is not a `postgresql://` URI.
    """
    dsn = os.environ.get(CHECKPOINT_VARIABLE, "")
    if not is_dsn(dsn):
        raise InputError(f"set {CHECKPOINT_VARIABLE} to a postgresql:// URI to serve the graph "
                         "with the PostgreSQL checkpointer")
    from llm_qualitative_sort.stores.postgres import PostgresStore

    store = PostgresStore(dsn)
    await store.prepare()  # tables created or migrated, in turn with other workers
    async with store.saver() as saver:
        yield saver
