"""One of several workers sharing a PostgreSQL database: python pg_worker.py CONFIG_JSON.

It starts every run of the config at once and keeps at each until the run is finished, by
itself or by another worker (a run held elsewhere is tried again shortly). Each paid call
appends `pid|run id|first|second|repetition` to the call log; each run's ranking, and
whether this worker made any call for it, go to the output file as JSON.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from llm_qualitative_sort import (
    ComparisonResult,
    MockLLMProvider,
    QualitativeSorter,
    RunLockedError,
)


class LoggingMock(MockLLMProvider):
    def __init__(self, log: int, run_id: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._log, self._run_id, self.paid = log, run_id, 0

    async def compare_call(
        self, item_a: str, item_b: str, criteria: str, *, repetition: int
    ) -> ComparisonResult:
        self.paid += 1
        line = f"{os.getpid()}|{self._run_id}|{item_a}|{item_b}|{repetition}\n"
        os.write(self._log, line.encode())
        return await super().compare_call(item_a, item_b, criteria, repetition=repetition)


async def finish(config: dict[str, Any], run_id: str, items: list[str], log: int
                 ) -> dict[str, Any]:
    paid = 0
    while True:
        provider = LoggingMock(log, run_id, seed=config["mock_seed"], latency=config["latency"])
        sorter = QualitativeSorter(provider, criteria="the larger number", seed=config["seed"],
                                   max_concurrent_requests=config["concurrency"],
                                   checkpointer=config["dsn"])
        try:
            result = await sorter.sort(items, run_id=run_id)
        except RunLockedError:
            paid += provider.paid
            await asyncio.sleep(0.1)
            continue
        paid += provider.paid
        return {"rankings": result.rankings, "paid": paid}


async def main(config: dict[str, Any]) -> None:
    log = os.open(config["call_log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    runs = config["runs"]
    results = await asyncio.gather(*(finish(config, run_id, items, log)
                                     for run_id, items in runs.items()))
    with open(config["out"], "w", encoding="utf-8") as out:
        json.dump(dict(zip(runs, results, strict=True)), out)


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        asyncio.run(main(json.load(f)))
