"""One run of the peer (PyPI's other `llm-qualitative-sort`, 1.1.0), in its own virtualenv.

    PEER_PYTHON _peer_child.py N_ITEMS N_LOSSES CONCURRENCY MODEL MEDIAN

Prints one JSON line: seconds, calls, peak RSS. Run by `bench_schedules.py --peer-python`.
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import time
from collections import Counter

from _latency import delay
from llm_qualitative_sort import MockLLMProvider, QualitativeSorter  # the peer's


class LatencyMock(MockLLMProvider):  # type: ignore[misc]
    """The peer's own mock, each call delayed as in `bench_schedules.LatencyMock`."""

    def __init__(self, model: str, median: float) -> None:
        super().__init__(seed=1)
        self.spread, self.median = model, median
        self.seen: Counter[tuple[str, str]] = Counter()

    async def compare(self, item_a: str, item_b: str, criteria: str):  # type: ignore[no-untyped-def]
        repetition = self.seen[item_a, item_b]
        self.seen[item_a, item_b] += 1
        seconds = delay(self.spread, self.median, item_a, item_b, repetition)
        if seconds:
            await asyncio.sleep(seconds)
        return await super().compare(item_a, item_b, criteria)


async def main() -> None:
    n, n_losses, concurrency = (int(v) for v in sys.argv[1:4])
    judge = LatencyMock(sys.argv[4], float(sys.argv[5]))
    sorter = QualitativeSorter(judge, criteria="the larger number", elimination_count=n_losses,
                               max_concurrent_requests=concurrency, seed=7)
    started = time.perf_counter()
    result = await sorter.sort([str(i) for i in range(n)])
    print(json.dumps({"seconds": time.perf_counter() - started,
                      "calls": result.statistics.total_api_calls,
                      "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "disk_peak_mb": 0.0, "disk_after_mb": 0.0}))


asyncio.run(main())
