"""The graph of `langgraph.json` on LangGraph's PostgreSQL checkpointer, as the API server
runs it: a worker killed mid-run, the thread continued by another from its checkpoints."""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path

import _forked as forked
import psycopg
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from studio_worker import START, context

from llm_qualitative_sort.studio import graph

WORKER = Path(__file__).with_name("studio_worker.py")


def _checkpoints(dsn: str, thread: str) -> int:
    with psycopg.connect(dsn) as conn:
        exists = conn.execute("SELECT to_regclass('checkpoints')").fetchone()
        if exists is None or exists[0] is None:
            return 0
        row = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = %s",
                           (thread,)).fetchone()
    return int(row[0]) if row else 0


async def test_a_thread_killed_on_one_worker_is_finished_by_another(
    postgres_dsn: str, tmp_path: Path
) -> None:
    reference = await graph.ainvoke(START, context=context(0.0))
    stalled = tmp_path / "stalled"
    worker = forked.start([sys.executable, str(WORKER), postgres_dsn, "thread-1",
                           str(stalled)])
    try:
        deadline = time.monotonic() + 120
        # Killed while its third round's calls hang (STALL_AFTER): mid-run, two rounds
        # checkpointed, whatever the machine's speed.
        while not stalled.exists():
            assert worker.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        assert _checkpoints(postgres_dsn, "thread-1") >= 6
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
    config = {"configurable": {"thread_id": "thread-1"}}
    async with AsyncPostgresSaver.from_conn_string(postgres_dsn) as saver:
        served = graph.builder.compile(checkpointer=saver)
        stopped = await served.aget_state(config)
        # Cut mid-run: a task is left. (`next` may be empty: a task whose writes were
        # saved before its step's checkpoint is not listed there, but it is in `tasks`.)
        assert stopped.tasks and "rankings" not in stopped.values
        finished = await served.ainvoke(None, config, context=context(0.0))
    assert json.dumps(finished["rankings"]) == json.dumps(reference["rankings"])
