"""Strategies side by side at equal calls: how well each ranks "0".."999" per LLM call.

For each judge (the default mock, and `MockLLMProvider.realistic`), each
elimination count N in --budgets (2, 5, 10) and each seed s:
- elimination with N losses plays once (sorter seed s, judge seed s); its calls C are the
  budget of every Swiss run on that (judge, N, seed). That run is ranked two ways: by wins
  (the default) and by the Bradley–Terry scores of the same calls (`ranking="bradley_terry"`
  would give the same order).
- Swiss plays with `budget=C`: one call per match, two calls per match (AB/BA), one call
  per match with `top_k=10`, and the same with `stop_when_settled=True`. Swiss stops when the
  rest of the budget cannot pay for a match, so it uses C calls (C − 1 at two per match) —
  budgets match to within one call — unless the early stop ends it sooner.

Per run: Kendall's τ-b and Top-10/50/100 (`llm_qualitative_sort.metrics`), calls, sequential
rounds and wall time; tables give mean ± sd over seeds, and paired per-seed differences for
the claims. Everything is seeded: the same command gives the same figures (not the walls).

Writes docs/strategies.md (tables), docs/strategies.png (plot) and docs/strategies.json (every
run's figures; `--from-json docs/strategies.json` writes the tables and plot again from it).

Usage:
    python scripts/strategy_study.py [--seeds 10] [--budgets 2,5,10] [--out docs]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

from llm_qualitative_sort import (  # noqa: E402
    LLMProvider,
    MockLLMProvider,
    QualitativeSorter,
    Swiss,
)
from llm_qualitative_sort.bradley_terry import rank_by_score  # noqa: E402
from llm_qualitative_sort.metrics import kendall_tau, top_k_accuracy  # noqa: E402

ITEMS = [str(i) for i in range(1000)]
TRUE_ORDER = sorted(ITEMS, key=int, reverse=True)
Rankings = list[tuple[int, list[str]]]

JUDGES: dict[str, Callable[[int], LLMProvider]] = {
    "spec": lambda s: MockLLMProvider(seed=s),
    "realistic": lambda s: MockLLMProvider.realistic(seed=s),
}
JUDGE_TITLES = {"spec": "default mock (sd 3.33)",
                "realistic": "realistic mock (MockLLMProvider.realistic)"}
METRICS: dict[str, Callable[[Rankings], float]] = {
    "τ-b": lambda r: kendall_tau(r, TRUE_ORDER),
    "Top-10": lambda r: top_k_accuracy(r, TRUE_ORDER, 10),
    "Top-50": lambda r: top_k_accuracy(r, TRUE_ORDER, 50),
    "Top-100": lambda r: top_k_accuracy(r, TRUE_ORDER, 100),
}
ELIM_WINS, ELIM_BT = "elimination, wins", "elimination, Bradley–Terry"
SWISS_1, TOP, STOP = "Swiss, 1 call/match", "Swiss + top-10", "Swiss + top-10 + early stop"
SWISS: dict[str, dict[str, Any]] = {
    SWISS_1: {"comparison_rounds": 1},
    "Swiss, 2 calls/match": {"comparison_rounds": 2},
    TOP: {"comparison_rounds": 1, "top_k": 10},
    STOP: {"comparison_rounds": 1, "top_k": 10, "stop_when_settled": True},
}
STRATEGIES = [ELIM_WINS, ELIM_BT, *SWISS]


@dataclass
class Run:
    calls: int
    rounds: int
    wall: float
    budget: int
    metrics: dict[str, float] = field(default_factory=dict)


# results[judge][n_losses][strategy] = one Run per seed
Results = dict[str, dict[int, dict[str, list[Run]]]]


def _scored(rankings: Rankings) -> dict[str, float]:
    return {name: f(rankings) for name, f in METRICS.items()}


async def _sort(provider: LLMProvider, seed: int, **settings: Any) -> tuple[Any, float]:
    sorter = QualitativeSorter(provider, criteria="larger number", seed=seed,
                               checkpointer=None, max_concurrent_requests=1000, **settings)
    started = time.perf_counter()
    result = await sorter.sort(ITEMS)
    return result, time.perf_counter() - started


async def play_seed(judge: str, n_losses: int, seed: int) -> dict[str, Run]:
    """Every strategy on one (judge, N, seed), Swiss at the elimination run's calls."""
    result, wall = await _sort(JUDGES[judge](seed), seed, elimination_count=n_losses)
    stats = result.statistics
    budget = stats.total_api_calls
    assert result.scores is not None
    runs = {
        ELIM_WINS: Run(budget, stats.rounds, wall, budget, _scored(result.rankings)),
        ELIM_BT: Run(budget, stats.rounds, wall, budget, _scored(rank_by_score(result.scores))),
    }
    for name, settings in SWISS.items():
        swiss, wall = await _sort(JUDGES[judge](seed), seed,
                                  strategy=Swiss(budget=budget, **settings))
        runs[name] = Run(swiss.statistics.total_api_calls, swiss.statistics.rounds, wall,
                         budget, _scored(swiss.rankings))
    return runs


async def study(seeds: int, budgets: Sequence[int]) -> Results:
    started = time.perf_counter()
    results: Results = {}
    for judge in JUDGES:
        for n_losses in budgets:
            cell: dict[str, list[Run]] = {name: [] for name in STRATEGIES}
            for seed in range(seeds):
                for name, run in (await play_seed(judge, n_losses, seed)).items():
                    cell[name].append(run)
            results.setdefault(judge, {})[n_losses] = cell
            print(f"{judge} N={n_losses}: {time.perf_counter() - started:.0f} s", flush=True)
    return results


def _mean_sd(values: Sequence[float], digits: int = 3) -> str:
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.fmean(values):.{digits}f} ± {sd:.{digits}f}"


def _metric(runs: Sequence[Run], name: str) -> list[float]:
    return [r.metrics[name] for r in runs]


def table(cells: dict[int, dict[str, list[Run]]], metrics: Sequence[str]) -> list[str]:
    """Markdown rows: one per (N budget, strategy)."""
    head = "| budget | strategy | " + " | ".join(metrics) + " | calls | rounds | wall s |"
    lines = [head, "|---|---|" + "---|" * (len(metrics) + 3)]
    for n_losses, cell in cells.items():
        for name, runs in cell.items():
            values = " | ".join(_mean_sd(_metric(runs, m)) for m in metrics)
            calls = statistics.fmean(r.calls for r in runs)
            rounds = statistics.fmean(r.rounds for r in runs)
            wall = statistics.fmean(r.wall for r in runs)
            lines.append(f"| N={n_losses} | {name} | {values} | {calls:.0f} | {rounds:.1f} "
                         f"| {wall:.2f} |")
    return lines


def paired(runs: Sequence[Run], base: Sequence[Run], metric: str) -> str:
    """Per-seed difference `runs − base` of `metric`, mean ± sd (and its minimum)."""
    diffs = [a.metrics[metric] - b.metrics[metric] for a, b in zip(runs, base, strict=True)]
    return f"{_mean_sd(diffs)} (min {min(diffs):+.3f})"


def claims(results: Results) -> list[str]:
    """The paired differences behind the strategy benchmarks' claims, per judge and budget."""
    lines = ["**Against elimination by wins** (per-seed difference)", "",
             "| judge | budget | Swiss τ-b | Swiss Top-10 | Swiss + top-10 τ-b "
             "| Swiss + top-10 Top-10 |", "|---|---|---|---|---|---|"]
    for judge, cells in results.items():
        for n_losses, cell in cells.items():
            swiss, top, wins = cell[SWISS_1], cell[TOP], cell[ELIM_WINS]
            lines.append(f"| {judge} | N={n_losses} | {paired(swiss, wins, 'τ-b')} "
                         f"| {paired(swiss, wins, 'Top-10')} | {paired(top, wins, 'τ-b')} "
                         f"| {paired(top, wins, 'Top-10')} |")
    lines += ["", "**Top-10 refinement against plain Swiss, early stop against the full "
              "budget** (per-seed difference)", "",
              "| judge | budget | refinement Top-10 | refinement τ-b | stop Top-10 "
              "| stop τ-b | calls saved by the stop |", "|---|---|---|---|---|---|---|"]
    for judge, cells in results.items():
        for n_losses, cell in cells.items():
            swiss, top, stop = cell[SWISS_1], cell[TOP], cell[STOP]
            saved = [1 - s.calls / s.budget for s in stop]
            lines.append(
                f"| {judge} | N={n_losses} | {paired(top, swiss, 'Top-10')} "
                f"| {paired(top, swiss, 'τ-b')} | {paired(stop, top, 'Top-10')} "
                f"| {paired(stop, top, 'τ-b')} | {100 * statistics.fmean(saved):.1f} % "
                f"(min {100 * min(saved):.1f}, max {100 * max(saved):.1f}) |")
    return lines


def budget_match(results: Results) -> str:
    """The largest relative gap between a full-budget Swiss run's calls and its budget."""
    gaps = [abs(r.calls - r.budget) / r.budget for cells in results.values()
            for cell in cells.values() for name, runs in cell.items()
            if name in SWISS and not SWISS[name].get("stop_when_settled") for r in runs]
    return f"{100 * max(gaps):.3f} %"


def plot(results: Results, path: Path) -> None:
    styles = dict(zip(STRATEGIES, ["o-", "s--", "^-", "v-", "D-", "x:"], strict=True))
    fig, axes = plt.subplots(2, 2, figsize=(11, 8.5))
    for row, (judge, cells) in zip(axes, results.items(), strict=True):
        for ax, metric in zip(row, ("τ-b", "Top-10"), strict=True):
            for name in STRATEGIES:
                # At the calls actually used: the early stop's points sit left of the budget.
                xs = [statistics.fmean(r.calls for r in cell[name]) for cell in cells.values()]
                values = [_metric(cell[name], metric) for cell in cells.values()]
                sds = [statistics.stdev(v) if len(v) > 1 else 0.0 for v in values]
                ax.errorbar(xs, [statistics.fmean(v) for v in values], yerr=sds,
                            fmt=styles[name], capsize=3, label=name)
            ax.set_title(f"{metric}, {JUDGE_TITLES[judge]}", fontsize=10)
            ax.set_xscale("log")
            budgets = [statistics.fmean(r.budget for r in cell[ELIM_WINS])
                       for cell in cells.values()]
            ax.set_xticks(budgets, [f"{b:,.0f}\nN={n}" for b, n in zip(budgets, cells,
                                                                          strict=True)])
            ax.minorticks_off()
            ax.grid(alpha=0.3)
    for ax in axes[1]:
        ax.set_xlabel("calls used (budget = calls of elimination with N losses)")
    axes[0][0].legend(fontsize=8)
    seeds = len(next(iter(next(iter(results.values())).values()))[ELIM_WINS])
    fig.suptitle(f"Ranking 1000 items at equal calls, mean ± sd over {seeds} seeds")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def write(results: Results, seeds: int, budgets: Sequence[int], elapsed: float,
          out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    plot(results, out / "strategies.png")
    blas = os.environ.get("OPENBLAS_NUM_THREADS", "unset")
    text = [f"<!-- written by scripts/strategy_study.py --seeds {seeds} --budgets "
            f"{','.join(map(str, budgets))}; {elapsed:.0f} s; OPENBLAS_NUM_THREADS={blas} -->",
            f"1000 items, mean ± sd over seeds 0..{seeds - 1}. Swiss budget = the calls of the "
            f"elimination run on the same judge and seed; largest gap between a full-budget "
            f"Swiss run's calls and its budget: {budget_match(results)}.", ""]
    for judge, cells in results.items():
        text += [f"### {JUDGE_TITLES[judge]}", "", *table(cells, list(METRICS)), ""]
    text += ["### Paired per-seed differences", "", *claims(results), ""]
    (out / "strategies.md").write_text("\n".join(text), encoding="utf-8")


def save(results: Results, path: Path) -> None:
    """Every run's figures, so the tables can be written again without playing."""
    plain = {judge: {str(n): {name: [asdict(r) for r in runs] for name, runs in cell.items()}
                     for n, cell in cells.items()} for judge, cells in results.items()}
    path.write_text(json.dumps(plain, ensure_ascii=False, indent=0), encoding="utf-8")


def load(path: Path) -> Results:
    plain = json.loads(path.read_text(encoding="utf-8"))
    return {judge: {int(n): {name: [Run(**r) for r in runs] for name, runs in cell.items()}
                    for n, cell in cells.items()} for judge, cells in plain.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="seeds per setting (default 10)")
    parser.add_argument("--budgets", default="2,5,10",
                        help="elimination counts whose calls are the budgets (default 2,5,10)")
    parser.add_argument("--out", type=Path, default=Path("docs"), help="output directory")
    parser.add_argument("--from-json", type=Path,
                        help="write the tables and plot from a saved strategies.json")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    started = time.perf_counter()
    if args.from_json:
        results = load(args.from_json)
    else:
        results = asyncio.run(study(args.seeds, budgets))
        args.out.mkdir(parents=True, exist_ok=True)
        save(results, args.out / "strategies.json")
    write(results, args.seeds, budgets, time.perf_counter() - started, args.out)
    print(f"wrote {args.out / 'strategies.md'} and {args.out / 'strategies.png'}")


if __name__ == "__main__":
    main()
