"""Figures for resumable runs and the cache: checkpoint size, cache-hit cost, calls repeated
after SIGKILL.

    python scripts/bench_storage.py           # n = 1,000 and 10,000 (N=2), 5 kill points
    python scripts/bench_storage.py --quick   # n = 1,000 only
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from llm_qualitative_sort import (
    CacheKey,
    FileCache,
    MemoryCache,
    MockLLMProvider,
    QualitativeSorter,
)
from llm_qualitative_sort.stores.default import journal_path
from llm_qualitative_sort.stores.journal import Journal

WORKER = Path(__file__).resolve().parents[1] / "tests" / "integration" / "resume_worker.py"


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


async def checkpoint_size(n: int) -> str:
    peak_journal = [0]
    forget = Journal.forget

    def measured_forget(self: Journal, run_id: str) -> None:
        # The journal is emptied when a run finishes; record its size just before.
        self.flush()
        peak_journal[0] = _size(journal_path(path))
        forget(self, run_id)

    Journal.forget = measured_forget  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "runs.sqlite3"
        sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="larger", seed=1,
                                   checkpointer=path)
        started = time.perf_counter()
        result = await sorter.sort([str(i) for i in range(n)])
        seconds = time.perf_counter() - started
        calls = result.statistics.total_api_calls
        checkpoints, journal = _size(path), peak_journal[0]
        Journal.forget = forget  # type: ignore[method-assign]
        return (f"| {n:,} | {calls:,} | {seconds:.1f} | {checkpoints / 1e6:.1f} | "
                f"{journal / 1e6:.1f} | {(checkpoints + journal) / calls:.0f} |")


async def cache_hit_cost(count: int = 20_000) -> list[str]:
    judge = MockLLMProvider(seed=1)
    pairs = [(str(i), str(i + 1)) for i in range(count)]
    rows = []
    started = time.perf_counter()
    for a, b in pairs:
        await judge.compare_call(a, b, "larger", repetition=0)
    real = (time.perf_counter() - started) / count * 1e6
    rows.append(f"| zero-latency mock call | {real:.1f} µs |")
    with tempfile.TemporaryDirectory() as tmp:
        for name, cache in (("MemoryCache hit", MemoryCache()), ("FileCache hit", FileCache(tmp))):
            result = await judge.compare_call("1", "2", "larger", repetition=0)
            keys = [CacheKey.of(a, b, "larger", 0, judge.model_identity) for a, b in pairs]
            for key in keys:
                await cache.set(key, result)
            started = time.perf_counter()
            for a, b in pairs:  # the key is built per lookup, as the engine does
                key = CacheKey.of(a, b, "larger", 0, judge.model_identity)
                assert await cache.get(key) is not None
            hit = (time.perf_counter() - started) / count * 1e6
            rows.append(f"| {name} (key + lookup) | {hit:.1f} µs |")
    return rows


def kill_points(tmp: Path, shares: list[float]) -> list[str]:
    def config(case: str) -> dict[str, object]:
        return {"items": [str(i) for i in range(200)], "mock_seed": 3, "seed": 3,
                "latency": 0.001, "concurrency": 10, "elimination_count": 2,
                "run_id": case, "checkpoint": str(tmp / f"{case}.sqlite3"),
                "call_log": str(tmp / f"{case}.calls"), "out": str(tmp / f"{case}.json")}

    def launch(cfg: dict[str, object], name: str) -> subprocess.Popen[bytes]:
        (tmp / f"{name}.cfg").write_text(json.dumps(cfg))
        return subprocess.Popen([sys.executable, str(WORKER), str(tmp / f"{name}.cfg")])

    def lines(path: object) -> int:
        p = Path(str(path))
        return p.read_bytes().count(b"\n") if p.exists() else 0

    reference = config("reference")
    launch(reference, "reference").wait()
    total = lines(reference["call_log"])
    rows = []
    for share in shares:
        cfg = config(f"kill{int(share * 100)}")
        process = launch(cfg, "first")
        while lines(cfg["call_log"]) < int(total * share) and process.poll() is None:
            time.sleep(0.001)
        process.send_signal(signal.SIGKILL)
        process.wait()
        before = lines(cfg["call_log"])
        launch(cfg, "second").wait()
        same = json.loads(Path(str(cfg["out"])).read_text()) == json.loads(
            Path(str(reference["out"])).read_text())
        repeated = lines(cfg["call_log"]) - total
        rows.append(f"| {share:.0%} | {before} | {repeated} | {'yes' if same else 'NO'} |")
    return rows


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    print("Checkpoint database (N=2, comparison_rounds=2, zero-latency mock)\n")
    print("| n | calls | run s | checkpoints MB | journal MB (at its peak) | bytes per call |")
    print("|---|---|---|---|---|---|")
    for n in (1_000,) if args.quick else (1_000, 10_000):
        print(await checkpoint_size(n))
    print("\nCost of a cache hit against a real call\n")
    print("| what | per call |")
    print("|---|---|")
    for row in await cache_hit_cost():
        print(row)
    print("\nSIGKILL at 5 points (n=200, N=2, 1 ms mock, 10 calls in flight), then resume\n")
    print("| killed after | calls before kill | calls repeated | same ranking |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for row in kill_points(Path(tmp), [0.05, 0.25, 0.5, 0.75, 0.95]):
            print(row)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    asyncio.run(main())
