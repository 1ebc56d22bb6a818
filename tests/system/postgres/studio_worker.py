"""The graph that `langgraph.json` serves, run as an API server worker would run it: with
LangGraph's PostgreSQL checkpointer and the run's context. python studio_worker.py DSN THREAD"""

from __future__ import annotations

import asyncio
import sys

from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

from llm_qualitative_sort.graph import TournamentContext
from llm_qualitative_sort.providers import MockLLMProvider
from llm_qualitative_sort.studio import graph

ITEMS = [str(i) for i in range(0, 600, 3)]
START = {"items": ITEMS, "criteria": "larger number", "elimination_count": 2, "seed": 7}


def context(latency: float) -> TournamentContext:
    # What {"provider": "mock"} builds (seeded from the run), slowed down to be killable.
    return TournamentContext(provider=MockLLMProvider(seed=7, latency=latency),
                             max_concurrent_requests=8)


async def main(dsn: str, thread: str) -> None:
    async with AsyncPostgresSaver.from_conn_string(dsn) as saver:
        await saver.setup()
        served = graph.builder.compile(checkpointer=saver)
        await served.ainvoke(START, {"configurable": {"thread_id": thread}},
                             context=context(0.01))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
