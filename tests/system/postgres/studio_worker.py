"""The graph that `langgraph.json` serves, run as an API server worker would run it: with
LangGraph's PostgreSQL checkpointer and the run's context.

    python studio_worker.py DSN THREAD STALLED_FILE"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

from llm_qualitative_sort import ComparisonResult
from llm_qualitative_sort.graph import TournamentContext
from llm_qualitative_sort.studio import graph
from llm_qualitative_sort.testing import MockLLMProvider

ITEMS = [str(i) for i in range(0, 600, 3)]
START = {"items": ITEMS, "criteria": "larger number", "elimination_count": 2, "seed": 7}


# The run makes 200 calls in its first round and 200 in its second; a worker that stalls
# after them is still mid-run when it is killed, however fast the machine.
STALL_AFTER = 400


class StallingMock(MockLLMProvider):
    """The mock, whose calls after the first `stall_after` never return; the first of them
    creates the file `stalled`."""

    def __init__(self, stall_after: int, stalled: Path, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._left, self._stalled = stall_after, stalled

    async def compare_call(
        self, item_a: str, item_b: str, criteria: str, *, repetition: int
    ) -> ComparisonResult:
        self._left -= 1
        if self._left < 0:
            self._stalled.touch()
            await asyncio.Event().wait()
        return await super().compare_call(item_a, item_b, criteria, repetition=repetition)


def context(latency: float, stalled: Path | None = None) -> TournamentContext:
    # What {"provider": "mock"} builds (seeded from the run), slowed down to be killable.
    provider = (MockLLMProvider(seed=7, latency=latency) if stalled is None
                else StallingMock(STALL_AFTER, stalled, seed=7, latency=latency))
    return TournamentContext(provider=provider, max_concurrent_requests=8)


async def main(dsn: str, thread: str, stalled: str) -> None:
    async with AsyncPostgresSaver.from_conn_string(dsn) as saver:
        await saver.setup()
        served = graph.builder.compile(checkpointer=saver)
        await served.ainvoke(START, {"configurable": {"thread_id": thread}},
                             context=context(0.01, Path(stalled)))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
