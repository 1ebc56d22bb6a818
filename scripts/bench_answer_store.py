"""Time the answer cache against LangGraph's SQLite store doing the same job.

Writes N answers and reads them back (every key once, in a shuffled order), with the
product's `FileCache` and with LangGraph's `SqliteStore` / `AsyncSqliteStore` (one
namespace, the cache key's digest as the store key, the answer as the value). Both are
SQLite files in a fresh temporary directory; each side runs `--trials` times,
alternating, and the script prints the median seconds and the ratio to `FileCache`.

    python scripts/bench_answer_store.py --answers 2000 --trials 5
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from langgraph.store.sqlite import SqliteStore
from langgraph.store.sqlite.aio import AsyncSqliteStore

from llm_qualitative_sort.stores.cache import CacheKey, FileCache, result_from_dict, result_to_dict
from llm_qualitative_sort.verdicts import ComparisonResult

NAMESPACE = ("answers",)


def _work(n: int, seed: int) -> list[tuple[CacheKey, ComparisonResult]]:
    rng = random.Random(seed)
    pairs = []
    for i in range(n):
        key = CacheKey.of(f"text {i} " * 20, f"other {i} " * 20, "clearer", 0, "Mock:default")
        answer = ComparisonResult(rng.choice(["A", "B"]), f"reason {i} " * 10, {}, 120, 40)
        pairs.append((key, answer))
    return pairs


async def _file_cache(root: Path, work: list[tuple[CacheKey, ComparisonResult]],
                      order: list[int]) -> None:
    cache = FileCache(root)
    for key, answer in work:
        await cache.set(key, answer)
    for i in order:
        assert await cache.get(work[i][0]) == work[i][1]
    await cache.aclose()


async def _sync_store(root: Path, work: list[tuple[CacheKey, ComparisonResult]],
                      order: list[int]) -> None:
    conn = sqlite3.connect(root / "store.sqlite3", check_same_thread=False,
                           isolation_level=None)
    # The same journal settings as the product's own SQLite files, for a fair race.
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    store = SqliteStore(conn)
    store.setup()
    for key, answer in work:
        store.put(NAMESPACE, key.digest, result_to_dict(answer), index=False)
    for i in order:
        item = store.get(NAMESPACE, work[i][0].digest, refresh_ttl=False)
        assert item is not None and result_from_dict(item.value, "store") == work[i][1]
    conn.close()


async def _async_store(root: Path, work: list[tuple[CacheKey, ComparisonResult]],
                       order: list[int]) -> None:
    async with AsyncSqliteStore.from_conn_string(str(root / "astore.sqlite3")) as store:
        await store.conn.execute("PRAGMA journal_mode=WAL")
        await store.conn.execute("PRAGMA synchronous=NORMAL")
        await store.setup()
        for key, answer in work:
            await store.aput(NAMESPACE, key.digest, result_to_dict(answer), index=False)
        for i in order:
            item = await store.aget(NAMESPACE, work[i][0].digest, refresh_ttl=False)
            assert item is not None and result_from_dict(item.value, "store") == work[i][1]


Side = Callable[[Path, list[tuple[CacheKey, ComparisonResult]], list[int]],
                Coroutine[Any, Any, None]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=2000)
    parser.add_argument("--trials", type=int, default=5)
    args = parser.parse_args()
    work = _work(args.answers, 0)
    sides: dict[str, Side] = {"FileCache": _file_cache, "SqliteStore": _sync_store,
                              "AsyncSqliteStore": _async_store}
    times: dict[str, list[float]] = {name: [] for name in sides}
    for trial in range(args.trials):
        order = list(range(args.answers))
        random.Random(trial).shuffle(order)
        for name, side in sides.items():
            with tempfile.TemporaryDirectory() as tmp:
                start = time.perf_counter()
                asyncio.run(side(Path(tmp), work, order))
                times[name].append(time.perf_counter() - start)
    base = statistics.median(times["FileCache"])
    print(f"{args.answers} answers written then read, median of {args.trials} trials")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:17} {median:7.3f} s  {median / base:5.2f} x FileCache  "
              f"(range {min(values):.3f}-{max(values):.3f})")


if __name__ == "__main__":
    main()
