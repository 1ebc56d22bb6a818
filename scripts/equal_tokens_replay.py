"""Ranking calls of 4 against pairs at equal tokens, on the UKPConvArg1 replay proxy.

The proxy, the designs and the fit are those of scripts/listwise_study.py (imported from
it): each implied pair of a ranking call answered by one stored crowd vote, a share q of
them replaced by a coin flip; rounds of disjoint calls, neighbours in the current
Bradley–Terry order; implied pairs at weight 2/k, as Swiss fits them. What differs is the
unit of the budget: tokens, not calls. Each topic's tokens per call are the product's
estimate from its arguments (`tournament.swiss.tokens.estimates`: the built-in prompt around
the texts a call shows, four characters a token, 150 tokens of answer); a budget of T
tokens pays for T // (tokens of a call) calls of each design. T is the tokens of 2n and 4n
pairwise calls.

Spearman ρ against the gold (Bradley–Terry over every vote), mean ± sd over 16 topics ×
seeds, and the paired difference to neighbour pairs at the same tokens (± its standard
error). Writes docs/benchmarks/equal_tokens_replay_table.txt and equal_tokens_replay.json.

Usage:
    python scripts/equal_tokens_replay.py [--data ../shared/data/ukpconvarg1] [--seeds 5]
        [--out docs/benchmarks]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import spearmanr

from llm_qualitative_sort.testing import load_replay_topic
from llm_qualitative_sort.tournament.swiss.tokens import estimates

sys.path.insert(0, str(Path(__file__).resolve().parent))
from listwise_study import Votes, gold_of, play  # noqa: E402

CRITERIA = "Which argument is more convincing?"
MULTIPLES = (2, 4)
DESIGNS: dict[str, dict[str, Any]] = {
    "neighbour pairs": {"k": 2, "choice": "neighbours"},
    "neighbour groups of 4, q=0": {"k": 4, "choice": "neighbours", "q": 0.0, "weight": True},
    "neighbour groups of 4, q=0.25": {"k": 4, "choice": "neighbours", "q": 0.25,
                                      "weight": True},
    "neighbour groups of 4, q=0.5": {"k": 4, "choice": "neighbours", "q": 0.5,
                                     "weight": True},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared"
                                              / "data" / "ukpconvarg1"))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--out", default="docs/benchmarks")
    args = parser.parse_args()
    started = time.perf_counter()
    rho: dict[str, dict[int, list[float]]] = {name: {m: [] for m in MULTIPLES}
                                              for name in DESIGNS}
    ratios: list[float] = []
    for path in sorted(Path(args.data).glob("*.json")):
        topic = load_replay_topic(path)
        votes, gold = Votes(topic), gold_of(topic)
        pair = estimates(topic.texts, CRITERIA, 2).pair
        group = estimates(topic.texts, CRITERIA, 4).group
        ratios.append(group / pair)
        for seed in range(args.seeds):
            for name, design in DESIGNS.items():
                each = pair if design["k"] == 2 else group
                for m in MULTIPLES:
                    calls = m * votes.n * pair // each
                    found = play(votes, design, calls, seed)
                    rho[name][m].append(float(spearmanr(found, gold).statistic))
    elapsed = time.perf_counter() - started
    lines = [f"| design (a call of 4 ≈ {np.mean(ratios):.2f} × a pair's tokens) | "
             + " | ".join(f"ρ at the tokens of {m}n pairs | − pairs (SE)" for m in MULTIPLES)
             + " |", "|---" * (1 + 2 * len(MULTIPLES)) + "|"]
    for name in DESIGNS:
        cells = []
        for m in MULTIPLES:
            values = np.asarray(rho[name][m])
            diff = values - np.asarray(rho["neighbour pairs"][m])
            cells += [f"{values.mean():.3f} ± {values.std():.3f}",
                      "—" if name == "neighbour pairs" else
                      f"{diff.mean():+.3f} ({diff.std(ddof=1) / np.sqrt(diff.size):.3f})"]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    table = "\n".join(lines)
    out = Path(args.out)
    (out / "equal_tokens_replay_table.txt").write_text(table + "\n", encoding="utf-8")
    (out / "equal_tokens_replay.json").write_text(json.dumps(
        {"seeds": args.seeds, "group_over_pair_tokens": ratios,
         "rho": {name: {f"{m}n": v for m, v in by.items()} for name, by in rho.items()}})
        + "\n", encoding="utf-8")
    print(table)
    print(f"{args.seeds} seeds x {len(ratios)} topics in {elapsed:.0f} s")


if __name__ == "__main__":
    main()
