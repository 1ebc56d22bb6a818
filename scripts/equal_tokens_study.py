"""Swiss group size 4 against 2 at equal tokens, on the mock, with the real sorter.

Every run is `QualitativeSorter` with `Swiss(group_size=k, budget_tokens=T)` (a call
budget far above what T pays for, so the tokens end every run) on n texts of `--chars`
characters each, the number i in front ("0042 xxxx…"), judged by `MockLLMProvider(seed)`
on those numbers (sd 3.33 per text, as in scripts/group_size_study.py). The mock reports
no tokens, so each call counts at the product's estimate from the texts: the built-in
prompt around the texts a call shows, four characters a token, and 150 tokens of answer;
a ranking call of 4 then takes about 1.5 × a pairwise call at 1,000 characters a text.

T is a multiple of n pairwise calls' tokens (`--budgets 2 4`: the tokens of 2n and 4n
pairwise calls). τ-b is Kendall's between the ranking and the true order, mean ± sd over
the seeds, with the paired difference of k = 4 to k = 2 (mean and its standard error).

Writes docs/benchmarks/equal_tokens_table[_N].txt and equal_tokens[_N].json.

Usage:
    python scripts/equal_tokens_study.py [--n 1000] [--seeds 5] [--budgets 2 4]
        [--chars 1000] [--out docs/benchmarks]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

import numpy as np
from scipy.stats import kendalltau

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter, Swiss
from llm_qualitative_sort.tournament.swiss.tokens import estimates

CRITERIA = "larger"


def texts(n: int, chars: int) -> list[str]:
    """The numbers 0 … n−1, each padded to `chars` characters."""
    return [f"{i:05d} " + "x" * max(chars - 6, 0) for i in range(n)]


def value(text: str) -> float:
    """The mock's hidden value of a text: its number."""
    return float(text[:5])


async def run(items: list[str], size: int, tokens: int, seed: int) -> tuple[float, int, int]:
    """τ-b of one run against the true order, its calls and its tokens."""
    judge = MockLLMProvider(seed=seed, score=value)
    sorter = QualitativeSorter(judge, criteria=CRITERIA, seed=seed, checkpointer=None,
                               strategy=Swiss(group_size=size, budget=10 * len(items),
                                              budget_tokens=tokens),
                               max_concurrent_requests=64)
    result = await sorter.sort(items)
    rank = {item: r for r, group in result.rankings for item in group}
    tau = float(kendalltau([-rank[i] for i in items], [value(i) for i in items]).statistic)
    return tau, judge.calls, sorter_tokens(result.statistics.total_api_calls, items, size)


def sorter_tokens(calls: int, items: list[str], size: int) -> int:
    """The tokens the run counted: every call at the estimate (the mock reports none)."""
    known = estimates(items, CRITERIA, size)
    return calls * (known.group if size > 2 else known.pair)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--budgets", type=float, nargs="+", default=[2.0, 4.0],
                        help="token budgets as the tokens of this many × n pairwise calls")
    parser.add_argument("--chars", type=int, default=1000)
    parser.add_argument("--out", default="docs/benchmarks")
    args = parser.parse_args()
    started = time.perf_counter()
    items = texts(args.n, args.chars)
    pair = estimates(items, CRITERIA, 2).pair
    found: dict[str, dict[str, dict[str, list[float]]]] = {}
    for size in (2, 4):
        found[str(size)] = {}
        for multiple in args.budgets:
            tokens = int(multiple * args.n * pair)
            runs = [asyncio.run(run(items, size, tokens, seed)) for seed in range(args.seeds)]
            found[str(size)][f"{multiple:g}n"] = {
                "tau_b": [r[0] for r in runs], "calls": [r[1] for r in runs],
                "tokens": [r[2] for r in runs], "budget_tokens": [tokens] * len(runs)}
            print(size, f"{multiple:g}n", np.mean([r[0] for r in runs]).round(4),
                  runs[0][1:], flush=True)
    elapsed = time.perf_counter() - started
    group = estimates(items, CRITERIA, 4).group
    lines = [f"| n = {args.n:,}, {args.chars:,} characters a text, {args.seeds} seeds "
             f"(pair ≈ {pair} tokens a call, group of 4 ≈ {group}) | "
             + " | ".join(f"tokens of {b:g}n pairwise calls" for b in args.budgets) + " |",
             "|---" * (1 + len(args.budgets)) + "|"]
    for size in ("2", "4"):
        cells = []
        for b in args.budgets:
            entry = found[size][f"{b:g}n"]
            tau = np.asarray(entry["tau_b"])
            calls = int(np.mean(entry["calls"]))
            cells.append(f"τ-b {tau.mean():.4f} ± {tau.std():.4f} ({calls:,} calls)")
        lines.append(f"| group_size={size} | " + " | ".join(cells) + " |")
    cells = []
    for b in args.budgets:
        diff = (np.asarray(found["4"][f"{b:g}n"]["tau_b"])
                - np.asarray(found["2"][f"{b:g}n"]["tau_b"]))
        cells.append(f"{diff.mean():+.4f} (SE {diff.std(ddof=1) / np.sqrt(diff.size):.4f})")
    lines.append("| 4 − 2, paired | " + " | ".join(cells) + " |")
    table = "\n".join(lines)
    out = Path(args.out)
    suffix = "" if args.n == 1000 else f"_{args.n}"
    (out / f"equal_tokens_table{suffix}.txt").write_text(table + "\n", encoding="utf-8")
    (out / f"equal_tokens{suffix}.json").write_text(json.dumps(
        {"n": args.n, "seeds": args.seeds, "chars": args.chars, "pair_tokens": pair,
         "group_tokens": group, "runs": found}) + "\n", encoding="utf-8")
    print(table)
    print(f"{args.seeds} seeds in {elapsed:.0f} s")


if __name__ == "__main__":
    main()
