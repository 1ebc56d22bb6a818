"""Measure ranking accuracy against N with the seeded mock judge; print a Markdown table.

Items are "0" .. "n-1" (larger is better), the judge is `MockLLMProvider(seed=s)` with the
specification's noise (sd 3.33 on each side), and each seed s also seeds the sorter. Every
cell is the mean over the seeds, ± the sample standard deviation.

    PYTHONPATH=src python scripts/accuracy_table.py --seeds 10
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter, SortResult
from llm_qualitative_sort.metrics import (
    correct_pair_ratio,
    kendall_tau,
    segment_pair_ratio,
    top_k_accuracy,
)

COLUMNS = ["τ-b", "Top-10", "Top-50", "Top-100", "pairs", "top-100 pairs",
           "bottom-100 pairs", "matches"]


def measure(result: SortResult, truth: list[str]) -> list[float]:
    n = len(truth)
    return [
        kendall_tau(result.rankings, truth),
        top_k_accuracy(result.rankings, truth, 10),
        top_k_accuracy(result.rankings, truth, 50),
        top_k_accuracy(result.rankings, truth, 100),
        correct_pair_ratio(result.rankings, truth),
        segment_pair_ratio(result.rankings, truth, 0, 100),
        segment_pair_ratio(result.rankings, truth, n - 100, n),
        float(result.statistics.total_matches),
    ]


async def run(n_items: int, n_losses: int, seed: int) -> SortResult:
    sorter = QualitativeSorter(MockLLMProvider(seed=seed), criteria="larger number",
                               elimination_count=n_losses, seed=seed, checkpointer=None,
                               max_concurrent_requests=1000)
    return await sorter.sort([str(i) for i in range(n_items)])


def cell(values: list[float], column: str) -> str:
    mean = statistics.fmean(values)
    spread = statistics.stdev(values) if len(values) > 1 else 0.0
    if column == "matches":
        return f"{mean:.0f}"
    return f"{mean:.3f} ± {spread:.3f}"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="seeds 0 .. SEEDS-1")
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--max-n", type=int, default=10)
    args = parser.parse_args()
    truth = [str(i) for i in reversed(range(args.items))]
    started = time.perf_counter()
    rows: list[list[float]] = []
    print(f"n = {args.items} items, noise sd 3.33, seeds 0..{args.seeds - 1}; "
          "mean ± sample sd over the seeds\n")
    print("| N | " + " | ".join(COLUMNS) + " |")
    print("|---:|" + "---:|" * len(COLUMNS))
    for n_losses in range(1, args.max_n + 1):
        per_seed = [measure(await run(args.items, n_losses, s), truth) for s in range(args.seeds)]
        columns = list(zip(*per_seed, strict=True))
        rows.append([statistics.fmean(c) for c in columns])
        cells = [cell(list(c), name) for c, name in zip(columns, COLUMNS, strict=True)]
        print(f"| {n_losses} | " + " | ".join(cells) + " |", flush=True)
    top10_beats_top100 = [r[1] > r[3] for r in rows]
    print(f"\nTop-10 > Top-100 (means) at N = "
          f"{[n for n, ok in enumerate(top10_beats_top100, 1) if ok] or 'none'}; "
          f"elapsed {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    asyncio.run(main())
