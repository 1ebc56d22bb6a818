"""The specification's accuracy study: how well the tournament ranks "0".."999" against N.

Sorts the 1000 items with `MockLLMProvider(seed=s)` for N = 1..10 over several seeds and
reports, for the wins ranking and for the Bradley–Terry ranking of the SAME run (no extra
call), the mean ± standard deviation across seeds of: matches, calls, Kendall's τ-b, Top-10/50/
100 accuracy, correct-pair ratio, and the pair ratio inside the true top 100 and bottom 100.

A second table shows robustness at N = 2: a much noisier judge (sd 30) and a position-biased
judge (the first-shown text wins 20 % of calls regardless), each with the library's AB/BA
design (comparison_rounds=2: one call in each order) against "one order only". The library
requires an even number of rounds, so "one order only" is played by `OneOrder`, a provider
wrapper that shows both calls of a match in the same fixed orientation (chosen per pair by a
hash, so it favours no item systematically): the same number of calls, without the order
swap. That isolates what the swap buys at equal cost.

Usage:
    python scripts/accuracy_study.py [--seeds 4] [--out docs]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

from llm_qualitative_sort import (  # noqa: E402
    ComparisonResult,
    LLMProvider,
    MockLLMProvider,
    QualitativeSorter,
)
from llm_qualitative_sort.bradley_terry import rank_by_score  # noqa: E402
from llm_qualitative_sort.metrics import (  # noqa: E402
    correct_pair_ratio,
    kendall_tau,
    segment_pair_ratio,
    top_k_accuracy,
)

ITEMS = [str(i) for i in range(1000)]
TRUE_ORDER = sorted(ITEMS, key=int, reverse=True)
Rankings = list[tuple[int, list[str]]]

METRICS: dict[str, Callable[[Rankings], float]] = {
    "τ-b": lambda r: kendall_tau(r, TRUE_ORDER),
    "Top-10": lambda r: top_k_accuracy(r, TRUE_ORDER, 10),
    "Top-50": lambda r: top_k_accuracy(r, TRUE_ORDER, 50),
    "Top-100": lambda r: top_k_accuracy(r, TRUE_ORDER, 100),
    "pairs": lambda r: correct_pair_ratio(r, TRUE_ORDER),
    "pairs top 100": lambda r: segment_pair_ratio(r, TRUE_ORDER, 0, 100),
    "pairs bottom 100": lambda r: segment_pair_ratio(r, TRUE_ORDER, 900, 1000),
}


class OneOrder(LLMProvider):
    """Shows every call of a match in one fixed orientation (no AB/BA swap).

    Calls that the library sends in the other order are turned round, judged, and the
    verdict turned back; their repetition index is moved so the judge samples afresh
    instead of repeating the first call's answer.
    """

    def __init__(self, inner: LLMProvider) -> None:
        super().__init__(model=inner.model)
        self.inner = inner

    @property
    def model_identity(self) -> str:
        return f"OneOrder:{self.inner.model_identity}"

    async def compare(self, item_a: str, item_b: str, criteria: str) -> ComparisonResult:
        return await self.compare_call(item_a, item_b, criteria, repetition=0)

    async def compare_call(
        self, item_a: str, item_b: str, criteria: str, *, repetition: int
    ) -> ComparisonResult:
        if _first_of(item_a, item_b) == item_a:
            return await self.inner.compare_call(
                item_a, item_b, criteria, repetition=2 * repetition
            )
        turned = await self.inner.compare_call(
            item_b, item_a, criteria, repetition=2 * repetition + 1
        )
        flipped = {"A": "B", "B": "A", None: None}[turned.winner]
        return ComparisonResult(flipped, turned.reasoning, turned.raw_response)  # type: ignore[arg-type]


def _first_of(a: str, b: str) -> str:
    return min(a, b, key=lambda t: hashlib.sha256(t.encode()).digest())


@dataclass
class Run:
    matches: int
    calls: int
    wins: dict[str, float]
    bt: dict[str, float]


async def one_run(provider: LLMProvider, n_losses: int, seed: int) -> Run:
    sorter = QualitativeSorter(
        provider, criteria="larger number", elimination_count=n_losses,
        seed=seed, checkpointer=None, max_concurrent_requests=50,
    )
    result = await sorter.sort(ITEMS)
    assert result.scores is not None
    bt_rankings = rank_by_score(result.scores)
    return Run(
        matches=result.statistics.total_matches,
        calls=result.statistics.total_api_calls,
        wins={name: f(result.rankings) for name, f in METRICS.items()},
        bt={name: f(bt_rankings) for name, f in METRICS.items()},
    )


def _mean_sd(values: Sequence[float], digits: int = 3) -> str:
    mean = statistics.fmean(values)
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{mean:.{digits}f} ± {sd:.{digits}f}"


def _table(label: str, rows: dict[str, list[Run]], ranking: str) -> list[str]:
    names = list(METRICS)
    lines = [
        f"| {label} | matches | calls | " + " | ".join(names) + " |",
        "|---|---|---|" + "---|" * len(names),
    ]
    for key, runs in rows.items():
        cells = [_mean_sd([getattr(r, ranking)[n] for r in runs]) for n in names]
        matches = statistics.fmean(r.matches for r in runs)
        calls = statistics.fmean(r.calls for r in runs)
        lines.append(f"| {key} | {matches:.0f} | {calls:.0f} | " + " | ".join(cells) + " |")
    return lines


def _plot(by_n: dict[int, list[Run]], path: Path) -> None:
    panels = [("τ-b", "Kendall τ-b"), ("Top-10", "Top-10 accuracy"),
              ("Top-100", "Top-100 accuracy"), ("pairs top 100", "pair ratio in true top 100")]
    fig, axes = plt.subplots(2, 2, figsize=(10, 7), sharex=True)
    ns = sorted(by_n)
    for ax, (metric, title) in zip(axes.flat, panels, strict=True):
        for ranking, style in (("wins", "o-"), ("bt", "s--")):
            values = [[getattr(r, ranking)[metric] for r in by_n[n]] for n in ns]
            means = [statistics.fmean(v) for v in values]
            sds = [statistics.stdev(v) if len(v) > 1 else 0.0 for v in values]
            label = "wins" if ranking == "wins" else "Bradley–Terry"
            ax.errorbar(ns, means, yerr=sds, fmt=style, capsize=3, label=label)
        if metric == "pairs top 100":
            bottom = [statistics.fmean(r.wins["pairs bottom 100"] for r in by_n[n]) for n in ns]
            ax.plot(ns, bottom, "^:", label="wins, true bottom 100")
        ax.set_title(title)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    for ax in axes[1]:
        ax.set_xlabel("elimination count N")
    fig.suptitle(f"Ranking 1000 items, mock judge sd 3.33, mean ± sd over {len(by_n[ns[0]])} seeds")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


async def study(seeds: int, out: Path) -> None:
    started = time.perf_counter()
    by_n: dict[int, list[Run]] = {}
    for n_losses in range(1, 11):
        by_n[n_losses] = [
            await one_run(MockLLMProvider(seed=s), n_losses, s) for s in range(seeds)
        ]
        print(f"N={n_losses} done at {time.perf_counter() - started:.0f} s", flush=True)
    judges: dict[str, Callable[[int], LLMProvider]] = {
        "sd 30": lambda s: MockLLMProvider(seed=s, noise_stddev=30.0),
        "bias 0.2": lambda s: MockLLMProvider(seed=s, position_bias=0.2),
    }
    robustness: dict[str, list[Run]] = {}
    for name, judge in judges.items():
        for design, wrap in (("AB/BA", lambda p: p), ("one order", OneOrder)):
            key = f"{name}, {design}"
            robustness[key] = [await one_run(wrap(judge(s)), 2, s) for s in range(seeds)]
    elapsed = time.perf_counter() - started
    out.mkdir(parents=True, exist_ok=True)
    _plot(by_n, out / "accuracy.png")
    rows = {f"N={n}": runs for n, runs in by_n.items()}
    text = [
        f"<!-- written by scripts/accuracy_study.py --seeds {seeds}; {elapsed:.0f} s -->",
        f"Mock judge sd 3.33, 1000 items, mean ± sd over seeds 0..{seeds - 1}.",
        "", "**Wins ranking**", "", *_table("N", rows, "wins"),
        "", "**Bradley–Terry ranking (same runs)**", "", *_table("N", rows, "bt"),
        "", "**Robustness at N = 2, wins ranking**", "", *_table("judge", robustness, "wins"),
        "", "**Robustness at N = 2, Bradley–Terry ranking**", "",
        *_table("judge", robustness, "bt"), "",
    ]
    (out / "accuracy.md").write_text("\n".join(text), encoding="utf-8")
    print(f"wrote {out / 'accuracy.md'} and {out / 'accuracy.png'} in {elapsed:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=4, help="seeds per setting (default 4)")
    parser.add_argument("--out", type=Path, default=Path("docs"), help="output directory")
    args = parser.parse_args()
    asyncio.run(study(args.seeds, args.out))


if __name__ == "__main__":
    main()
