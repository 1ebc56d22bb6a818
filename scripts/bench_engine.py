"""Orchestration cost of the LangGraph engine against a plain asyncio loop, in the same run.

Plays the same tournament (same pure pairing and reassignment functions, same seeded mock)
twice per setting: once through `QualitativeSorter` (LangGraph, SQLite checkpoint and run
journal on, as by default) and once through a bare round-by-round asyncio loop (the floor).
Each variant runs in its own subprocess so that peak memory (max RSS) is its own.

    python scripts/bench_engine.py            # n=1000, N=10, comparison_rounds=2
    python scripts/bench_engine.py --quick    # n=200, for a smoke run

With `--src NAME=PATH` (repeatable; a copy of the package's `src/` folder, such as an older
commit checked out in a `git worktree`), one setting is measured side by side instead: each
repeat runs the floor, then the sorter of every copy (their order rotating from repeat to
repeat), each in a fresh interpreter. Reported per variant: the median wall time and its
spread, the median of the per-repeat ratios to that repeat's floor, the CPU time, the peak
RSS and the bytes per call it lies above the floor's peak (the floor keeps nothing).

    python scripts/bench_engine.py --n 10000 --N 2 --latency 0.02 --concurrency 1000 \
        --src before=/tmp/before/src --src after=src --repeat 7
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from _copies import THIS_SRC, copies, run_child
from llm_qualitative_sort import MockLLMProvider, QualitativeSorter
from llm_qualitative_sort.tournament import (
    active_players,
    apply_round,
    competition_ranks,
    match_winner,
    pair_round,
    presentation_orders,
    round_rng,
)

CRITERIA = "the larger number"


async def plain_loop(items: list[str], judge: MockLLMProvider, n_losses: int, rounds: int,
                     concurrency: int, seed: int) -> tuple[list[Any], int]:
    """The same tournament with nothing but asyncio: no graph, no checkpoint, no journal."""
    texts = sorted(items)
    losses, wins = [0] * len(texts), [0] * len(texts)
    semaphore = asyncio.Semaphore(concurrency)
    calls = 0

    async def call(first: int, second: int, repetition: int) -> str | None:
        nonlocal calls
        async with semaphore:
            calls += 1
            result = await judge.compare_call(texts[first], texts[second], CRITERIA,
                                              repetition=repetition)
            return result.winner

    async def play(a: int, b: int) -> str | None:
        coros = [call(a, b, rep) if order == "AB" else call(b, a, rep)
                 for order, rep in presentation_orders(rounds)]
        verdicts = await asyncio.gather(*coros)
        flipped = [v if order == "AB" else {"A": "B", "B": "A"}.get(v or "")
                   for v, (order, _) in zip(verdicts, presentation_orders(rounds), strict=True)]
        return match_winner(flipped)  # type: ignore[arg-type]

    round_number = 0
    while len(active_players(losses, n_losses)) >= 2:
        round_number += 1
        pairing = pair_round(losses, n_losses, round_rng(seed, round_number))
        winners = await asyncio.gather(*(play(a, b) for a, b in pairing.pairs))
        losses, wins, _ = apply_round(losses, wins, pairing.pairs, winners, n_losses)  # type: ignore[arg-type]
    ranks = [[r, [texts[i] for i in group]] for r, group in competition_ranks(wins)]
    return ranks, calls


async def run_variant(args: argparse.Namespace) -> dict[str, Any]:
    items = [str(i) for i in range(args.n)]
    judge = MockLLMProvider(seed=1, latency=args.latency)
    started, cpu_started = time.perf_counter(), time.process_time()
    if args.variant == "plain":
        rankings, calls = await plain_loop(items, judge, args.N, 2, args.concurrency, seed=7)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            sorter = QualitativeSorter(
                judge, criteria=CRITERIA, elimination_count=args.N,
                max_concurrent_requests=args.concurrency, seed=7,
                checkpointer=os.path.join(tmp, "runs.sqlite3"),
                on_progress=(lambda event: None) if args.variant == "graph+progress" else None,
            )
            result = await sorter.sort(items)
            rankings = [[r, g] for r, g in result.rankings]
            calls = result.statistics.total_api_calls
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started  # all threads (the checkpointer's too)
    return {
        "variant": args.variant,
        "seconds": elapsed,
        "cpu_seconds": cpu,
        "calls": calls,
        "us_per_call": elapsed / calls * 1e6,
        "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rankings_digest": hash(json.dumps(rankings)),
    }


def spawn(variant: str, n: int, n_losses: int, latency: float, concurrency: int) -> dict[str, Any]:
    command = [sys.executable, __file__, "--variant", variant, "--n", str(n), "--N",
               str(n_losses), "--latency", str(latency), "--concurrency", str(concurrency)]
    out = subprocess.run(command, check=True, capture_output=True, text=True,
                         env={**os.environ, "PYTHONHASHSEED": "0"})
    return json.loads(out.stdout)


def side_by_side(args: argparse.Namespace) -> None:
    """The floor and the sorter of each `--src` copy, interleaved; medians and spreads."""
    named = copies(args.src)
    os.environ["PYTHONHASHSEED"] = "0"  # the children's rankings digests compare
    setting = ["--n", str(args.n), "--N", str(args.N), "--latency", str(args.latency),
               "--concurrency", str(args.concurrency)]
    runs: dict[str, list[dict[str, Any]]] = {}
    for repeat in range(args.repeat):
        order = list(named)[repeat % len(named):] + list(named)[:repeat % len(named)]
        floor = run_child(__file__, str(THIS_SRC), "--variant", "plain", *setting)
        runs.setdefault("floor", []).append(floor)
        for name in order:
            row = run_child(__file__, named[name], "--variant", "graph", *setting)
            assert row["rankings_digest"] == floor["rankings_digest"], f"{name} ranked otherwise"
            assert row["calls"] == floor["calls"], f"{name} made {row['calls']} calls"
            row["to_floor"] = row["seconds"] / floor["seconds"]
            row["bytes_per_call"] = (row["max_rss_mb"] - floor["max_rss_mb"]) * 2**20 / row["calls"]
            runs.setdefault(name, []).append(row)
    print(f"n={args.n}, N={args.N}, {args.latency * 1000:g} ms per call, C={args.concurrency}, "
          f"{runs['floor'][0]['calls']:,} calls; {args.repeat} interleaved repeats, medians "
          "(min–max)\n")
    print("| variant | wall s | µs per call | × floor | CPU s | peak RSS MB | bytes per call "
          "above the floor's peak |")
    print("|---|---|---|---|---|---|---|")
    for name, rows in runs.items():
        wall = _median_range([r["seconds"] for r in rows], "{:.2f}")
        per_call = statistics.median(r["us_per_call"] for r in rows)
        cpu = statistics.median(r["cpu_seconds"] for r in rows)
        rss = statistics.median(r["max_rss_mb"] for r in rows)
        ratio = _median_range([r["to_floor"] for r in rows], "{:.2f}") if name != "floor" else "1"
        above = (_median_range([r["bytes_per_call"] for r in rows], "{:.0f}")
                 if name != "floor" else "–")
        print(f"| {name} | {wall} | {per_call:.0f} | {ratio} | {cpu:.2f} | {rss:.0f} | {above} |")


def _median_range(values: list[float], form: str) -> str:
    low, high = min(values), max(values)
    return f"{form.format(statistics.median(values))} ({form.format(low)}–{form.format(high)})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant")
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--N", type=int, default=10)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=3, help="runs per variant; medians shown")
    parser.add_argument("--src", action="append", default=[], metavar="NAME=PATH",
                        help="a copy of the package's src/ folder to run side by side")
    args = parser.parse_args()
    if args.variant:
        print(json.dumps(asyncio.run(run_variant(args))))
        return
    if args.src:
        side_by_side(args)
        return
    n = 200 if args.quick else args.n
    print(f"n={n}, N={args.N}, comparison_rounds=2, SQLite checkpoint + journal on; "
          f"median of {args.repeat} runs\n")
    print("| setting | variant | calls | wall s | µs/call | peak RSS MB |")
    print("|---|---|---|---|---|---|")
    rows = {}
    for setting, latency, concurrency in (("zero latency", 0.0, 10), ("20 ms, 100 in flight",
                                                                       0.02, 100)):
        runs: dict[str, list[dict[str, Any]]] = {}
        for _ in range(args.repeat):  # interleaved, so drift hits every variant alike
            for variant in ("plain", "graph", "graph+progress"):
                runs.setdefault(variant, []).append(spawn(variant, n, args.N, latency,
                                                          concurrency))
        for variant, samples in runs.items():
            row = sorted(samples, key=lambda r: r["seconds"])[len(samples) // 2]
            rows[(setting, variant)] = row
            print(f"| {setting} | {variant} | {row['calls']} | {row['seconds']:.2f} | "
                  f"{row['us_per_call']:.0f} | {row['max_rss_mb']:.0f} |")
        digests = {rows[(setting, v)]["rankings_digest"] for v in ("plain", "graph")}
        assert len(digests) == 1, "graph and plain loop ranked differently"
    zero_plain, zero_graph = rows[("zero latency", "plain")], rows[("zero latency", "graph")]
    overhead = zero_graph["us_per_call"] - zero_plain["us_per_call"]
    print(f"\nzero latency: graph {zero_graph['us_per_call']:.0f} µs/call vs plain "
          f"{zero_plain['us_per_call']:.0f} µs/call (orchestration + durability "
          f"{overhead:.0f} µs/call)")
    slow_plain, slow_graph = rows[("20 ms, 100 in flight", "plain")], rows[
        ("20 ms, 100 in flight", "graph")]
    ideal = slow_graph["calls"] * 0.02 / 100
    print(f"20 ms latency: graph {slow_graph['seconds']:.2f} s = "
          f"{slow_graph['seconds'] / slow_plain['seconds']:.3f} × plain "
          f"({slow_plain['seconds']:.2f} s); ideal {ideal:.2f} s → graph "
          f"{slow_graph['seconds'] / ideal:.2f} × ideal, plain "
          f"{slow_plain['seconds'] / ideal:.2f} × ideal")


if __name__ == "__main__":
    main()
