"""Hard vs soft verdicts for Swiss at equal calls, on the mock's log-probability modes.

For each judge noise (the default mock's sd 3.33, and a noisier sd 33.3 on the same
items "0".."n-1"), each budget (1n, 2n and 2(2n−1) calls, the last what elimination N=2
costs) and each seed s, Swiss (one call per match, sorter seed s, judge seed s) plays
twice on the same judge: `verdicts="hard"` and `verdicts="soft"`. The mock's verdicts do
not depend on its log-probability mode (see `judged_probability` in `testing/mock.py`), so one
hard run serves both modes; soft runs on the calibrated mode and on the over-confident one (k = 3).
Kendall's τ-b against the true order; mean ± sd over seeds, and the paired per-seed
difference soft − hard. Also the Brier score of the judge's stated probabilities against
its own verdicts on the soft runs' calls (the calibration the audit reports).

Writes docs/benchmarks/soft_verdicts_table.txt (the table the page includes) and
docs/benchmarks/soft_verdicts.json (every figure).

Usage:
    python scripts/soft_verdicts_study.py [--n 1000] [--seeds 5] [--out docs/benchmarks]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter, Swiss
from llm_qualitative_sort.metrics import kendall_tau

NOISES = (3.33, 33.3)
MODES = ("calibrated", "overconfident")


async def play(n: int, noise: float, mode: str, verdicts: str, seed: int, budget: int
               ) -> dict[str, Any]:
    items = [str(i) for i in range(n)]
    truth = sorted(items, key=int, reverse=True)
    judge = MockLLMProvider(seed=seed, noise_stddev=noise, logprobs=mode)  # type: ignore[arg-type]
    sorter = QualitativeSorter(judge, criteria="larger number", seed=seed, checkpointer=None,
                               strategy=Swiss(budget=budget, verdicts=verdicts))
    result = await sorter.sort(items)
    calls = [c for m in result.match_history for c in m.rounds if c.probability is not None]
    brier = statistics.fmean((c.probability - (c.winner == "A")) ** 2 for c in calls)
    return {"tau": kendall_tau(result.rankings, truth),
            "calls": result.statistics.total_api_calls, "brier": brier}


def _mean_sd(values: list[float]) -> str:
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.fmean(values):.4f} ± {sd:.4f}"


def study(n: int, seeds: int) -> list[dict[str, Any]]:
    rows = []
    for noise in NOISES:
        for label, budget in (("1n", n), ("2n", 2 * n), ("N=2: 2(2n−1)", 2 * (2 * n - 1))):
            hard = [asyncio.run(play(n, noise, "calibrated", "hard", s, budget))
                    for s in range(seeds)]
            for mode in MODES:
                soft = [asyncio.run(play(n, noise, mode, "soft", s, budget))
                        for s in range(seeds)]
                rows.append({"noise": noise, "budget": label, "calls": budget, "mode": mode,
                             "hard": [r["tau"] for r in hard], "soft": [r["tau"] for r in soft],
                             "brier": [r["brier"] for r in soft],
                             "used": [r["calls"] for r in hard + soft]})
                print(rows[-1]["noise"], label, mode, _mean_sd(rows[-1]["hard"]),
                      _mean_sd(rows[-1]["soft"]), flush=True)
    return rows


def table(rows: list[dict[str, Any]]) -> list[str]:
    lines = ["| judge sd | log-probs | budget (calls) | hard τ-b | soft τ-b | soft − hard "
             "(per seed) | Brier |", "|---|---|---|---|---|---|---|"]
    for row in rows:
        diff = [s - h for s, h in zip(row["soft"], row["hard"], strict=True)]
        lines.append(f"| {row['noise']} | {row['mode']} | {row['budget']} ({row['calls']:,}) "
                     f"| {_mean_sd(row['hard'])} | {_mean_sd(row['soft'])} "
                     f"| {_mean_sd(diff)} | {statistics.fmean(row['brier']):.4f} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks"))
    args = parser.parse_args()
    started = time.perf_counter()
    rows = study(args.n, args.seeds)
    elapsed = time.perf_counter() - started
    args.out.mkdir(parents=True, exist_ok=True)
    name = f"soft_verdicts_{args.n}" if args.n != 1000 else "soft_verdicts"
    (args.out / f"{name}.json").write_text(json.dumps(
        {"n": args.n, "seeds": args.seeds, "rows": rows}, indent=1) + "\n")
    (args.out / f"{name}_table.txt").write_text(
        f"<!-- written by scripts/soft_verdicts_study.py --n {args.n} --seeds {args.seeds} "
        f"in {elapsed:.0f} s -->\n" + "\n".join(table(rows)) + "\n")


if __name__ == "__main__":
    main()
