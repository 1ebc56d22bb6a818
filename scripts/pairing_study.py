"""Which pairs should a Swiss round choose: strength neighbours, A-optimal, or random pairs?

Measured with the product (`QualitativeSorter`, `Swiss(ties=True)`, one call per match),
its two `pairing` choices side by side at the same budgets and seeds:

- UKPConvArg1 (Habernal & Gurevych, ACL 2016, https://aclanthology.org/P16-1150, CC-BY
  4.0): every topic in --data, `ReplayProvider` as the judge (one stored crowd vote per
  call, "=" a tie), budgets n, 2n and 4n calls. The baseline is random pairs (distinct
  random pairs in random order, a coin for who is shown first, the product's fit with "="
  as half a win: `replay_study.random_pairs`, simulated outside the product). Spearman ρ
  against gold (Bradley–Terry over every vote of the topic, "=" as half a win).
- The default mock (`MockLLMProvider`), "0".."N-1" ranked by "larger number" (--mock-n,
  default 1,000 items), budgets n, 2n and 4n calls; Kendall's τ-b against the true order.

With --every-pair, A-optimal is also run with every pair a candidate (not only the
`choice.NEAREST` strength neighbours on either side): what the window costs in accuracy.

Figures: mean ± sd over topics × seeds (replay) or seeds (mock), and the paired difference
of each choice to neighbours, mean and its standard error.

Writes docs/benchmarks/NAME.json and NAME_table.txt, NAME being "pairing", or with --only
"pairing_replay" / "pairing_mock" (--name sets it). The figures in
docs/benchmarks/pairing.md come from `--only replay --seeds 20 --every-pair` and
`--only mock --mock-seeds 10 --every-pair`.

Usage:
    python scripts/pairing_study.py [--data ../shared/data/ukpconvarg1] [--seeds 10]
        [--mock-seeds 10] [--mock-n 1000] [--only replay|mock] [--every-pair] [--name NAME]
    python scripts/pairing_study.py --from-json docs/benchmarks/pairing_replay.json --only replay
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from llm_qualitative_sort import MockLLMProvider, QualitativeSorter, Swiss  # noqa: E402
from llm_qualitative_sort.metrics import kendall_tau  # noqa: E402
from llm_qualitative_sort.testing import (  # noqa: E402
    ReplayProvider,
    ReplayTopic,
    load_replay_topic,
)
from llm_qualitative_sort.tournament.swiss import choice  # noqa: E402
from replay_study import (  # noqa: E402
    CRITERIA,
    _by_rank,
    _fit,
    gold_strengths,
    random_pairs,
    scored,
)

MULTIPLES = (1, 2, 4)
CHOICES = ("neighbours", "a-optimal")
EVERY_PAIR = "a-optimal, every pair"
RANDOM = "random pairs"
OUT = Path(__file__).resolve().parent.parent / "docs" / "benchmarks"

# runs[part][name][multiple] = one figure per (topic ×) seed, in a fixed order
Runs = dict[str, dict[str, dict[str, list[float]]]]


async def sort(judge: Any, criteria: str, items: list[str], seed: int, budget: int,
               variant: str) -> Any:
    """One Swiss run with ties; `EVERY_PAIR` is A-optimal with every pair a candidate."""
    pairing = "a-optimal" if variant == EVERY_PAIR else variant
    sorter = QualitativeSorter(judge, criteria=criteria, seed=seed, checkpointer=None,
                               max_concurrent_requests=1000,
                               strategy=Swiss(budget=budget, ties=True, pairing=pairing))
    nearest = choice.NEAREST
    if variant == EVERY_PAIR:
        choice.NEAREST = len(items)
    try:
        return await sorter.sort(items)
    finally:
        choice.NEAREST = nearest


async def replay_topic(topic: ReplayTopic, seed: int, variants: Sequence[str]
                       ) -> dict[str, dict[str, float]]:
    """ρ of random pairs and of each pairing choice at n, 2n, 4n calls (name → m → ρ)."""
    n, gold = len(topic.ids), gold_strengths(topic)
    out: dict[str, dict[str, float]] = {RANDOM: {}, **{c: {} for c in variants}}
    for m in MULTIPLES:
        first, second, _won, ties = await random_pairs(
            topic, ReplayProvider(topic, seed=seed), m * n, seed)
        out[RANDOM][str(m)] = scored(_fit(n, first, second, ties), gold)["rho"]
        for name in variants:
            result = await sort(ReplayProvider(topic, seed=seed), CRITERIA, list(topic.texts),
                                seed, m * n, name)
            out[name][str(m)] = scored(_by_rank(result.rankings, topic.texts), gold)["rho"]
    return out


async def mock_seed(n: int, seed: int, variants: Sequence[str]
                    ) -> dict[str, dict[str, float]]:
    """τ-b of each pairing choice on the default mock at n, 2n, 4n calls."""
    items = [str(i) for i in range(n)]
    out: dict[str, dict[str, float]] = {c: {} for c in variants}
    for m in MULTIPLES:
        for name in variants:
            started = time.perf_counter()
            result = await sort(MockLLMProvider(seed=seed), "larger number", items, seed,
                                m * n, name)
            out[name][str(m)] = kendall_tau(result.rankings, items[::-1])
            print(f"  mock n={n} seed {seed} {m}n {name}: τ-b {out[name][str(m)]:.4f}, "
                  f"{time.perf_counter() - started:.0f} s", flush=True)
    return out


def collect(runs: Runs, part: str, figures: dict[str, dict[str, float]]) -> None:
    for name, by_m in figures.items():
        for m, value in by_m.items():
            runs.setdefault(part, {}).setdefault(name, {}).setdefault(m, []).append(value)


async def study(args: argparse.Namespace) -> Runs:
    runs: Runs = {}
    variants = [*CHOICES, *([EVERY_PAIR] if args.every_pair else [])]
    if args.only in (None, "replay"):
        started = time.perf_counter()
        for path in sorted(Path(args.data).glob("*.json")):
            topic = load_replay_topic(path)
            for seed in range(args.seeds):
                collect(runs, "replay", await replay_topic(topic, seed, variants))
            print(f"{topic.name[:50]}: {time.perf_counter() - started:.0f} s", flush=True)
    if args.only in (None, "mock"):
        for seed in range(args.mock_seeds):
            collect(runs, "mock", await mock_seed(args.mock_n, seed, variants))
    return runs


def table(runs: Runs) -> list[str]:
    lines = []
    for part, metric in (("replay", "Spearman ρ"), ("mock", "Kendall τ-b")):
        if part not in runs:
            continue
        names = list(runs[part])
        count = len(runs[part][names[0]]["1"])
        lines.append(f"{part}: {metric}, mean ± sd over {count} runs; "
                     "Δ = paired difference to neighbours, mean (standard error)")
        lines.append(f"{'':<22}" + "".join(f"{f'{m}n calls':>18}" for m in MULTIPLES)
                     + "".join(f"{f'Δ at {m}n':>18}" for m in MULTIPLES))
        for name in names:
            cells = [_mean_sd(runs[part][name][str(m)]) for m in MULTIPLES]
            cells += [_paired(runs[part][name][str(m)], runs[part]["neighbours"][str(m)])
                      for m in MULTIPLES]
            lines.append(f"{name:<22}" + "".join(f"{cell:>18}" for cell in cells))
        lines.append("")
    return lines


def _mean_sd(values: Sequence[float]) -> str:
    return f"{np.mean(values):.3f} ± {np.std(values):.3f}"


def _paired(values: Sequence[float], base: Sequence[float]) -> str:
    diff = np.asarray(values) - np.asarray(base)
    return f"{diff.mean():+.3f} ({diff.std() / np.sqrt(diff.size):.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2]
                                              / "shared" / "data" / "ukpconvarg1"))
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--mock-seeds", type=int, default=10)
    parser.add_argument("--mock-n", type=int, default=1000)
    parser.add_argument("--only", choices=("replay", "mock"))
    parser.add_argument("--every-pair", action="store_true",
                        help="add A-optimal with every pair a candidate (the window's cost)")
    parser.add_argument("--name", help="file names under --out (default: pairing[_ONLY])")
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--from-json", help="write the table again from this JSON file")
    args = parser.parse_args()
    out = Path(args.out)
    name = args.name or ("pairing" if args.only is None else f"pairing_{args.only}")
    if args.from_json:
        runs = json.loads(Path(args.from_json).read_text(encoding="utf-8"))
        (out / f"{name}_table.txt").write_text("\n".join(table(runs)), encoding="utf-8")
        return
    runs = asyncio.run(study(args))
    (out / f"{name}.json").write_text(json.dumps(runs, indent=1) + "\n", encoding="utf-8")
    (out / f"{name}_table.txt").write_text("\n".join(table(runs)), encoding="utf-8")
    print("\n".join(table(runs)))


if __name__ == "__main__":
    main()
