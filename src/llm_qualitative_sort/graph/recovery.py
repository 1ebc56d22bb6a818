"""Recovering a run whose last step kept its writes but lost the choice of the next node.

LangGraph saves a node's state updates and its routing (the conditional edge's choice of
the next node) as writes of the same task. A stop that lands while those writes are being
saved (Ctrl-C, SIGTERM, a cancelled task) can keep the updates and lose the routing: the
run then looks finished — no next node — without having ranked anything. Re-applying the
last node with no new values makes LangGraph evaluate its edges again on the saved state,
so the run goes on exactly where it stopped (nothing is applied twice).
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph


async def reroute_lost_step(graph: CompiledStateGraph[Any, Any, Any, Any],
                            config: RunnableConfig) -> bool:
    """Give the run its next node back if the last step lost it; True when it did."""
    recent = [snapshot async for snapshot in graph.aget_state_history(config, limit=2)]
    if len(recent) < 2 or recent[0].next or len(recent[1].next) != 1:
        return False
    await graph.aupdate_state(config, None, as_node=recent[1].next[0])
    return True
