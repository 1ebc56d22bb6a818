"""A sort run in its own process, for the kill-and-resume tests.

Usage: python resume_worker.py CONFIG_JSON

Every provider call appends one line to the call log as it starts (so a call cut short by
SIGKILL still counts as paid); the result goes to the output file as JSON.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from llm_qualitative_sort import (
    ComparisonResult,
    FileCache,
    MockLLMProvider,
    QualitativeSorter,
)


class LoggingMock(MockLLMProvider):
    def __init__(self, log_path: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)

    async def compare_call(
        self, item_a: str, item_b: str, criteria: str, *, repetition: int
    ) -> ComparisonResult:
        os.write(self._log, f"{item_a}|{item_b}|{repetition}\n".encode())
        return await super().compare_call(item_a, item_b, criteria, repetition=repetition)


async def main(config: dict[str, Any]) -> None:
    provider = LoggingMock(config["call_log"], seed=config["mock_seed"], latency=config["latency"])
    cache = FileCache(config["cache_dir"]) if config.get("cache_dir") else None
    sorter = QualitativeSorter(
        provider,
        criteria="the larger number",
        elimination_count=config["elimination_count"],
        max_concurrent_requests=config["concurrency"],
        seed=config["seed"],
        cache=cache,
        checkpointer=config["checkpoint"],
        **config.get("strategy", {}),
    )
    if config.get("resume"):
        result = await sorter.resume(config["run_id"])
    else:
        result = await sorter.sort(config["items"], run_id=config["run_id"])
    with open(config["out"], "w", encoding="utf-8") as out:
        json.dump({"rankings": result.rankings, "matches": len(result.match_history)}, out)


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        asyncio.run(main(json.load(f)))
