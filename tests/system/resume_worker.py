"""A sort run in its own process, for the kill-and-resume tests.

Usage: python resume_worker.py CONFIG_JSON

Every provider call appends one line to the call log as it starts (so a call cut short by
SIGKILL still counts as paid), beginning with the worker's pid; the result goes to the output
file as JSON. A run that stops writes `{"error": type, "message": ...}` there instead and
exits with status 3. `checkpoint` may be a PostgreSQL URI, and `cache_dsn` one for a
`PostgresCache`. Optional keys: `wait_for_run`, `lease_ttl` (seconds), `ready_file`
(created just before the run starts), `pause_at` and `go_file` (calls from number
`pause_at` on wait, unpaid, until `go_file` exists).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from llm_qualitative_sort import (
    ComparisonResult,
    FileCache,
    MockLLMProvider,
    PostgresCache,
    QualitativeSorter,
    RunStoppedError,
)
from llm_qualitative_sort.graph import build_graph
from llm_qualitative_sort.stores.leases import base as lease_base
from llm_qualitative_sort.tournament import parse_settings


class LoggingMock(MockLLMProvider):
    def __init__(
        self, log_path: str, pause_at: int | None = None, go_file: str = "", **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self._log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        self._pause_at, self._go_file, self._started = pause_at, go_file, 0

    async def compare_call(
        self, item_a: str, item_b: str, criteria: str, *, repetition: int
    ) -> ComparisonResult:
        self._started += 1
        if self._pause_at is not None and self._started > self._pause_at:
            while not os.path.exists(self._go_file):
                await asyncio.sleep(0.01)
        os.write(self._log, f"{os.getpid()}|{item_a}|{item_b}|{repetition}\n".encode())
        return await super().compare_call(item_a, item_b, criteria, repetition=repetition)

    async def score_call(self, text: str, criteria: str, *, scale: Any, inverse: bool = False,
                         repetition: int = 0) -> Any:
        self._started += 1
        os.write(self._log, f"{os.getpid()}|{text}||{repetition}\n".encode())
        return await super().score_call(text, criteria, scale=scale, inverse=inverse,
                                        repetition=repetition)


async def main(config: dict[str, Any]) -> int:
    if config.get("lease_ttl"):
        lease_base.DEFAULT_TTL = config["lease_ttl"]
    provider = LoggingMock(config["call_log"], config.get("pause_at"), config.get("go_file", ""),
                           seed=config["mock_seed"], latency=config["latency"])
    cache: Any = FileCache(config["cache_dir"]) if config.get("cache_dir") else None
    if config.get("cache_dsn"):
        cache = PostgresCache(config["cache_dsn"])
    # The strategy's settings as plain data ({"strategy": "swiss", "top_k": 5}), or N, and
    # the run's schedule ({"schedule": "pipelined"}).
    given = dict(config.get("strategy") or {})
    options: dict[str, Any] = {"schedule": given.pop("schedule")} if "schedule" in given else {}
    options |= ({"strategy": parse_settings(given)} if given
                else {"elimination_count": config["elimination_count"]})
    sorter = QualitativeSorter(
        provider,
        criteria="the larger number",
        max_concurrent_requests=config["concurrency"],
        seed=config["seed"],
        cache=cache,
        checkpointer=config["checkpoint"],
        **options,
        wait_for_run=config.get("wait_for_run", 0.0),
    )
    if config.get("ready_file"):
        open(config["ready_file"], "w").close()
    try:
        if config.get("resume"):
            result = await sorter.resume(config["run_id"])
        else:
            result = await sorter.sort(config["items"], run_id=config["run_id"])
    except RunStoppedError as stop:
        with open(config["out"], "w", encoding="utf-8") as out:
            json.dump({"error": type(stop).__name__, "message": str(stop)}, out)
        return 3
    out_data: dict[str, Any] = {"rankings": result.rankings,
                                "matches": len(result.match_history)}
    if config.get("strategy", {}).get("schedule") == "pipelined":
        out_data["paid"] = result.statistics.total_api_calls
        out_data["pairings"] = await pairing_log(config["checkpoint"], config["run_id"])
    with open(config["out"], "w", encoding="utf-8") as out:
        json.dump(out_data, out)
    return 0


async def pairing_log(checkpoint: str, run_id: str) -> list[list[Any]]:
    """A pipelined run's matches in pairing order: [seq, a, b, winner] (item indices)."""
    async with AsyncSqliteSaver.from_conn_string(checkpoint) as saver:
        state = await build_graph(saver).aget_state({"configurable": {"thread_id": run_id}})
    return sorted([seq, a, b, winner]
                  for entry in state.values["history"]
                  for seq, (a, b, winner, _calls) in zip(entry["seqs"], entry["matches"],
                                                           strict=True))


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        sys.exit(asyncio.run(main(json.load(f))))
