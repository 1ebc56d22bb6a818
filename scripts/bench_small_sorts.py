"""CPU a small sort costs, on the default SQLite store and in memory.

Sorts of 10 texts by the seeded mock (about 25 calls and 4 rounds each), one after another
in one interpreter after a warm-up sort: the per-run costs (opening the store, taking the
lease, the graph's steps and their checkpoints) rather than the calls. Each `--src
NAME=PATH` is a copy of the package's `src/` folder (for example the code before a change,
checked out in a `git worktree`); every repeat runs each copy once per store, interleaved,
each in a fresh interpreter. Reported: mean ± sd of the CPU milliseconds per sort, and each
copy's ratio to the first one.

    python scripts/bench_small_sorts.py --src before=../before/src --src after=src --repeat 6
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from _copies import copies, mean_sd, run_child

STORES = ("sqlite", "memory")


def child(store: str, sorts: int) -> dict[str, Any]:
    """`sorts` sorts in this interpreter (the package comes from PYTHONPATH); CPU per sort."""
    import asyncio
    import tempfile
    import time
    from pathlib import Path

    from llm_qualitative_sort import MockLLMProvider, QualitativeSorter

    items = [f"text {i}" for i in range(10)]

    async def run(folder: Path) -> dict[str, Any]:
        async def one(number: int) -> int:
            sorter = QualitativeSorter(
                MockLLMProvider(), criteria="the better text", seed=3,
                checkpointer=None if store == "memory" else folder / f"r{number}.sqlite3")
            return (await sorter.sort(items)).statistics.total_api_calls

        await one(0)
        cpu, calls = time.process_time(), 0
        for number in range(1, sorts + 1):
            calls += await one(number)
        return {"cpu_ms": (time.process_time() - cpu) / sorts * 1e3, "calls": calls / sorts}

    with tempfile.TemporaryDirectory() as folder:
        return asyncio.run(run(Path(folder)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", action="append", default=[], metavar="NAME=PATH")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sorts", type=int, default=40, help="sorts per interpreter")
    parser.add_argument("--child", choices=STORES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.sorts)))
        return
    named = copies(args.src)
    cpu: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.repeat):
        for store in STORES:
            for name, src in named.items():
                row = run_child(__file__, src, "--child", store, "--sorts", str(args.sorts))
                cpu.setdefault((name, store), []).append(row["cpu_ms"])
    print("| store | copy | CPU ms per sort (mean ± sd) | ratio to the first copy |")
    print("|---|---|---|---|")
    first = next(iter(named))
    for store in STORES:
        base, _ = mean_sd(cpu[first, store])
        for name in named:
            mean, spread = mean_sd(cpu[name, store])
            print(f"| {store} | {name} | {mean:.1f} ± {spread:.1f} | {mean / base:.2f} |")


if __name__ == "__main__":
    main()
