"""Time one Swiss round's choice of pairs: neighbours against A-optimal, at n = 1,000 and 5,000.

The state is mid-run: strengths spaced like the default mock (0.361 logit apart) plus
noise of sd 1, and 2n earlier calls, each between items at most 20 places apart in the
true order (what Swiss rounds produce). Per n: today's neighbour pairing; A-optimal as the
product runs it (`AOptimal.round_pairs`, the posterior covariance and gains of the 16
strength neighbours on either side); its parts (the covariance, the gains); and, up to
`--full-up-to` items, A-optimal with every pair a candidate. Median wall time of
`--repeat` runs; the machine is shared, so compare ratios within a run.

Usage:
    python scripts/bench_pairing_choice.py [--sizes 1000,5000] [--repeat 3] [--full-up-to 1000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np

from llm_qualitative_sort.rating.design import posterior_covariance
from llm_qualitative_sort.tournament.swiss import choice
from llm_qualitative_sort.tournament.swiss.choice import (
    AOptimal,
    RoundView,
    candidate_gains,
    nearest_candidates,
)
from llm_qualitative_sort.tournament.swiss.evidence import pair_key
from llm_qualitative_sort.tournament.swiss.pairing import neighbour_pairs


def state(n: int, seed: int = 0) -> tuple[RoundView, list[int]]:
    """A mid-run view of n items and its strength order (strongest first)."""
    rng = np.random.default_rng(seed)
    strengths = np.arange(n) * 0.361 + rng.normal(0, 1, n)
    first = rng.integers(0, n, 2 * n)
    second = np.clip(first + rng.choice([-1, 1], 2 * n) * rng.integers(1, 21, 2 * n), 0, n - 1)
    keep = first != second
    first, second = first[keep].astype(np.intp), second[keep].astype(np.intp)
    meetings = Counter(pair_key(int(a), int(b)) for a, b in zip(first, second, strict=True))
    view = RoundView([round(float(s), 6) for s in strengths], first, second, meetings,
                     random.Random(seed))
    order = sorted(range(n), key=lambda i: -strengths[i])
    return view, order


def timed(work: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,5000")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--full-up-to", type=int, default=1000)
    args = parser.parse_args()
    for n in (int(size) for size in args.sizes.split(",")):
        for name, seconds in bench(n, args.repeat, n <= args.full_up_to):
            print(f"n={n:>5}  {name:<48} {seconds:8.3f} s", flush=True)


def bench(n: int, repeat: int, full: bool) -> list[tuple[str, float]]:
    """(what, median seconds) for one size."""
    view, order = state(n)
    strengths = np.asarray(view.strengths)
    first, second = nearest_candidates(order, choice.NEAREST)
    covariance = posterior_covariance(n, view.first, view.second, strengths)
    rows: dict[str, Callable[[], Any]] = {
        "neighbours (today)": lambda: neighbour_pairs(order, view.meetings),
        f"a-optimal, {choice.NEAREST} nearest (the product)":
            lambda: AOptimal().round_pairs(order, view),
        "  of which: posterior covariance":
            lambda: posterior_covariance(n, view.first, view.second, strengths),
        f"  of which: gains of {len(first):,} candidates":
            lambda: candidate_gains(covariance, strengths, first, second),
    }
    if full:
        rows["a-optimal, every pair a candidate"] = lambda: _full(order, view)
    return [(name, timed(work, repeat)) for name, work in rows.items()]


def _full(order: list[int], view: RoundView) -> Any:
    nearest, choice.NEAREST = choice.NEAREST, len(order)
    try:
        return AOptimal().round_pairs(order, view)
    finally:
        choice.NEAREST = nearest


if __name__ == "__main__":
    main()
