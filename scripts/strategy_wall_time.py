"""Where a Swiss run's wall time goes, against elimination, with and without BLAS threads.

Sorts "0".."999" with the default mock (no latency, so the wall is the library's
own work) for: elimination N=2 (the baseline), Swiss with one call per match, Swiss +
top-10, and Swiss + top-10 + early stop, all at the default budget. The Swiss strategy's
heavy steps are timed by wrapping them in place: the Bradley–Terry fit without standard
errors (every round), with them (refinement waves and the early-stop test), the top-K
probabilities (the early-stop test) and reading the history (`gather_evidence`); the rest
is the graph, the judge and the bookkeeping.

Each configuration runs in a child process twice: with OPENBLAS_NUM_THREADS=1, and with
OpenBLAS left to choose its threads (the default a user gets). The machine is shared, so
compare ratios within one run of this script, not absolute times across runs.

Usage:
    python scripts/strategy_wall_time.py [--seeds 3] [--out docs/strategies_wall.md]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

CONFIGS: dict[str, dict[str, Any]] = {
    "elimination N=2": {"strategy": "elimination"},
    "Swiss, 1 call/match": {"strategy": "swiss", "comparison_rounds": 1},
    "Swiss + top-10": {"strategy": "swiss", "comparison_rounds": 1, "top_k": 10},
    "Swiss + top-10 + early stop": {"strategy": "swiss", "comparison_rounds": 1, "top_k": 10,
                                    "stop_when_settled": True},
}
PARTS = ["fit", "fit + SEs", "top-K probabilities", "history", "rest"]


def _timed(spent: dict[str, float], key: Callable[..., str], function: Any) -> Any:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            spent[key(*args, **kwargs)] += time.perf_counter() - started
            spent[key(*args, **kwargs) + " count"] += 1
    return wrapper


def child(config: str, seeds: int) -> dict[str, float]:
    """Mean seconds per run spent in each part (runs in the child process)."""
    from llm_qualitative_sort import MockLLMProvider, QualitativeSorter
    from llm_qualitative_sort.bradley_terry import BradleyTerryFit
    from llm_qualitative_sort.tournament import parse_settings
    from llm_qualitative_sort.tournament.swiss import strategy

    spent: dict[str, float] = defaultdict(float)
    strategy.fit_bradley_terry = _timed(  # type: ignore[assignment]
        spent, lambda *a, **k: "fit + SEs" if k.get("uncertainty", True) else "fit",
        strategy.fit_bradley_terry)
    strategy.gather_evidence = _timed(  # type: ignore[assignment]
        spent, lambda *a, **k: "history", strategy.gather_evidence)
    BradleyTerryFit.top_k_probability = _timed(  # type: ignore[method-assign]
        spent, lambda *a, **k: "top-K probabilities", BradleyTerryFit.top_k_probability)
    items = [str(i) for i in range(1000)]
    total = 0.0
    for seed in range(seeds):
        sorter = QualitativeSorter(MockLLMProvider(seed=seed), criteria="larger", seed=seed,
                                   checkpointer=None, max_concurrent_requests=1000,
                                   strategy=parse_settings(CONFIGS[config]))
        started = time.perf_counter()
        asyncio.run(sorter.sort(items))
        total += time.perf_counter() - started
    parts = {name: spent[name] / seeds for name in PARTS[:-1]}
    counts = {f"{name} count": spent[f"{name} count"] / seeds for name in PARTS[:-1]}
    rest = total - sum(spent[name] for name in PARTS[:-1])
    return {"total": total / seeds, **parts, **counts, "rest": rest / seeds}


def _cell(times: dict[str, float], part: str) -> str:
    count = times.get(f"{part} count")
    return f"{times[part]:.2f}" + (f" ({count:.0f}×)" if count else "")


def measure(config: str, seeds: int, threads: str | None) -> dict[str, float]:
    env = dict(os.environ)
    env.pop("OPENBLAS_NUM_THREADS", None)
    if threads is not None:
        env["OPENBLAS_NUM_THREADS"] = threads
    done = subprocess.run([sys.executable, __file__, "--child", config, "--seeds", str(seeds)],
                          env=env, capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3, help="runs per setting (default 3)")
    parser.add_argument("--out", type=Path, default=Path("docs/strategies_wall.md"))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.seeds)))
        return
    lines = ["<!-- written by scripts/strategy_wall_time.py; the machine was shared -->",
             f"n = 1000, default mock, default budget, mean seconds per run over {args.seeds} "
             "seeds; × = wall against elimination N=2 in the same setting; (k×) = calls "
             "per run of that step.", "",
             "| OpenBLAS threads | run | wall s | × | " + " | ".join(PARTS) + " |",
             "|---|---|---|---|" + "---|" * len(PARTS)]
    for threads in ("1", None):
        base = None
        for config in CONFIGS:
            times = measure(config, args.seeds, threads)
            base = base or times["total"]
            cells = " | ".join(_cell(times, p) for p in PARTS)
            lines.append(f"| {threads or 'default'} | {config} | {times['total']:.2f} "
                         f"| {times['total'] / base:.1f} | {cells} |")
            print(lines[-1], flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
