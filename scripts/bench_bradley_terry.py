"""Time the Bradley–Terry fit against the previous pure-Python one, in the same run.

Designs (each judge is exact Bradley–Terry with a first-position advantage h = 0.4, i.e. the
first-shown wins 60 % of calls between equals):
- "tournament n=1000": the calls of a real 10-elimination run (QualitativeSorter, AB/BA in
  every match, ~19,500 calls), items spaced like the default mock (0.361 logit
  apart, a 360-logit range);
- "random n=1000": each item meets ~40 random others, one call per order (20,000 calls),
  strengths spread evenly over 8 logits;
- "tournament n=10000": a 2-elimination run (~40,000 calls), spaced like the mock.

Per design: the old fit (Newman's iteration in pure Python, the code this replaced, kept
below as the baseline), a cold point fit, a warm-started point fit (fit the calls but the
last 1,000, then refit all from it, as a Swiss run does after each round; only the refit is
timed), the fit with standard errors, and `top_k_probability(10)` (2,000 draws); then, on
the n=1000 designs, the alternatives the method was chosen against. Median
wall time of several repetitions; the machine is shared, so compare ratios within a run.

Usage:
    python scripts/bench_bradley_terry.py [--repeat 7] [--skip-large]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
from collections import defaultdict
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cholesky
from scipy.optimize import minimize
from scipy.sparse.linalg import splu

from _bt_designs import (
    MOCK_LOGITS_PER_UNIT,
    Calls,
    GumbelJudge,
    random_design,
    spaced_truth,
    tournament_calls,
)
from llm_qualitative_sort.bradley_terry import fit_bradley_terry
from llm_qualitative_sort.rating.newton import Calls as Calls_
from llm_qualitative_sort.rating.newton import evaluate, gradient, maximise

H = 0.4


def newman_fit(n: int, first: np.ndarray, second: np.ndarray, won: np.ndarray) -> list[float]:
    """The previous fit (commit 5552618): Newman's iteration, Gauss–Seidel, pure Python."""
    wins: dict[tuple[int, int], float] = defaultdict(float)
    for a, b, x in zip(first.tolist(), second.tolist(), won.tolist(), strict=True):
        wins[a, b] += x
        wins[b, a] += 1.0 - x
    opponents: list[tuple[list[int], list[float], list[float]]] = [([], [], []) for _ in range(n)]
    for (i, j), w_ij in sorted(wins.items()):
        opponents[i][0].append(j)
        opponents[i][1].append(w_ij)
        opponents[i][2].append(wins[j, i])
    strength, half = [1.0] * n, 0.5
    for _ in range(2_000):
        moved = 0.0
        for i, (js, won_i, lost_i) in enumerate(opponents):
            p_i = strength[i]
            numerator = denominator = half / (p_i + 1.0)
            for j, w_ij, w_ji in zip(js, won_i, lost_i, strict=True):
                numerator += w_ij * strength[j] / (p_i + strength[j])
                denominator += w_ji / (p_i + strength[j])
            updated = numerator / denominator
            moved = max(moved, abs(math.log(updated / p_i)))
            strength[i] = updated
        if moved < 1e-6:
            break
    logs = [math.log(p) for p in strength]
    return [x - sum(logs) / n for x in logs]


def median_ms(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def alternatives(n: int, calls: Calls, repeat: int) -> dict[str, str]:
    """What the chosen method was weighed against, on the same calls (ms).

    One Newton step's linear solve by sparse LU (SuperLU) and by dense Cholesky of the
    Hessian at the optimum, and a whole warm-started fit by L-BFGS-B with the analytic,
    vectorised gradient (the other candidate named in the task).
    """
    first, second, won = (np.asarray(a) for a in calls)
    data = Calls_(n, first.astype(np.intp), second.astype(np.intp), won, 1.0, True)
    optimum = maximise(data, np.zeros(n + 1))
    hessian = sp.csc_array(optimum.hessian)
    dense = hessian.toarray()
    earlier = maximise(Calls_(n, data.first[:-1000], data.second[:-1000], won[:-1000], 1.0, True),
                       np.zeros(n + 1)).theta

    def value_and_gradient(theta: np.ndarray) -> tuple[float, np.ndarray]:
        value, p = evaluate(data, theta)
        return value, gradient(data, theta, p)

    def lbfgs() -> np.ndarray:
        options = {"maxiter": 10_000, "gtol": 1e-8, "ftol": 0.0}
        found = minimize(value_and_gradient, earlier, jac=True, method="L-BFGS-B", options=options)
        return np.asarray(found.x)

    centred = optimum.theta[:n] - optimum.theta[:n].mean()
    lbfgs_theta = lbfgs()
    error = np.max(np.abs(lbfgs_theta[:n] - lbfgs_theta[:n].mean() - centred))
    return {
        "SuperLU factorisation": f"{median_ms(lambda: splu(hessian), max(1, repeat // 2)):.0f}",
        "dense Cholesky": f"{median_ms(lambda: cholesky(dense, lower=True), repeat):.1f}",
        "L-BFGS-B warm fit": f"{median_ms(lbfgs, max(1, repeat // 2)):.0f}",
        "L-BFGS-B max error": f"{error:.0e}",
    }


def designs(skip_large: bool) -> dict[str, tuple[int, Calls]]:
    found: dict[str, tuple[int, Calls]] = {}
    for n, losses in [(1000, 10)] + ([] if skip_large else [(10_000, 2)]):
        items = [str(i) for i in range(n)]
        values = dict(zip(items, (spaced_truth(n, MOCK_LOGITS_PER_UNIT * (n - 1))), strict=True))
        judge = GumbelJudge({k: float(v) for k, v in values.items()}, H, seed=1)
        found[f"tournament n={n}"] = (n, tournament_calls(judge, items, losses, seed=1))
        if n == 1000:
            found["random n=1000"] = (n, random_design(n, 40, spaced_truth(n, 8.0), H, seed=1))
    return found


def bench(n: int, calls: Calls, repeat: int) -> dict[str, float | str]:
    first, second, won = calls
    few = repeat if n <= 2000 else max(1, repeat // 3)
    earlier = fit_bradley_terry(n, first[:-1000], second[:-1000], won[:-1000], uncertainty=False)
    fit = fit_bradley_terry(n, first, second, won)
    old_ms = median_ms(lambda: newman_fit(n, first, second, won), 1 if n > 2000 else 3)
    same_model = fit_bradley_terry(n, first, second, won, position=False, uncertainty=False)
    agreement = np.max(np.abs(np.array(newman_fit(n, first, second, won)) - same_model.strengths))
    cold_ms = median_ms(lambda: fit_bradley_terry(n, first, second, won, uncertainty=False), repeat)
    warm_ms = median_ms(
        lambda: fit_bradley_terry(n, first, second, won, start=earlier, uncertainty=False), repeat
    )
    se_ms = median_ms(lambda: fit_bradley_terry(n, first, second, won), few)
    top_ms = median_ms(lambda: fit.top_k_probability(10), few)
    shift = fit.position_shift()
    return {
        "calls": f"{len(first):,}",
        "old (pure Python)": f"{old_ms:,.0f}",
        "cold": f"{cold_ms:.1f}",
        "warm": f"{warm_ms:.1f}",
        "with SEs": f"{se_ms:,.0f}",
        "top-10 probs": f"{top_ms:,.0f}",
        "old / warm": f"{old_ms / warm_ms:,.0f}×",
        "max |old − new| at h=0": f"{agreement:.0e}",
        "h ± SE": f"{fit.position:.3f} ± {fit.position_se:.3f}",
        "σ(h) − ½": f"{shift[0]:.3f} [{shift[1]:.3f}, {shift[2]:.3f}]",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--skip-large", action="store_true")
    args = parser.parse_args()
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "default")
    print(f"OPENBLAS_NUM_THREADS={threads}; {os.cpu_count()} CPUs; times in ms (median)\n")
    found = designs(args.skip_large)
    rows = {name: bench(n, calls, args.repeat) for name, (n, calls) in found.items()}
    columns = list(next(iter(rows.values())))
    print("| design | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for name, row in rows.items():
        print(f"| {name} | " + " | ".join(str(row[c]) for c in columns) + " |")
    print("\nAlternatives on the n=1000 designs (ms; see `alternatives`):\n")
    small = {name: alternatives(n, calls, args.repeat) for name, (n, calls) in found.items()
             if n <= 1000}
    columns = list(next(iter(small.values())))
    print("| design | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for name, row in small.items():
        print(f"| {name} | " + " | ".join(row[c] for c in columns) + " |")


if __name__ == "__main__":
    main()
