"""Swiss pairing variants replayed on UKPConvArg1: which pairs should a Swiss round choose?

Data: UKPConvArg1 (Habernal & Gurevych, ACL 2016, https://aclanthology.org/P16-1150),
CC-BY 4.0. Drives `SwissStrategy.plan` / `update` directly with `ReplayProvider` as the judge (one
call per match, no graph), replacing only the choice of pairs in the Swiss phase:

- neighbours: the product's pairing (strength neighbours, no rematch while avoidable);
- random: a random matching, avoiding rematches;
- blocks: random matchings within strength blocks that halve every round;
- uncertain: greedy on the least certain order, |Δμ| / √(1 + σᵢ² + σⱼ²);
- oracle: the product's pairing on the *gold* strengths (what neighbour pairing could do
  if the order were known).

Prints Spearman ρ against gold (Bradley–Terry over every vote, "=" as half a win) at n, 2n
and 4n calls, mean ± sd over topics × seeds, and the paired difference to the first
variant named. Findings: docs/replay_study.md ("Why Swiss does not help here").

Usage:
    python scripts/replay_pairing_variants.py neighbours,random,uncertain [--seeds 3] [--ties]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
from collections import Counter
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from llm_qualitative_sort.bradley_terry import fit_bradley_terry  # noqa: E402
from llm_qualitative_sort.testing import (  # noqa: E402
    ReplayProvider,
    ReplayTopic,
    load_replay_topic,
)
from llm_qualitative_sort.tournament import match_winner  # noqa: E402
from llm_qualitative_sort.tournament.base import RoundPlan, Standing  # noqa: E402
from llm_qualitative_sort.tournament.swiss import Swiss, SwissStrategy  # noqa: E402
from llm_qualitative_sort.tournament.swiss.evidence import (  # noqa: E402
    gather_evidence,
    pair_key,
    strength_order,
)
from llm_qualitative_sort.tournament.swiss.pairing import choose_bye, orient  # noqa: E402
from replay_study import gold_strengths, scored  # noqa: E402

VARIANTS = ("neighbours", "random", "blocks", "uncertain", "oracle")
MULTIPLES = (1, 2, 4)
Pairs = list[tuple[int, int]]


def run_now(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine that never awaits anything pending (the replay judge's)."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    raise RuntimeError("the judge awaited something")


def random_matching(items: Sequence[int], meetings: Counter[tuple[int, int]],
                    rng: random.Random) -> Pairs:
    """The random matching of `items` with the fewest rematches among 20 draws."""
    best: tuple[int, Pairs] | None = None
    for _ in range(20):
        order = list(items)
        rng.shuffle(order)
        pairs = [(order[k], order[k + 1]) for k in range(0, len(order) - 1, 2)]
        rematches = sum(1 for a, b in pairs if meetings.get(pair_key(a, b)))
        if best is None or rematches < best[0]:
            best = (rematches, pairs)
        if rematches == 0:
            break
    assert best is not None
    return best[1]


class Variant(SwissStrategy):
    """Swiss with another choice of pairs in the Swiss phase (refinement unchanged)."""

    pairing = "neighbours"
    gold: Sequence[float] = ()

    def plan(self, standing: Standing, history: Sequence[Any], round_number: int) -> RoundPlan:
        """The round's matches under this variant's pairing."""
        if self.pairing == "oracle" and standing["phase"] == "swiss":
            standing = dict(standing, strengths=[float(x) for x in self.gold])
        if self.pairing in ("neighbours", "oracle") or standing["phase"] != "swiss":
            return super().plan(standing, history, round_number)
        evidence = gather_evidence(history, self.n_items)
        rng = self.rng(round_number)
        order = strength_order(standing["strengths"], rng)
        bye = choose_bye(order, standing["last_bye"], rng)
        order = [i for i in order if i != bye]
        if self.pairing == "random":
            pairs = random_matching(order, evidence.meetings, rng)
        elif self.pairing == "blocks":
            size = max(2, int(len(order) / 2 ** (round_number - 1)))
            size += size % 2
            pairs = [pair for k in range(0, len(order), size)
                     for pair in random_matching(order[k:k + size], evidence.meetings, rng)]
        else:
            pairs = self._least_certain(order, evidence, rng)
        pairs = pairs[: self._affordable(self.swiss_budget - standing["used"])]
        pairs = orient(pairs, list(evidence.shown_first), rng)
        return RoundPlan(self._fresh(pairs, evidence.meetings), bye)

    def _least_certain(self, order: Sequence[int], evidence: Any, rng: random.Random) -> Pairs:
        fit = fit_bradley_terry(self.n_items, evidence.first, evidence.second,
                                evidence.first_won, uncertainty=True)
        mu, se = fit.strengths, fit.standard_errors
        candidates = []
        for x, i in enumerate(order):
            for j in order[x + 1:]:
                z = abs(mu[i] - mu[j]) / math.sqrt(1 + se[i] ** 2 + se[j] ** 2)
                penalty = 10 * evidence.meetings.get(pair_key(i, j), 0)
                candidates.append((z + penalty + 1e-9 * rng.random(), i, j))
        candidates.sort()
        used: set[int] = set()
        pairs: Pairs = []
        for _, i, j in candidates:
            if i not in used and j not in used:
                used |= {i, j}
                pairs.append((i, j))
        return pairs


def play(topic: ReplayTopic, seed: int, budget: int, pairing: str, ties: bool) -> list[float]:
    """One Swiss run of `budget` calls; each argument's score (higher = better)."""
    n = len(topic.ids)
    judge = ReplayProvider(topic, seed=seed)
    variant = type("V", (Variant,), {"pairing": pairing, "gold": gold_strengths(topic)})
    strategy = variant(Swiss(comparison_rounds=1, budget=budget), n, seed)
    standing = strategy.start()
    history: list[dict[str, Any]] = []
    round_number = 0
    while not strategy.finished(standing):
        round_number += 1
        plan = strategy.plan(standing, history, round_number)
        matches = []
        for m in plan.matches:
            result = run_now(judge.compare_call(topic.texts[m.a], topic.texts[m.b], "convincing",
                                                repetition=m.first_repetition, ties=ties))
            call = ["AB", result.winner, "", False, 0, 0]
            matches.append([m.a, m.b, match_winner([result.winner]), [call]])
        history.append({"matches": matches, "bye": plan.bye})
        standing = strategy.update(standing, history).standing
    score = [0.0] * n
    for rank, group in strategy.rank(standing, history):
        for i in group:
            score[i] = -float(rank)
    return score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", help=f"comma-separated, from {', '.join(VARIANTS)}")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--ties", action="store_true", help="'=' votes as tie verdicts")
    parser.add_argument("--data", type=Path, default=Path("../shared/data/ukpconvarg1"))
    args = parser.parse_args()
    variants = args.variants.split(",")
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        parser.error(f"unknown variants: {', '.join(sorted(unknown))}")
    rho: dict[tuple[int, str], list[float]] = {}
    for path in sorted(args.data.glob("*.json")):
        topic = load_replay_topic(path)
        gold = gold_strengths(topic)
        for seed in range(args.seeds):
            for m in MULTIPLES:
                for name in variants:
                    score = play(topic, seed, m * len(topic.ids), name, args.ties)
                    rho.setdefault((m, name), []).append(scored(score, gold)["rho"])
    for m in MULTIPLES:
        base = rho[(m, variants[0])]
        for name in variants:
            values = rho[(m, name)]
            diffs = np.subtract(values, base)
            se = statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else 0.0
            sd = statistics.stdev(values) if len(values) > 1 else 0.0
            print(f"{m}n {name:10} ρ {statistics.fmean(values):.3f} ± {sd:.3f}  "
                  f"paired {float(np.mean(diffs)):+.3f} (SE {se:.3f})")


if __name__ == "__main__":
    main()
