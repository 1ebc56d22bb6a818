"""`langgraph dev` serves the graph of `langgraph.json`; a run over the API ranks like the library.

The server is the real one from `langgraph-cli[inmem]`, started on a free loopback port in a
temporary working directory (its pickled state lands there, not in the repository).
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client

from llm_qualitative_sort import MockLLMProvider
from llm_qualitative_sort.graph import TournamentContext, build_graph

ROOT = Path(__file__).resolve().parents[2]
GRAPH_ID = "llm-qualitative-sort"
ITEMS = [str(100 * i) for i in range(32)]  # far apart: the sd-3.33 mock never errs
START_TIMEOUT = 60.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _config_in(workdir: Path) -> Path:
    """The committed `langgraph.json`, with graph paths made absolute for another cwd."""
    config = json.loads((ROOT / "langgraph.json").read_text())
    for graph_id, spec in config["graphs"].items():
        path, _, attr = spec.partition(":")
        config["graphs"][graph_id] = f"{(ROOT / path).resolve()}:{attr}"
    config["dependencies"] = [str(ROOT)]
    target = workdir / "langgraph.json"
    target.write_text(json.dumps(config))
    return target


def _wait_ready(server: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"langgraph dev exited with {server.returncode}:\n{log.read_text()}")
        try:
            if httpx.get(f"{url}/ok", timeout=1.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    pytest.fail(f"langgraph dev not ready after {START_TIMEOUT} s:\n{log.read_text()}")


@pytest.fixture
def server_url(tmp_path: Path) -> Iterator[str]:
    port = _free_port()
    env = dict(os.environ)
    env.update(LANGGRAPH_CLI_NO_ANALYTICS="1", LANGGRAPH_NO_VERSION_CHECK="true")
    # This checkout's sources first, whatever copy of the package the venv has installed.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    cli = Path(sys.executable).with_name("langgraph")
    command = [str(cli), "dev", "--config", str(_config_in(tmp_path)), "--no-browser",
               "--no-reload", "--host", "127.0.0.1", "--port", str(port)]
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        server = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=out, stderr=out)
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_ready(server, url, log)
        # The CLI silently moves to another port when ours is taken; make sure it did not.
        assert f"API: http://127.0.0.1:{port}" in _plain(log.read_text()), log.read_text()
        yield url
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    assert (tmp_path / ".langgraph_api").is_dir()  # the server's state stayed in tmp


def _plain(text: str) -> str:
    """Log text without ANSI colour codes."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


async def _local_run(start: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    """Rankings and custom events of the same run in process, as JSON would carry them."""
    events: list[Any] = []
    final: dict[str, Any] = {}
    async for mode, chunk in build_graph().astream(
        start, context=TournamentContext(), stream_mode=["custom", "values"]
    ):
        if mode == "custom":
            events.append(chunk)
        else:
            final = chunk
    return json.loads(json.dumps(final["rankings"])), json.loads(json.dumps(events))


def _canonical(events: list[Any]) -> list[str]:
    # Matches of a round run concurrently; compare the events as a multiset.
    return sorted(json.dumps(e, sort_keys=True) for e in events)


async def test_langgraph_dev_runs_the_tournament(server_url: str) -> None:
    async with get_client(url=server_url) as client:
        await _check_run(client)


async def _check_run(client: Any) -> None:
    assistants = await client.assistants.search(graph_id=GRAPH_ID)
    assert [a["graph_id"] for a in assistants] == [GRAPH_ID]
    schemas = await client.assistants.get_schemas(assistants[0]["assistant_id"])
    assert set(schemas["input_schema"]["properties"]) >= {"items", "criteria", "seed",
                                                          "settings"}
    assert schemas["context_schema"]["properties"]["provider"]["enum"] == [
        "mock", "openai", "google"
    ]
    assert "judges" in schemas["context_schema"]["properties"]

    thread = await client.threads.create()
    start = {"items": ITEMS, "criteria": "larger number", "seed": 7,
             "settings": {"strategy": "elimination", "elimination_count": 2}}
    custom: list[Any] = []
    updated_nodes: list[str] = []
    async for part in client.runs.stream(
        thread["thread_id"], GRAPH_ID, input=start,
        context={"provider": "mock", "max_concurrent_requests": 4},
        stream_mode=["custom", "updates"],
    ):
        assert part.event != "error", part.data
        if part.event == "custom":
            custom.append(part.data)
        elif part.event == "updates":
            updated_nodes.extend(part.data)

    state = await client.threads.get_state(thread["thread_id"])
    rankings = state["values"]["rankings"]
    local_rankings, local_events = await _local_run(start)

    assert rankings == local_rankings
    assert rankings[0] == [1, ["3100"]]
    assert sorted(item for _, group in rankings for item in group) == sorted(ITEMS)
    assert {"prepare", "pairing", "comparison", "update", "ranking"} <= set(updated_nodes)
    kinds = {e["event"] for e in custom}
    assert kinds == {"match_start", "match_end", "round_end", "bracket_change"}
    assert custom[-1]["completed"] == custom[-1]["total"] > 0
    assert _canonical(custom) == _canonical(local_events)
    # The run's output: the ranking, its counts and its id (not only the ranking).
    assert state["values"]["run_id"] == thread["thread_id"]
    assert state["values"]["statistics"]["total_api_calls"] == 2 * len(
        [e for e in custom if e["event"] == "match_end"])

    await _check_panel(client, start)

    # An input without a criterion says which field is missing.
    failed = await client.threads.create()
    answer = await client.runs.wait(failed["thread_id"], GRAPH_ID, input={"items": ITEMS},
                                    raise_error=False)
    assert "'criteria'" in json.dumps(answer), answer


async def _check_panel(client: Any, start: dict[str, Any]) -> None:
    """A panel chosen in the context: every call names its judge, both judges answer."""
    thread = await client.threads.create()
    four = {"strategy": "elimination", "elimination_count": 2, "comparison_rounds": 4}
    await client.runs.wait(thread["thread_id"], GRAPH_ID, input={**start, "settings": four},
                           context={"judges": ["mock", "mock"], "max_concurrent_requests": 4})
    values = (await client.threads.get_state(thread["thread_id"]))["values"]
    calls = [call for entry in values["history"] for match in entry["matches"]
             for call in match[3]]
    judges = {call[6]["judge"] for call in calls}
    assert judges == {MockLLMProvider(seed=7).model_identity,
                      MockLLMProvider(seed=8).model_identity}
    assert values["rankings"][0] == [1, ["3100"]]
