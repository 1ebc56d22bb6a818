"""A sort in its own process, for the woken-holder tests: python woken_worker.py CONFIG.

Every paid call appends `pid|first|second|repetition` to the call log as it starts, and every
pairing `pid|seq|a|b` to the pairing log as it is made. Keys: checkpoint (a path or a DSN),
run_id, items, latency, concurrency, lease_ttl, call_log, pairing_log, out; optional
schedule ("pipelined", the default here, or "rounds"), resume, wait_for_run (None waits
without limit), hold_file (calls wait, unpaid, until it exists; `hold_file + ".waiting"`
holds the number of calls waiting), stop_after (the process suspends itself with SIGSTOP
once it has started that many paid calls). The result (history as [seq, a, b, winner], by
item index) or the error goes to `out`; a stopped run exits with 3. Only the pipelined
schedule journals its pairings (the rounds schedule pairs from the checkpoint), so only it
fills the pairing log.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from llm_qualitative_sort import (
    ComparisonResult,
    MockLLMProvider,
    QualitativeSorter,
    RunStoppedError,
)
from llm_qualitative_sort.graph import build_graph
from llm_qualitative_sort.stores import store_for
from llm_qualitative_sort.stores._postgres_journal import PostgresJournal
from llm_qualitative_sort.stores.leases import base as lease_base
from llm_qualitative_sort.stores.sqlite import SqliteJournal


class LoggingMock(MockLLMProvider):
    def __init__(self, log: str, hold_file: str, stop_after: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._log, self._hold = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND), hold_file
        self._waiting, self._stop_after, self._started = 0, stop_after, 0

    async def compare_call(
        self, item_a: str, item_b: str, criteria: str, *, repetition: int
    ) -> ComparisonResult:
        if self._hold:
            self._waiting += 1
            # The count, replaced whole: a reader never sees half of it.
            count = Path(f"{self._hold}.waiting.{os.getpid()}")
            count.write_text(str(self._waiting))
            count.replace(self._hold + ".waiting")
            while not os.path.exists(self._hold):
                await asyncio.sleep(0.01)
        os.write(self._log, f"{os.getpid()}|{item_a}|{item_b}|{repetition}\n".encode())
        self._started += 1
        if self._started == self._stop_after:
            # Suspended here, on the event loop between two steps: inside no commit.
            os.kill(os.getpid(), signal.SIGSTOP)
        return await super().compare_call(item_a, item_b, criteria, repetition=repetition)


def log_pairings(path: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    for cls in (SqliteJournal, PostgresJournal):
        original = cls.put_pairing

        def put_pairing(self: Any, run_id: str, seq: int, pairing: list[int],
                        _original: Any = original) -> None:
            os.write(fd, f"{os.getpid()}|{seq}|{pairing[0]}|{pairing[1]}\n".encode())
            _original(self, run_id, seq, pairing)

        cls.put_pairing = put_pairing  # type: ignore[method-assign]


async def history(checkpoint: str, run_id: str) -> list[list[Any]]:
    """The run's matches as [seq, a, b, winner], in pairing order.

    A round of the rounds schedule numbers no pairing: its matches are numbered in the
    order the history holds them, which is the order they were paired in.
    """
    store = store_for(checkpoint)
    async with store.runs() as runs:
        state = await build_graph(runs.saver).aget_state({"configurable": {"thread_id": run_id}})
    found: list[list[Any]] = []
    for entry in state.values["history"]:
        seqs = entry.get("seqs") or range(len(found), len(found) + len(entry["matches"]))
        found.extend([seq, a, b, winner]
                     for seq, (a, b, winner, _calls) in zip(seqs, entry["matches"], strict=True))
    return sorted(found)


async def main(config: dict[str, Any]) -> int:
    lease_base.DEFAULT_TTL = config["lease_ttl"]
    log_pairings(config["pairing_log"])
    provider = LoggingMock(config["call_log"], config.get("hold_file", ""),
                           config.get("stop_after", 0), seed=11, latency=config["latency"])
    sorter = QualitativeSorter(provider, criteria="the larger number", elimination_count=2,
                               max_concurrent_requests=config["concurrency"], seed=5,
                               schedule=config.get("schedule", "pipelined"),
                               checkpointer=config["checkpoint"],
                               wait_for_run=config.get("wait_for_run", 0.0))
    try:
        if config.get("resume"):
            await sorter.resume(config["run_id"])
        else:
            await sorter.sort(config["items"], run_id=config["run_id"])
    except RunStoppedError as stop:
        Path(config["out"]).write_text(json.dumps({"error": type(stop).__name__,
                                                   "message": str(stop)}))
        return 3
    found = await history(config["checkpoint"], config["run_id"])
    Path(config["out"]).write_text(json.dumps({"history": found}))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(json.loads(Path(sys.argv[1]).read_text()))))
