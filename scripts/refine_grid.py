"""How much of the budget top-K refinement should take: the grid behind `FULL_BUDGET`.

Plays Swiss (one call per match) on "0".."999" at the default budget, 2·(2n − 1) = 3998
calls (the N=2 elimination budget), without refinement and with `top_k=10` for every
refinement share × number of waves in the grid, on the default mock and on the
realistic mock, seeds 0..S−1 (sorter and judge seeded alike). The plan is swapped in for
the study only, by replacing `FULL_BUDGET` in the Swiss strategy's module.

Prints a markdown table: τ-b and Top-10, mean ± sd over the seeds, and rounds.

Usage:
    python scripts/refine_grid.py [--seeds 20] [--shares 0.03,0.05,0.075,0.1,0.2]
        [--waves 2,3,4]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from collections.abc import Sequence
from typing import Any

from llm_qualitative_sort import LLMProvider, MockLLMProvider, QualitativeSorter, Swiss
from llm_qualitative_sort.metrics import kendall_tau, top_k_accuracy
from llm_qualitative_sort.tournament.swiss import strategy
from llm_qualitative_sort.tournament.swiss.refine import RefinePlan

ITEMS = [str(i) for i in range(1000)]
TRUE_ORDER = sorted(ITEMS, key=int, reverse=True)


def judge(name: str, seed: int) -> LLMProvider:
    if name == "spec":
        return MockLLMProvider(seed=seed)
    return MockLLMProvider.realistic(seed=seed)


async def play(name: str, seed: int, **settings: Any) -> tuple[float, float, int]:
    sorter = QualitativeSorter(judge(name, seed), criteria="larger number", seed=seed,
                               strategy=Swiss(comparison_rounds=1, **settings),
                               checkpointer=None, max_concurrent_requests=1000)
    result = await sorter.sort(ITEMS)
    return (kendall_tau(result.rankings, TRUE_ORDER),
            top_k_accuracy(result.rankings, TRUE_ORDER, 10), result.statistics.rounds)


def row(label: str, runs: Sequence[tuple[float, float, int]]) -> str:
    def mean_sd(values: Sequence[float]) -> str:
        return f"{statistics.fmean(values):.3f} ± {statistics.stdev(values):.3f}"
    taus, tops, rounds = zip(*runs, strict=True)
    return f"{label} | {mean_sd(taus)} | {mean_sd(tops)} | {max(rounds)} |"


async def grid(seeds: int, shares: Sequence[float], waves: Sequence[int]) -> list[str]:
    lines = ["| judge | share | waves | τ-b | Top-10 | rounds (max) |",
             "|---|---|---|---|---|---|"]
    for name in ("spec", "realistic"):
        runs = [await play(name, s) for s in range(seeds)]
        lines.append(row(f"| {name} | none | –", runs))
        print(lines[-1], flush=True)
        for share in shares:
            for count in waves:
                strategy.FULL_BUDGET = RefinePlan(share, count)
                runs = [await play(name, s, top_k=10) for s in range(seeds)]
                lines.append(row(f"| {name} | {share:g} | {count}", runs))
                print(lines[-1], flush=True)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--shares", default="0.03,0.05,0.075,0.1,0.2")
    parser.add_argument("--waves", default="2,3,4")
    args = parser.parse_args()
    shares = [float(s) for s in args.shares.split(",")]
    waves = [int(w) for w in args.waves.split(",")]
    lines = asyncio.run(grid(args.seeds, shares, waves))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
