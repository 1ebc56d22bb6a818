"""Swiss with ranking calls on the mock: group size 4 against 2 at equal calls, and its design.

Every run is the real sorter (`QualitativeSorter`, `Swiss(group_size=..., budget=...)`)
on the items "0".."n−1" judged by `MockLLMProvider(seed)`: a pairwise call and each pair a
ranking call implies are equally noisy (sd 3.33 per text), unless `list_penalty` makes a
list of k texts noisier (sd × (1 + penalty·(k − 2))). τ-b is Kendall's between the
ranking and the true order, mean ± sd over the seeds, with the paired difference to
group size 2 at the same calls (mean and its standard error).

Variants of the design, each the product with one piece swapped (patched here only):
- "2/k": each implied pair weighs 2/k in the fit (what the product does);
- "weight 1": each implied pair counts as a whole comparison;
- "A-optimal": groups chosen by `rating.design.choose_groups` on the Laplace posterior
  instead of neighbours in the standing (dense: only at n <= 2,000).

Writes docs/benchmarks/group_size_table.txt and docs/benchmarks/group_size.json.

Usage:
    python scripts/group_size_study.py [--n 1000] [--seeds 5] [--budgets 2 4]
        [--variants all] [--out docs/benchmarks]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import kendalltau

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter, Swiss
from llm_qualitative_sort.rating.design import choose_groups, pair_gains, posterior_covariance
from llm_qualitative_sort.tournament import RoundPlan
from llm_qualitative_sort.tournament.swiss import groups, strategy
from llm_qualitative_sort.tournament.swiss.evidence import gather_evidence

# name: (group size, list penalty, variant)
DESIGNS: dict[str, tuple[int, float, str]] = {
    "pairs (k=2)": (2, 0.0, "2/k"),
    "k=4, 2/k": (4, 0.0, "2/k"),
    "k=4, weight 1": (4, 0.0, "weight 1"),
    "k=4, A-optimal": (4, 0.0, "A-optimal"),
    "k=4, 2/k, list penalty 0.25": (4, 0.25, "2/k"),
    "k=4, weight 1, list penalty 0.25": (4, 0.25, "weight 1"),
    "k=4, 2/k, list penalty 0.5": (4, 0.5, "2/k"),
}


def _optimal_round(self: Any, standing: dict[str, Any], history: Sequence[Any],
                   rng: random.Random) -> RoundPlan:
    """Swiss rounds with groups chosen by the posterior (A-optimal), not by neighbours."""
    found = groups.gather_groups(history)
    evidence = gather_evidence(history, self.n_items)
    first = np.concatenate([evidence.first, np.asarray(found.first, dtype=np.intp)])
    second = np.concatenate([evidence.second, np.asarray(found.second, dtype=np.intp)])
    theta = np.asarray(standing["strengths"])
    gains = pair_gains(posterior_covariance(self.n_items, first, second, theta), theta)
    chosen = choose_groups(gains, range(self.n_items), self.settings.group_size,
                           np.random.default_rng(rng.getrandbits(32)))
    chosen = chosen[: self._affordable(self.swiss_budget - standing["used"])]
    return RoundPlan([], None, groups.planned(groups.shown(chosen, rng), found.seen))


@contextmanager
def variant(name: str) -> Iterator[None]:
    """The product with `name`'s piece swapped in, for the runs inside the block."""
    weight: Callable[[int], float] = groups.pair_weight
    plan = strategy.SwissStrategy._group_round
    if name == "weight 1":
        groups.pair_weight = lambda size: 1.0
    elif name == "A-optimal":
        strategy.SwissStrategy._group_round = _optimal_round  # type: ignore[method-assign]
    try:
        yield
    finally:
        groups.pair_weight = weight
        strategy.SwissStrategy._group_round = plan  # type: ignore[method-assign]


async def tau(n: int, size: int, penalty: float, budget: int, seed: int) -> float:
    """τ-b of one run against the true order."""
    items = [str(i) for i in range(n)]
    judge = MockLLMProvider(seed=seed, list_penalty=penalty)
    sorter = QualitativeSorter(judge, criteria="larger", seed=seed, checkpointer=None,
                               strategy=Swiss(group_size=size, budget=budget),
                               max_concurrent_requests=64)
    result = await sorter.sort(items)
    rank = {item: r for r, group in result.rankings for item in group}
    return float(kendalltau([-rank[i] for i in items], [int(i) for i in items]).statistic)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--budgets", type=float, nargs="+", default=[2.0, 4.0],
                        help="budgets as multiples of n")
    parser.add_argument("--designs", nargs="+", default=list(DESIGNS))
    parser.add_argument("--out", default="docs/benchmarks")
    args = parser.parse_args()
    started = time.perf_counter()
    found: dict[str, dict[str, list[float]]] = {}
    for name in args.designs:
        size, penalty, swapped = DESIGNS[name]
        found[name] = {}
        with variant(swapped):
            for multiple in args.budgets:
                budget = int(multiple * args.n)
                found[name][f"{multiple:g}n"] = [
                    asyncio.run(tau(args.n, size, penalty, budget, seed))
                    for seed in range(args.seeds)]
        print(name, {b: round(float(np.mean(v)), 4) for b, v in found[name].items()},
              flush=True)
    elapsed = time.perf_counter() - started
    budgets = [f"{m:g}n" for m in args.budgets]
    lines = [f"| design (n = {args.n:,}, {args.seeds} seeds) | "
             + " | ".join(f"τ-b at {b} calls | − pairs (SE)" for b in budgets) + " |",
             "|---" * (1 + 2 * len(budgets)) + "|"]
    base = found.get("pairs (k=2)")
    for name, by in found.items():
        cells = []
        for b in budgets:
            values = np.asarray(by[b])
            cells.append(f"{values.mean():.4f} ± {values.std():.4f}")
            if base is None or name == "pairs (k=2)":
                cells.append("—")
            else:
                diff = values - np.asarray(base[b])
                cells.append(f"{diff.mean():+.4f} ({diff.std(ddof=1) / np.sqrt(diff.size):.4f})")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    table = "\n".join(lines)
    out = Path(args.out)
    suffix = "" if args.n == 1000 else f"_{args.n}"
    (out / f"group_size_table{suffix}.txt").write_text(table + "\n", encoding="utf-8")
    (out / f"group_size{suffix}.json").write_text(json.dumps(
        {"n": args.n, "seeds": args.seeds, "tau_b": found}) + "\n", encoding="utf-8")
    print(table)
    print(f"{args.seeds} seeds in {elapsed:.0f} s")


if __name__ == "__main__":
    main()
