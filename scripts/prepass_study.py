"""Swiss, soft verdicts, pointwise scoring and the pointwise pre-pass at equal calls.

Items "0".."n-1" (the true order is by value). For each judge, each budget (1n, 2n, 4n
calls) and each seed s (sorter seed s, judge seed s), these play on the same judge:

- `swiss`: Swiss, hard verdicts (the default); `swiss-soft`: `verdicts="soft"`;
- `pointwise`, `pointwise-inverse`: every item scored alone budget/n times;
- `prepass`: Swiss with `prepass="pointwise"` (n calls of the budget score the items,
  the rest plays Swiss); `prepass-pairing`: the same with the scores ordering the first
  pairing only (no virtual calls in the fits, `prepass.SCORE_ROUNDS = 0`);
  `prepass-inverse`: `prepass="pointwise-inverse"`. A pre-pass needs n + 1 calls, so
  it has no row at 1n.

Judges (`MockLLMProvider`): "mock" (the plain mock, sd 3.33, calibrated log-probabilities
for verdicts and labels), "realistic" (`realistic()`, calibrated both), and
"realistic-lenient" (`realistic()`, over-confident verdict probabilities, lenient labels).

Each finished run is appended to `<out>/prepass_study_<n>.jsonl` at once (a stopped study
keeps what it ran; a rerun skips what is there). `--report` writes the table
(`prepass_study_table.txt`) and the plot (`prepass_study.png`) from every file found.

Usage:
    python scripts/prepass_study.py --n 1000 --seeds 5
    python scripts/prepass_study.py --n 10000 --seeds 3 --first "realistic-lenient:2"
    python scripts/prepass_study.py --report
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

from llm_qualitative_sort import MockLLMProvider, Pointwise, QualitativeSorter, Swiss
from llm_qualitative_sort.metrics import kendall_tau, top_k_accuracy
from llm_qualitative_sort.tournament.swiss import prepass

JUDGES = ("mock", "realistic", "realistic-lenient")
METHODS = ("swiss", "swiss-soft", "pointwise", "pointwise-inverse", "prepass",
           "prepass-pairing", "prepass-inverse")
BUDGETS = (1, 2, 4)
TOP = 100
# The library's virtual calls per pre-pass (the `prepass-pairing` runs set 0).
DEFAULT_ROUNDS = prepass.SCORE_ROUNDS


def judge(name: str, seed: int) -> MockLLMProvider:
    if name == "mock":
        return MockLLMProvider(seed=seed, logprobs="calibrated", pointwise="calibrated")
    if name == "realistic":
        return MockLLMProvider.realistic(seed=seed, logprobs="calibrated",
                                         pointwise="calibrated")
    return MockLLMProvider.realistic(seed=seed, logprobs="overconfident", pointwise="lenient")


async def play(n: int, judge_name: str, method: str, multiple: int, seed: int
               ) -> dict[str, Any]:
    items = [str(i) for i in range(n)]
    truth = sorted(items, key=int, reverse=True)
    settings: Pointwise | Swiss
    if method.startswith("pointwise"):
        settings = Pointwise(repetitions=multiple, inverse=method == "pointwise-inverse")
    else:
        first = None
        if method.startswith("prepass"):
            first = "pointwise-inverse" if method.endswith("inverse") else "pointwise"
        settings = Swiss(budget=multiple * n, prepass=first,
                         verdicts="soft" if method == "swiss-soft" else "hard")
    prepass.SCORE_ROUNDS = 0 if method == "prepass-pairing" else DEFAULT_ROUNDS
    sorter = QualitativeSorter(judge(judge_name, seed), criteria="larger number", seed=seed,
                               checkpointer=None, strategy=settings)
    started = time.perf_counter()
    result = await sorter.sort(items)
    return {"n": n, "judge": judge_name, "method": method, "budget": multiple, "seed": seed,
            "tau": kendall_tau(result.rankings, truth),
            "top": top_k_accuracy(result.rankings, truth, min(TOP, n // 2)),
            "calls": result.statistics.total_api_calls,
            "seconds": round(time.perf_counter() - started, 2)}


def jobs(n: int, seeds: int, judges: list[str], methods: list[str], budgets: list[int],
         first: list[tuple[str, int]]) -> list[tuple[str, str, int, int]]:
    """Every run, the `first` (judge, budget) cells' Swiss and pre-pass runs first."""
    todo = [(j, m, b, s) for s in range(seeds) for b in budgets for j in judges for m in methods
            if not (m.startswith("prepass") and b == 1)]

    def priority(job: tuple[str, str, int, int]) -> tuple[int, int]:
        j, m, b, s = job
        if (j, b) in first and m in ("swiss", "prepass"):
            return 0, s
        if (j, b) in first:
            return 1, s
        return 2, s
    return sorted(todo, key=priority)


def run(args: argparse.Namespace) -> None:
    path = args.out / f"prepass_study_{args.n}.jsonl"
    done = set()
    if path.exists():
        for line in path.read_text().splitlines():
            row = json.loads(line)
            done.add((row["judge"], row["method"], row["budget"], row["seed"]))
    first = [(cell.split(":")[0], int(cell.split(":")[1])) for cell in args.first]
    for job in jobs(args.n, args.seeds, args.judges, args.methods, args.budgets, first):
        if job in done:
            continue
        j, m, b, s = job
        row = asyncio.run(play(args.n, j, m, b, s))
        with path.open("a") as out:
            out.write(json.dumps(row) + "\n")
        print(row, flush=True)


def _mean_sd(values: list[float]) -> tuple[float, float]:
    return statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0


def _cell(values: list[float]) -> str:
    mean, sd = _mean_sd(values)
    return f"{mean:.3f} ± {sd:.3f}"


def cells(rows: list[dict[str, Any]]) -> dict[tuple[int, str, int, str], list[dict[str, Any]]]:
    grouped: dict[tuple[int, str, int, str], list[dict[str, Any]]] = {}
    for row in rows:
        grouped.setdefault((row["n"], row["judge"], row["budget"], row["method"]), []).append(row)
    return grouped


def table(rows: list[dict[str, Any]]) -> list[str]:
    grouped = cells(rows)
    lines = ["| n | judge | budget | method | seeds | τ-b | Top-100 | pre-pass − Swiss "
             "(paired, τ-b / Top-100) |", "|---|---|---|---|---|---|---|---|"]
    for key in sorted(grouped, key=lambda k: (k[0], JUDGES.index(k[1]), k[2],
                                               METHODS.index(k[3]))):
        n, judge_name, budget, method = key
        found = grouped[key]
        paired = ""
        base = {r["seed"]: r for r in grouped.get((n, judge_name, budget, "swiss"), [])}
        if method.startswith("prepass"):
            both = [(r, base[r["seed"]]) for r in found if r["seed"] in base]
            if both:
                paired = (_cell([r["tau"] - b["tau"] for r, b in both]) + " / " +
                          _cell([r["top"] - b["top"] for r, b in both]))
        lines.append(f"| {n:,} | {judge_name} | {budget}n | {method} | {len(found)} "
                     f"| {_cell([r['tau'] for r in found])} | {_cell([r['top'] for r in found])} "
                     f"| {paired} |")
    return lines


def plot(rows: list[dict[str, Any]], target: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    grouped = cells(rows)
    panels = [(n, metric) for n in sorted({r["n"] for r in rows}) for metric in ("tau", "top")]
    figure, axes = plt.subplots(len(panels), len(JUDGES), figsize=(4.2 * len(JUDGES),
                                                                     3.0 * len(panels)),
                                squeeze=False)
    for row_index, (n, metric) in enumerate(panels):
        for col, judge_name in enumerate(JUDGES):
            axis = axes[row_index][col]
            for method in METHODS:
                points = [(b, _mean_sd([r[metric] for r in grouped[(n, judge_name, b, method)]]))
                          for b in BUDGETS if (n, judge_name, b, method) in grouped]
                if points:
                    axis.errorbar([p[0] for p in points], [p[1][0] for p in points],
                                  yerr=[p[1][1] for p in points], marker="o", capsize=3,
                                  label=method)
            axis.set_title(f"n = {n:,}, {judge_name}", fontsize=9)
            axis.set_xticks(BUDGETS, [f"{b}n" for b in BUDGETS])
            axis.grid(alpha=0.3)
            if col == 0:
                axis.set_ylabel("Kendall τ-b" if metric == "tau" else "Top-100 accuracy")
    axes[0][0].legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(target, dpi=100)


def report(out: Path) -> None:
    rows = [json.loads(line) for path in sorted(out.glob("prepass_study_*.jsonl"))
            for line in path.read_text().splitlines()]
    (out / "prepass_study_table.txt").write_text(
        "<!-- written by scripts/prepass_study.py --report -->\n" + "\n".join(table(rows)) + "\n")
    plot(rows, out / "prepass_study.png")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--judges", nargs="+", default=list(JUDGES), choices=JUDGES)
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--budgets", nargs="+", type=int, default=list(BUDGETS))
    parser.add_argument("--first", nargs="*", default=[], metavar="JUDGE:BUDGET",
                        help="cells to run first (their Swiss and pre-pass runs first of all)")
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks"))
    parser.add_argument("--report", action="store_true", help="write the table and plot")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.report:
        report(args.out)
    else:
        run(args)


if __name__ == "__main__":
    main()
