"""`langgraph dev` serving the graph with the PostgreSQL checkpointer (`langgraph.postgres.json`):
a server SIGKILLed mid-run, and a fresh server, in another directory, finishes the thread from
the checkpoints in the database with the uninterrupted run's ranking."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph_sdk import get_client

from llm_qualitative_sort.graph import TournamentContext
from llm_qualitative_sort.studio import graph

ROOT = Path(__file__).resolve().parents[3]
GRAPH_ID = "llm-qualitative-sort"
START = {"items": [str(i) for i in range(1500)], "criteria": "larger number", "seed": 3}
CONTEXT = {"provider": "mock", "max_concurrent_requests": 50}


def _config_in(workdir: Path) -> Path:
    """`langgraph.postgres.json` with its paths made absolute for another working directory."""
    config = json.loads((ROOT / "langgraph.postgres.json").read_text())
    for graph_id, spec in config["graphs"].items():
        path, _, attr = spec.partition(":")
        config["graphs"][graph_id] = f"{(ROOT / path).resolve()}:{attr}"
    path, _, attr = config["checkpointer"]["path"].partition(":")
    config["checkpointer"]["path"] = f"{(ROOT / path).resolve()}:{attr}"
    config["dependencies"] = [str(ROOT)]
    target = workdir / "langgraph.json"
    target.write_text(json.dumps(config))
    return target


def _serve(workdir: Path, dsn: str) -> tuple[subprocess.Popen[bytes], str]:
    workdir.mkdir()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ, LANGGRAPH_CLI_NO_ANALYTICS="1", LANGGRAPH_NO_VERSION_CHECK="true",
               LLM_QUALITATIVE_SORT_CHECKPOINT=dsn)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    command = [str(Path(sys.executable).with_name("langgraph")), "dev", "--config",
               str(_config_in(workdir)), "--no-browser", "--no-reload", "--host", "127.0.0.1",
               "--port", str(port)]
    log = workdir / "server.log"
    with log.open("wb") as out:
        server = subprocess.Popen(command, cwd=workdir, env=env, stdout=out, stderr=out,
                                  start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"langgraph dev exited with {server.returncode}:\n{log.read_text()}")
        try:
            if httpx.get(f"{url}/ok", timeout=1.0).status_code == 200:
                return server, url
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    os.killpg(server.pid, signal.SIGKILL)
    pytest.fail(f"langgraph dev not ready:\n{log.read_text()}")


def _stop(server: subprocess.Popen[bytes], sig: int) -> None:
    if server.poll() is None:
        os.killpg(server.pid, sig)
    server.wait(timeout=30)


def _checkpoints(dsn: str, thread: str) -> int:
    with psycopg.connect(dsn) as conn:
        if conn.execute("SELECT to_regclass('checkpoints')").fetchone() == (None,):
            return 0
        row = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = %s",
                           (thread,)).fetchone()
    return int(row[0]) if row else 0


async def test_a_killed_server_thread_is_finished_by_a_fresh_server(
    tmp_path: Path, postgres_dsn: str
) -> None:
    reference = await graph.ainvoke(START, context=TournamentContext(max_concurrent_requests=50))
    first, url = _serve(tmp_path / "a", postgres_dsn)
    try:
        async with get_client(url=url) as client:
            thread = (await client.threads.create())["thread_id"]
            await client.runs.create(thread, GRAPH_ID, input=START, context=CONTEXT)
        deadline = time.monotonic() + 120
        while _checkpoints(postgres_dsn, thread) < 8:
            assert time.monotonic() < deadline, (tmp_path / "a" / "server.log").read_text()
            time.sleep(0.02)
    finally:
        _stop(first, signal.SIGKILL)
    config: Any = {"configurable": {"thread_id": thread}}
    async with AsyncPostgresSaver.from_conn_string(postgres_dsn) as saver:
        stopped = await graph.builder.compile(checkpointer=saver).aget_state(config)
    assert stopped.values.get("items") and "rankings" not in stopped.values  # cut mid-run

    second, url = _serve(tmp_path / "b", postgres_dsn)  # knows nothing of the thread
    try:
        async with get_client(url=url) as client:
            await client.runs.wait(thread, GRAPH_ID, input=None, context=CONTEXT,
                                   if_not_exists="create")
            state = await client.threads.get_state(thread)
    finally:
        _stop(second, signal.SIGTERM)
    assert state["values"]["rankings"] == json.loads(json.dumps(reference["rankings"]))
