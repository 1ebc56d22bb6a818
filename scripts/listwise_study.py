"""Ranking calls and information-chosen pairs, on a replay proxy of UKPConvArg1's votes.

Data: UKPConvArg1 (Habernal & Gurevych, ACL 2016, https://aclanthology.org/P16-1150),
CC-BY 4.0: 16 topics, every pair of 25–35 arguments with about five crowd votes each.

The proxy. The data hold pairwise votes only, so a call that ranks k arguments is answered
pair by pair: each pair it implies gets one stored crowd vote of that pair, drawn at random
("=" a tie, half a win each side), and a share q of those answers is replaced by a coin
flip, to mimic a listwise judge that judges each pair worse than a pairwise call would. A
pairwise call is one stored vote. This is optimistic for ranking calls (a real judge's order
of k texts is not k(k−1)/2 independent verdicts, and longer prompts judge worse), which is
what q stands in for.

Designs, each in rounds of disjoint calls (n/2 pairs or n/k groups a round), the first
round at random:
- random pairs: a random matching each round;
- neighbours: pairs of neighbours in the current Bradley–Terry order (what Swiss pairing
  does on noisy votes, without its other rules);
- A-optimal pairs: `rating.design.choose_pairs` on the Laplace posterior;
- random groups of k, A-optimal groups of k (`rating.design.choose_groups`), and
  neighbour groups of k (consecutive runs of the current order: what Swiss with
  `group_size=k` plays, without its rule for who sits out).
Every design is fitted with Bradley–Terry over all its answers, ties half a win (for a
ranking call: every implied pair, each counting once, or 2/k where the design says "2/k":
the weight Swiss gives them, `tournament.swiss.groups.pair_weight`). Spearman ρ against
the gold (Bradley–Terry over every vote), at n, 2n and 4n calls; mean ± sd over topics ×
seeds, and the paired difference to random pairs at the same calls. A ranking call of k
shows k texts, a pairwise one 2: at equal texts shown (about equal input tokens), k = 4 at
n calls stands beside pairs at 2n.

Writes docs/benchmarks/listwise_table.txt and docs/benchmarks/listwise.json.

Usage:
    python scripts/listwise_study.py [--data ../shared/data/ukpconvarg1] [--seeds 5]
        [--out docs/benchmarks]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import spearmanr

from llm_qualitative_sort.bradley_terry import fit_bradley_terry
from llm_qualitative_sort.rating.design import (
    choose_groups,
    choose_pairs,
    pair_gains,
    posterior_covariance,
)
from llm_qualitative_sort.testing import ReplayTopic, load_replay_topic
from llm_qualitative_sort.tournament.swiss.groups import pair_weight

MULTIPLES = (1, 2, 4)
SHARE = {"1": 1.0, "2": 0.0, "=": 0.5}
DESIGNS: dict[str, dict[str, Any]] = {
    "random pairs": {"k": 2, "choice": "random"},
    "neighbours": {"k": 2, "choice": "neighbours"},
    "A-optimal pairs": {"k": 2, "choice": "optimal"},
    "random groups of 4, q=0": {"k": 4, "choice": "random", "q": 0.0},
    "random groups of 4, q=0.25": {"k": 4, "choice": "random", "q": 0.25},
    "random groups of 4, q=0.5": {"k": 4, "choice": "random", "q": 0.5},
    "A-optimal groups of 4, q=0": {"k": 4, "choice": "optimal", "q": 0.0},
    "A-optimal groups of 4, q=0.25": {"k": 4, "choice": "optimal", "q": 0.25},
    "A-optimal groups of 4, q=0.5": {"k": 4, "choice": "optimal", "q": 0.5},
    "neighbour groups of 4, q=0": {"k": 4, "choice": "neighbours", "q": 0.0},
    "neighbour groups of 4, q=0.25": {"k": 4, "choice": "neighbours", "q": 0.25},
    "neighbour groups of 4, q=0, 2/k": {"k": 4, "choice": "neighbours", "q": 0.0,
                                        "weight": True},
    "neighbour groups of 4, q=0.25, 2/k": {"k": 4, "choice": "neighbours", "q": 0.25,
                                           "weight": True},
    "A-optimal groups of 4, q=0.25, 2/k": {"k": 4, "choice": "optimal", "q": 0.25,
                                           "weight": True},
}


class Votes:
    """A topic's stored votes, answered one at a time in either order."""

    def __init__(self, topic: ReplayTopic) -> None:
        index = {item: i for i, item in enumerate(topic.ids)}
        self.n = len(topic.ids)
        self.votes: dict[tuple[int, int], list[float]] = {}
        for (x, y), stored in topic.votes.items():
            i, j = index[x], index[y]
            self.votes[(i, j)] = [SHARE[v] for v in stored]
            self.votes[(j, i)] = [1 - SHARE[v] for v in stored]

    def answer(self, i: int, j: int, q: float, rng: np.random.Generator) -> float:
        """The share i wins: one stored vote, or with probability q a coin flip."""
        if q and rng.random() < q:
            return float(rng.integers(0, 2))
        stored = self.votes[(i, j)]
        return stored[int(rng.integers(0, len(stored)))]


def gold_of(topic: ReplayTopic) -> np.ndarray:
    first, second, share = topic.observations()
    return fit_bradley_terry(len(topic.ids), first, second, share, position=False,
                             uncertainty=False).strengths


def play(votes: Votes, design: dict[str, Any], calls: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n, k, q = votes.n, design["k"], design.get("q", 0.0)
    first: list[int] = []
    second: list[int] = []
    won: list[float] = []
    weight = pair_weight(k) if design.get("weight") else 1.0
    strengths = np.zeros(n)
    made = 0
    while made < calls:
        if not first or design["choice"] == "random":
            order = rng.permutation(n)
            groups = [tuple(int(x) for x in order[s:s + k]) for s in range(0, n - k + 1, k)]
        elif design["choice"] == "neighbours":
            order = np.argsort(-strengths + rng.random(n) * 1e-9)
            groups = [tuple(int(x) for x in order[s:s + k]) for s in range(0, n - k + 1, k)]
        else:
            gains = pair_gains(posterior_covariance(n, first, second, strengths), strengths)
            groups = (list(choose_pairs(gains, range(n), rng)) if k == 2
                      else choose_groups(gains, range(n), k, rng))
        for group in groups[: calls - made]:
            for a_index, a in enumerate(group):
                for b in group[a_index + 1:]:
                    first.append(a)
                    second.append(b)
                    won.append(votes.answer(a, b, q, rng))
            made += 1
        strengths = fit_bradley_terry(n, first, second, won, position=False,
                                      uncertainty=False,
                                      weight=None if weight == 1.0 else
                                      np.full(len(won), weight)).strengths
    return strengths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared"
                                              / "data" / "ukpconvarg1"))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--out", default="docs/benchmarks")
    parser.add_argument("--designs", nargs="+", default=list(DESIGNS))
    args = parser.parse_args()
    started = time.perf_counter()
    chosen = {name: DESIGNS[name] for name in ["random pairs", *args.designs]}
    rho: dict[str, dict[int, list[float]]] = {name: {m: [] for m in MULTIPLES}
                                              for name in chosen}
    for path in sorted(Path(args.data).glob("*.json")):
        topic = load_replay_topic(path)
        votes, gold = Votes(topic), gold_of(topic)
        for seed in range(args.seeds):
            for name, design in chosen.items():
                for m in MULTIPLES:
                    found = play(votes, design, m * votes.n, seed)
                    rho[name][m].append(float(spearmanr(found, gold).statistic))
    elapsed = time.perf_counter() - started
    lines = ["| design | texts per call | " + " | ".join(f"ρ at {m}n calls" for m in MULTIPLES)
             + " | − random pairs at 2n (paired, SE) | − random pairs at 4n |",
             "|---" * (len(MULTIPLES) + 4) + "|"]
    for name, design in chosen.items():
        cells = [f"{np.mean(rho[name][m]):.3f} ± {np.std(rho[name][m]):.3f}"
                 for m in MULTIPLES]
        for m in (2, 4):
            diff = np.asarray(rho[name][m]) - np.asarray(rho["random pairs"][m])
            cells.append(f"{diff.mean():+.3f} ({diff.std() / np.sqrt(diff.size):.3f})")
        lines.append(f"| {name} | {design['k']} | " + " | ".join(cells) + " |")
    table = "\n".join(lines)
    out = Path(args.out)
    (out / "listwise_table.txt").write_text(table + "\n", encoding="utf-8")
    (out / "listwise.json").write_text(json.dumps(
        {name: {f"{m}n": values for m, values in by.items()} for name, by in rho.items()})
        + "\n", encoding="utf-8")
    print(table)
    print(f"{args.seeds} seeds x 16 topics in {elapsed:.0f} s")


if __name__ == "__main__":
    main()
