"""Round-synchronous against pipelined play, beside the plain asyncio floor, in one run.

Plays elimination with the seeded mock behind a latency model, three ways, each in its own
subprocess (so peak memory is its own), interleaved over repetitions:

- `floor`: the plain round-by-round asyncio loop of `bench_engine.py` (no graph, no
  checkpoint, no journal);
- `rounds`: `QualitativeSorter` with the default schedule (SQLite checkpoint and journal on);
- `pipelined`: the same with `schedule="pipelined"`;
- `memory` (with `--memory`): `rounds` with `checkpointer=None`, nothing durable.

Each call's latency is drawn from its own texts and repetition, so every variant sees the
same latency for the same call whatever the order of completion. Reported: wall seconds,
the ratio to the floor, the ratio to the ideal `calls × mean latency / C`, peak RSS, and the
peak size on disk of the checkpoint and journal files (sampled every 20 ms).

    python scripts/bench_schedules.py             # every setting (several minutes)
    python scripts/bench_schedules.py --quick     # n=200, one repetition

With `--src NAME=PATH` (repeatable; a copy of the package's `src/` folder, such as an older
commit in a `git worktree`), the settings named by `--only` are measured for `floor` and
for `rounds` of each copy, interleaved (their order rotating), `--repeat` times each:
medians of the wall time and of the per-repeat ratios to the floor, with their ranges.

    python scripts/bench_schedules.py --only "N=2, C=1000" --repeat 7 \
        --src before=/tmp/before/src --src after=src
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _copies import THIS_SRC, copies, run_child
from _latency import delay, mean
from bench_engine import CRITERIA, _median_range, plain_loop
from llm_qualitative_sort import ComparisonResult, MockLLMProvider, QualitativeSorter

# name: (n, N, C, latency model, its parameter)
SETTINGS: dict[str, tuple[int, int, int, str, float]] = {
    "zero latency, n=1000, N=10, C=10": (1000, 10, 10, "fixed", 0.0),
    "20 ms, n=1000, N=10, C=100": (1000, 10, 100, "fixed", 0.02),
    "lognormal (median 20 ms, p99 ≈ 200 ms), n=1000, N=2, C=100": (1000, 2, 100, "lognormal",
                                                                    0.02),
    "20 ms, one call in 500 takes 2 s, n=1000, N=2, C=100": (1000, 2, 100, "slow", 0.02),
    "20 ms, n=10,000, N=2, C=1000": (10_000, 2, 1000, "fixed", 0.02),
    "20 ms, n=10,000, N=10, C=1000": (10_000, 10, 1000, "fixed", 0.02),
}


class LatencyMock(MockLLMProvider):
    """The seeded mock, each call delayed by a latency drawn from the call itself."""

    # Its calls only sleep and ask the mock, both ending at once when cancelled: the round
    # schedule awaits them in the call's task, as it does the mock's.
    cancels_promptly = True

    def __init__(self, model: str, value: float) -> None:
        super().__init__(seed=1)
        self.spread, self.median = model, value

    async def compare_call(self, item_a: str, item_b: str, criteria: str, *,
                           repetition: int = 0) -> ComparisonResult:
        """Wait the call's latency, then answer as the mock does."""
        seconds = delay(self.spread, self.median, item_a, item_b, repetition)
        if seconds:
            await asyncio.sleep(seconds)
        return await super().compare_call(item_a, item_b, criteria, repetition=repetition)


def _size(folder: Path) -> int:
    total = 0
    try:
        paths = list(folder.iterdir())
    except OSError:  # the run's folder is gone: the run is over
        return 0
    for path in paths:
        try:
            total += path.stat().st_size
        except OSError:  # a -wal or -shm file that went away meanwhile
            pass
    return total


async def _disk_peak(folder: Path, peak: list[int]) -> None:
    while True:
        peak[0] = max(peak[0], _size(folder))
        await asyncio.sleep(0.02)


async def run_variant(args: argparse.Namespace) -> dict[str, Any]:
    """One variant in this process."""
    items = [str(i) for i in range(args.n)]
    judge = LatencyMock(args.model, args.value)
    peak, after = [0], 0
    started, cpu = time.perf_counter(), time.process_time()
    if args.variant == "floor":
        _, calls = await plain_loop(items, judge, args.N, 2, args.concurrency, seed=7)
    elif args.variant == "memory":  # the default schedule with nothing durable
        sorter = QualitativeSorter(judge, criteria=CRITERIA, elimination_count=args.N, seed=7,
                                   max_concurrent_requests=args.concurrency, checkpointer=None)
        calls = (await sorter.sort(items)).statistics.total_api_calls
    else:
        with tempfile.TemporaryDirectory() as tmp:
            watcher = asyncio.create_task(_disk_peak(Path(tmp), peak))
            sorter = QualitativeSorter(
                judge, criteria=CRITERIA, elimination_count=args.N, seed=7,
                max_concurrent_requests=args.concurrency, schedule=args.variant,
                checkpointer=os.path.join(tmp, "runs.sqlite3"))
            result = await sorter.sort(items)
            watcher.cancel()
            after = _size(Path(tmp))
            peak[0] = max(peak[0], after)
            calls = result.statistics.total_api_calls
    elapsed = time.perf_counter() - started
    return {"seconds": elapsed, "calls": calls, "cpu_seconds": time.process_time() - cpu,
            "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "disk_peak_mb": peak[0] / 2**20, "disk_after_mb": after / 2**20}


def spawn(variant: str, setting: tuple[int, int, int, str, float],
          peer: str | None = None) -> dict[str, Any]:
    """Run one variant in a subprocess (the peer with `peer`'s Python); its JSON line."""
    n, n_losses, concurrency, model, value = setting
    command = [sys.executable, __file__, "--variant", variant, "--n", str(n), "--N",
               str(n_losses), "--concurrency", str(concurrency), "--model", model,
               "--value", str(value)]
    if variant == "peer":
        assert peer is not None
        command = [peer, str(Path(__file__).with_name("_peer_child.py")), str(n),
                   str(n_losses), str(concurrency), model, str(value)]
    out = subprocess.run(command, check=True, capture_output=True, text=True,
                         env={**os.environ, "PYTHONHASHSEED": "0"})
    row: dict[str, Any] = json.loads(out.stdout)
    return row


def measure(name: str, setting: tuple[int, int, int, str, float], repeat: int,
            peer: str | None, memory: bool = False) -> None:
    """Print one setting's rows: medians of `repeat` interleaved runs."""
    runs: dict[str, list[dict[str, Any]]] = {}
    variants = ("floor", "rounds", "pipelined", *(("memory",) if memory else ()),
                *(("peer",) if peer else ()))
    for _ in range(repeat):
        for variant in variants:
            runs.setdefault(variant, []).append(spawn(variant, setting, peer))
    median = {v: sorted(s, key=lambda r: r["seconds"])[len(s) // 2] for v, s in runs.items()}
    floor = median["floor"]["seconds"]
    _, _, concurrency, model, value = setting
    for variant, row in median.items():
        ideal = row["calls"] * mean(model, value) / concurrency
        to_ideal = f"{row['seconds'] / ideal:.2f}" if ideal else "–"
        disk = (f"{row['disk_peak_mb']:.1f} / {row['disk_after_mb']:.1f}"
                if variant in ("rounds", "pipelined") else "–")
        per_call = row["seconds"] / row["calls"] * 1e6
        print(f"| {name} | {variant} | {row['calls']:,} | {row['seconds']:.2f} | {per_call:.0f} | "
              f"{row['seconds'] / floor:.2f} | {to_ideal} | {row['rss_mb']:.0f} | {disk} |",
              flush=True)


def side_by_side(name: str, setting: tuple[int, int, int, str, float], repeat: int,
                 specs: list[str]) -> None:
    """`floor` and each copy's `rounds`, interleaved; medians and ranges."""
    named = copies(specs)
    n, n_losses, concurrency, model, value = setting
    arguments = ["--n", str(n), "--N", str(n_losses), "--concurrency", str(concurrency),
                 "--model", model, "--value", str(value)]
    runs: dict[str, list[dict[str, Any]]] = {}
    for number in range(repeat):
        order = list(named)[number % len(named):] + list(named)[:number % len(named)]
        floor = run_child(__file__, str(THIS_SRC), "--variant", "floor", *arguments)
        runs.setdefault("floor", []).append(floor)
        for copy in order:
            row = run_child(__file__, named[copy], "--variant", "rounds", *arguments)
            assert row["calls"] == floor["calls"], f"{copy} made {row['calls']} calls"
            row["to_floor"] = row["seconds"] / floor["seconds"]
            runs.setdefault(copy, []).append(row)
    for copy, rows in runs.items():
        ratio = "1" if copy == "floor" else _median_range([r["to_floor"] for r in rows], "{:.2f}")
        cpu = sorted(r["cpu_seconds"] for r in rows)[len(rows) // 2]
        print(f"| {name} | {copy} | {rows[0]['calls']:,} | "
              f"{_median_range([r['seconds'] for r in rows], '{:.2f}')} | {ratio} | "
              f"{cpu:.2f} |", flush=True)


def main() -> None:
    """Measure every setting, or run one variant (`--variant`, used by `spawn`)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant")
    parser.add_argument("--n", type=int)
    parser.add_argument("--N", type=int)
    parser.add_argument("--concurrency", type=int)
    parser.add_argument("--model", default="fixed")
    parser.add_argument("--value", type=float, default=0.0)
    parser.add_argument("--repeat", type=int, default=3, help="runs per variant; medians")
    parser.add_argument("--quick", action="store_true", help="n=200, one repetition")
    parser.add_argument("--only", help="run the settings whose name contains this")
    parser.add_argument("--memory", action="store_true", help="add `memory`: the default "
                        "schedule in memory only (checkpointer=None: no checkpoint file, no "
                        "journal writes)")
    parser.add_argument("--peer-python", help="the Python of a virtualenv holding the peer, "
                        "`pip install llm-qualitative-sort==1.1.0` (PyPI's other package of "
                        "this name): adds it as a variant")
    parser.add_argument("--src", action="append", default=[], metavar="NAME=PATH",
                        help="a copy of the package's src/ folder: its `rounds` side by side")
    args = parser.parse_args()
    if args.variant:
        print(json.dumps(asyncio.run(run_variant(args))))
        return
    if args.src:
        os.environ["PYTHONHASHSEED"] = "0"
        print("| setting | variant | calls | wall s, median (range) | × floor | CPU s |")
        print("|---|---|---|---|---|---|")
        for name, setting in SETTINGS.items():
            if not args.only or args.only in name:
                side_by_side(name, setting, args.repeat, args.src)
        return
    print("| setting | variant | calls | wall s | µs per call | × floor | × ideal | peak RSS MB "
          "| disk MB at peak / after |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, setting in SETTINGS.items():
        if args.only and args.only not in name:
            continue
        if args.quick:
            setting = (200, *setting[1:])
        big = setting[0] >= 10_000
        measure(name, setting, 1 if args.quick or big else args.repeat, args.peer_python,
                args.memory)


if __name__ == "__main__":
    main()
