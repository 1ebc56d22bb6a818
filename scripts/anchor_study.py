"""People's verdicts as an anchor, measured on real crowd votes (UKPConvArg1).

Data: UKPConvArg1, Habernal and Gurevych, "Which argument is more convincing? Analyzing and
predicting convincingness of Web arguments using bidirectional LSTM", ACL 2016
(https://aclanthology.org/P16-1150), CC-BY 4.0: 16 topics, every pair of a topic's 25–35
arguments with about five crowd votes each.

For each topic and seed:
- a share s (5 %, 10 %, 20 %) of the topic's single crowd votes is drawn as the people's
  verdicts a user would label by hand; the gold is Bradley–Terry over the other votes ("="
  half a win each side), so no verdict given to a fit is also in its gold;
- a simulated judge: its latent strength is the crowd's (Bradley–Terry over every vote of
  the topic) plus a length preference of +LENGTH logit per sd of log length beyond the
  crowd's own and an item-level error of sd ITEM_NOISE (what a judge gets wrong about an
  argument, the same in every call); it answers 2n calls on random pairs, one call each,
  first-shown order at random, with its per-call noise set so that two of its calls on one
  random pair agree 87 % of the time (FastChat's GPT-4 pairwise verdicts flip on 12.9 % of
  swapped pairs): far steadier than the crowd, two of whose votes on one pair agree about
  half the time (measured per topic and reported), but wrong about some arguments in the
  same way every time;
- three rankings at the same judge calls: the judge alone (Bradley–Terry with the position
  term), the people's verdicts alone (Bradley–Terry), and the judge anchored by the
  people's verdicts (`rating.anchored.fit_anchored`), plain and with log length as a
  covariate; Spearman ρ of each against the gold, and the share of arguments whose gold
  position lies inside the fit's 90 % position interval.

Writes docs/benchmarks/anchoring_table.txt (the table docs/benchmarks/anchoring.md shows)
and docs/benchmarks/anchoring.json (every run's figures).

Usage:
    python scripts/anchor_study.py [--data ../shared/data/ukpconvarg1] [--seeds 5]
        [--out docs/benchmarks]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import brentq
from scipy.stats import spearmanr

from llm_qualitative_sort.bradley_terry import BradleyTerryFit, fit_bradley_terry
from llm_qualitative_sort.rating.anchored import fit_anchored
from llm_qualitative_sort.rating.covariates import covariate_effects, length_feature
from llm_qualitative_sort.testing import ReplayTopic, load_replay_topic

SHARES = (0.05, 0.10, 0.20)
LENGTH = 0.5  # the judge's length preference beyond the crowd's, logit per sd
ITEM_NOISE = 0.5  # sd of the judge's fixed per-argument error, in the crowd's logits
CALLS = 2  # judge calls per argument
SELF_AGREEMENT = 0.87  # how often two of the judge's calls on one random pair agree
FITS = ("judge alone", "people alone", "anchored", "anchored + length")
ATTRIBUTION = ("Data: UKPConvArg1 (Habernal & Gurevych, ACL 2016, "
               "https://aclanthology.org/P16-1150), CC-BY 4.0.")


def votes_of(topic: ReplayTopic) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every single vote as (first, second, share won by first)."""
    first, second, share = topic.observations()
    return np.asarray(first), np.asarray(second), np.asarray(share, dtype=float)


def crowd_agreement(topic: ReplayTopic) -> float:
    """How often two votes on one pair agree (ties as their own answer), over all pairs."""
    agree = total = 0
    for votes in topic.votes.values():
        counts = [votes.count(v) for v in "12="]
        agree += sum(c * (c - 1) for c in counts)
        total += len(votes) * (len(votes) - 1)
    return agree / total


def judge_scale(latent: np.ndarray, target: float, rng: np.random.Generator) -> float:
    """The logit scale at which two calls on a random pair agree as often as `target`."""
    n = latent.size
    i = rng.integers(0, n, 4000)
    j = (i + rng.integers(1, n, 4000)) % n
    gaps = latent[i] - latent[j]

    def agreement(scale: float) -> float:
        p = 1 / (1 + np.exp(-scale * gaps))
        return float(np.mean(p**2 + (1 - p) ** 2)) - target

    if agreement(50.0) < 0:
        return 50.0
    if agreement(1e-3) > 0:
        return 1e-3
    return float(brentq(agreement, 1e-3, 50.0))


def positions(scores: np.ndarray) -> np.ndarray:
    out = np.empty(scores.size, dtype=int)
    out[np.argsort(-scores)] = np.arange(1, scores.size + 1)
    return out


def independent_intervals(fit: BradleyTerryFit, rng: np.random.Generator,
                          draws: int = 2000) -> tuple[np.ndarray, np.ndarray]:
    """90 % position intervals from the fit's strengths and standard errors, drawn apart."""
    samples = fit.strengths + rng.standard_normal((draws, fit.strengths.size)) \
        * fit.standard_errors
    ranks = np.argsort(np.argsort(-samples, axis=1), axis=1) + 1
    return (np.floor(np.quantile(ranks, 0.05, axis=0)),
            np.ceil(np.quantile(ranks, 0.95, axis=0)))


def one_run(topic: ReplayTopic, share: float, seed: int) -> dict[str, Any]:
    rng = np.random.default_rng([seed, int(share * 1000), len(topic.name)])
    n = len(topic.ids)
    first, second, won = votes_of(topic)
    given = rng.random(first.size) < share
    gold = fit_bradley_terry(n, first[~given], second[~given], won[~given], position=False,
                             uncertainty=False).strengths
    crowd = fit_bradley_terry(n, first, second, won, position=False,
                              uncertainty=False).strengths
    length = length_feature(topic.texts)
    latent = crowd + LENGTH * length + rng.normal(0, ITEM_NOISE, n)
    scale = judge_scale(latent, SELF_AGREEMENT, rng)
    a = rng.integers(0, n, CALLS * n)
    b = (a + rng.integers(1, n, CALLS * n)) % n
    judge_won = (rng.random(a.size) < 1 / (1 + np.exp(-scale * (latent[a] - latent[b])))
                 ).astype(float)
    judge = fit_bradley_terry(n, a, b, judge_won)
    people = fit_bradley_terry(n, first[given], second[given], won[given], position=False)
    anchored = fit_anchored(judge.strengths, judge.standard_errors, first=first[given],
                            second=second[given], first_won=won[given])
    with_length = fit_anchored(judge.strengths, judge.standard_errors, first=first[given],
                               second=second[given], first_won=won[given],
                               covariates=length)
    gold_position = positions(gold)
    row: dict[str, Any] = {"topic": topic.name, "seed": seed, "share": share, "n": n,
                           "verdicts": int(given.sum()), "scale": scale,
                           "crowd agreement": crowd_agreement(topic),
                           "anchor_scale": anchored.scale, "distance": anchored.distance}
    for name, scores in zip(FITS, (judge.strengths, people.strengths, anchored.strengths,
                                   with_length.strengths), strict=True):
        row[name] = float(spearmanr(scores, gold).statistic)
    for name, fit in (("anchored", anchored), ("anchored + length", with_length)):
        low, high = fit.rank_intervals(0.9, seed=seed)
        row[f"coverage {name}"] = float(np.mean((low <= gold_position)
                                                & (gold_position <= high)))
    low, high = independent_intervals(judge, rng)
    row["coverage judge alone"] = float(np.mean((low <= gold_position)
                                                & (gold_position <= high)))
    row["judge length effect"] = covariate_effects(
        judge.strengths, judge.standard_errors, {"length": length})["length"].beta
    row["people length effect"] = covariate_effects(
        people.strengths, people.standard_errors, {"length": length})["length"].beta
    return row


def summary(rows: list[dict[str, Any]]) -> str:
    lines = ["| verdicts given | per argument | " + " | ".join(FITS)
             + " | anchored − better source (paired, SE) | 90 % coverage: anchored | judge alone |",
             "|---" * (len(FITS) + 6) + "|"]
    for share in SHARES:
        part = [r for r in rows if r["share"] == share]
        per_item = np.mean([2 * r["verdicts"] / r["n"] for r in part])
        cells = [f"{np.mean([r[f] for r in part]):.3f} ± {np.std([r[f] for r in part]):.3f}"
                 for f in FITS]
        gains = [r["anchored"] - max(r["judge alone"], r["people alone"]) for r in part]
        se = np.std(gains) / np.sqrt(len(gains))
        anchored = np.mean([r["coverage anchored"] for r in part])
        alone = np.mean([r["coverage judge alone"] for r in part])
        lines.append(f"| {share:.0%} | {per_item:.1f} | " + " | ".join(cells)
                     + f" | {np.mean(gains):+.3f} ({se:.3f}) | {anchored:.0%} | {alone:.0%} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared"
                                              / "data" / "ukpconvarg1"))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--out", default="docs/benchmarks")
    args = parser.parse_args()
    topics = [load_replay_topic(p) for p in sorted(Path(args.data).glob("*.json"))]
    started = time.perf_counter()
    rows = [one_run(topic, share, seed) for topic in topics for share in SHARES
            for seed in range(args.seeds)]
    elapsed = time.perf_counter() - started
    out = Path(args.out)
    (out / "anchoring.json").write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    table = summary(rows)
    (out / "anchoring_table.txt").write_text(table + "\n", encoding="utf-8")
    judge_length = np.mean([r["judge length effect"] for r in rows])
    people_length = np.mean([r["people length effect"] for r in rows if r["share"] == 0.2])
    print(table)
    crowd = np.mean([r["crowd agreement"] for r in rows])
    print(f"{len(topics)} topics x {args.seeds} seeds x {len(SHARES)} shares in {elapsed:.0f} s; "
          f"length effect: judge {judge_length:+.2f}, people (20 %) {people_length:+.2f}; "
          f"two crowd votes on one pair agree {crowd:.0%}")


if __name__ == "__main__":
    main()
