"""Swiss against elimination at equal calls: the strategy study's claims, checked at 400 items.

These claims used to run inside the test suite; `.ci/run` checks them here on every change and
fails (exit status 1) if any does not hold. `tests/unit/test_claims_scripts.py` runs this
script's machinery at a tiny size.

What runs, and why:
- 400 items "0".."399", seeds 0–4, on the default mock and on the realistic mock
  (`MockLLMProvider.realistic`). Elimination with N=2 plays first; its calls are the budget
  of the Swiss runs on the same judge and seed (the equal-calls design of
  `scripts/strategy_study.py`, which measures 1000 items over 10 seeds at N = 2, 5, 10).
- Margins come from 12 seeds at this size (seeds 0–11): Swiss (one call per match) minus
  elimination by wins in τ-b was 0.196 ± 0.016 (min 0.174) on the default mock and
  0.185 ± 0.022 (min 0.138) on the realistic one; top-K refinement minus plain Swiss in
  Top-10 was 0.14 ± 0.10 and 0.18 ± 0.13 (never negative), for a τ-b cost of 0.015 and
  0.010. Per-seed Top-10 moves in steps of 0.1, so it is claimed on means over judges and
  seeds only, with a margin of about three standard errors.
- The early stop is not claimed here: at 400 items it saved 5 % ± 5 % of the calls on the
  default mock and under 1 % on the realistic one — too little to claim per run.

Usage:
    python scripts/strategy_claims.py [--items 400]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
from collections.abc import Callable, Sequence
from typing import Any

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter, Swiss
from llm_qualitative_sort.metrics import kendall_tau, top_k_accuracy

SEEDS = range(5)
JUDGES = ("spec", "realistic")
PLAYS = ("elimination", "swiss", "swiss top-10")

Run = dict[str, float]
Runs = dict[tuple[str, str, int], Run]


def _judge(name: str, seed: int) -> MockLLMProvider:
    return MockLLMProvider(seed=seed) if name == "spec" else MockLLMProvider.realistic(seed=seed)


async def run(n_items: int, judge: str, seed: int, **settings: Any) -> Run:
    """One seeded run's metrics against the true order, and its calls."""
    truth = [str(i) for i in reversed(range(n_items))]
    sorter = QualitativeSorter(_judge(judge, seed), criteria="larger number", seed=seed,
                               checkpointer=None, max_concurrent_requests=1000, **settings)
    result = await sorter.sort([str(i) for i in range(n_items)])
    return {"tau": kendall_tau(result.rankings, truth),
            "top10": top_k_accuracy(result.rankings, truth, 10),
            "calls": result.statistics.total_api_calls}


async def run_all(n_items: int, seeds: Sequence[int] = SEEDS) -> Runs:
    runs: Runs = {}
    for judge in JUDGES:
        for seed in seeds:
            elimination = await run(n_items, judge, seed)
            swiss = {"comparison_rounds": 1, "budget": int(elimination["calls"])}
            runs[judge, "elimination", seed] = elimination
            runs[judge, "swiss", seed] = await run(n_items, judge, seed,
                                                   strategy=Swiss(**swiss))
            runs[judge, "swiss top-10", seed] = await run(n_items, judge, seed,
                                                          strategy=Swiss(top_k=10, **swiss))
    return runs


def _seeds(runs: Runs) -> list[int]:
    return sorted({seed for _, _, seed in runs})


def gains(runs: Runs, judge: str, better: str, base: str, metric: str) -> list[float]:
    return [runs[judge, better, s][metric] - runs[judge, base, s][metric] for s in _seeds(runs)]


def swiss_spends_exactly_the_calls_elimination_made(runs: Runs) -> None:
    for judge in JUDGES:
        for seed in _seeds(runs):
            budget = runs[judge, "elimination", seed]["calls"]
            for play in PLAYS[1:]:
                assert runs[judge, play, seed]["calls"] == budget, (judge, play, seed)


def swiss_ranks_better_than_elimination_by_wins_at_equal_calls(runs: Runs) -> None:
    for judge, mean_gain in (("spec", 0.15), ("realistic", 0.13)):
        tau_gains = gains(runs, judge, "swiss", "elimination", "tau")
        assert min(tau_gains) > 0.1, (judge, tau_gains)
        assert statistics.fmean(tau_gains) > mean_gain, (judge, tau_gains)


def top_k_refinement_raises_top_10_over_plain_swiss(runs: Runs) -> None:
    top = [g for judge in JUDGES for g in gains(runs, judge, "swiss top-10", "swiss", "top10")]
    assert statistics.fmean(top) > 0.05, top
    assert min(top) >= -0.1, top  # one place in ten at worst
    for judge in JUDGES:
        tau_cost = -statistics.fmean(gains(runs, judge, "swiss top-10", "swiss", "tau"))
        assert tau_cost < 0.03, (judge, tau_cost)


CLAIMS: tuple[Callable[[Runs], None], ...] = (
    swiss_spends_exactly_the_calls_elimination_made,
    swiss_ranks_better_than_elimination_by_wins_at_equal_calls,
    top_k_refinement_raises_top_10_over_plain_swiss,
)


def check(runs: Runs) -> list[str]:
    """Each claim's name with "holds" or why it fails, one line each."""
    lines = []
    for claim in CLAIMS:
        try:
            claim(runs)
            lines.append(f"holds  {claim.__name__}")
        except AssertionError as failure:
            lines.append(f"FAILS  {claim.__name__}: {failure}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=400, help="items to sort (default 400)")
    args = parser.parse_args(argv)
    lines = check(asyncio.run(run_all(args.items)))
    print("\n".join(lines))
    return 1 if any(line.startswith("FAILS") for line in lines) else 0


if __name__ == "__main__":
    sys.exit(main())
