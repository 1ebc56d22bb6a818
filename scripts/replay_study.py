"""Strategies replayed on real human judgements (UKPConvArg1): ranking quality per call.

Data: UKPConvArg1, Habernal and Gurevych, "Which argument is more convincing? Analyzing and
predicting convincingness of Web arguments using bidirectional LSTM", ACL 2016
(https://aclanthology.org/P16-1150), CC-BY 4.0: 16 topics (one stance of each debate),
every pair of 25–35 arguments with about five crowd votes each, in the order shown.

Each run ranks a topic's arguments with `ReplayProvider` as the judge: one stored vote per
call, a vote made with the other argument first flipped, an "=" vote a seeded coin flip
in runs without ties and a tie verdict in runs with `ties=True`. Gold = Bradley–Terry over
every vote of the topic, "=" as half a win each side. For each topic (n arguments) and seed:
- random pairs + Bradley–Terry at n, 2n and 4n calls (a baseline of this script, not a
  strategy: distinct random pairs in random order, a coin for who is shown first, the
  product's fit with its position term); the same calls fitted with "=" as half a win (the
  product's tie rule) and with Davidson's tie model are shown beside it;
- Swiss with budget n, 2n, 4n (one call per match), plain, with top_k=5, and with ties;
- elimination with N=1 and N=2 (two calls per match), ranked by wins and by Bradley–Terry,
  at whatever calls they use; N=2 also with ties.
Spearman ρ and Kendall τ-b (scipy.stats) of each ranking against gold; mean ± sd over
topics × seeds, and paired differences against random pairs at the same calls.

Writes docs/replay_study.md, docs/replay_study.png and docs/replay_study.json
(`--from-json` writes the table and plot again from the JSON).

Usage:
    python scripts/replay_study.py [--data ../shared/data/ukpconvarg1] [--seeds 5] [--out docs]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from scipy.optimize import minimize  # noqa: E402
from scipy.stats import kendalltau, spearmanr  # noqa: E402

from llm_qualitative_sort import Elimination, QualitativeSorter, Swiss  # noqa: E402
from llm_qualitative_sort.bradley_terry import fit_bradley_terry  # noqa: E402
from llm_qualitative_sort.testing import (  # noqa: E402
    ReplayProvider,
    ReplayTopic,
    load_replay_topic,
)

CRITERIA = "Which argument is more convincing?"
MULTIPLES = (1, 2, 4)
RANDOM, RANDOM_TIES = "random pairs + BT", "random pairs + BT, '=' as half a win"
RANDOM_DAVIDSON = "random pairs + Davidson, '=' a tie"
SWISS: dict[str, dict[str, Any]] = {"Swiss": {}, "Swiss + top-5": {"top_k": 5},
                                    "Swiss, ties": {"ties": True}}
ELIMINATION: dict[str, dict[str, Any]] = {
    "elimination N=1": {"elimination_count": 1}, "elimination N=2": {"elimination_count": 2},
    "elimination N=2, ties": {"elimination_count": 2, "ties": True}}
NOTES = "<!-- notes: kept when the figures are written again -->"
ATTRIBUTION = ("Data: UKPConvArg1 (Habernal & Gurevych, ACL 2016, "
               "https://aclanthology.org/P16-1150), CC-BY 4.0.")

# runs[name] = one {"topic", "seed", "n", "calls", "rho", "tau"} per topic × seed
Runs = dict[str, list[dict[str, Any]]]


def gold_strengths(topic: ReplayTopic) -> np.ndarray:
    """Bradley–Terry over every stored vote of the topic, "=" as half a win each side."""
    return fit_bradley_terry(len(topic.ids), *topic.observations(), position=False,
                             uncertainty=False).strengths


def scored(predicted: Sequence[float], gold: np.ndarray) -> dict[str, float]:
    """Spearman ρ and Kendall τ-b of predicted scores (higher = better) against gold."""
    return {"rho": float(spearmanr(predicted, gold).statistic),
            "tau": float(kendalltau(predicted, gold).statistic)}


async def random_pairs(topic: ReplayTopic, judge: ReplayProvider, calls: int, seed: int
                       ) -> tuple[list[int], list[int], list[float], list[float]]:
    """`calls` calls on distinct random pairs (all pairs once before any repeats).

    Returns (first, second, first won, first won with "=" as 0.5) in presentation order.
    """
    rng = random.Random(f"replay-study/random/{topic.name}/{seed}")
    n = len(topic.ids)
    pairs: list[tuple[int, int]] = []
    while len(pairs) < calls:
        fresh = [(i, j) for i in range(n) for j in range(i + 1, n)]
        rng.shuffle(fresh)
        pairs += fresh
    repetitions: Counter[tuple[int, int]] = Counter()
    first, second, won, won_ties = [], [], [], []
    for i, j in pairs[:calls]:
        a, b = (i, j) if rng.random() < 0.5 else (j, i)
        result = await judge.compare_call(topic.texts[a], topic.texts[b], CRITERIA,
                                          repetition=repetitions[(a, b)])
        repetitions[(a, b)] += 1
        first.append(a)
        second.append(b)
        won.append(1.0 if result.winner == "A" else 0.0)
        won_ties.append(0.5 if result.raw_response["vote"] == "=" else won[-1])
    return first, second, won, won_ties


def _fit(n: int, first: list[int], second: list[int], won: list[float]) -> list[float]:
    return [float(s) for s in fit_bradley_terry(n, first, second, won,
                                                uncertainty=False).strengths]


def davidson(n: int, first: list[int], second: list[int], won: list[float]) -> list[float]:
    """Strengths under Davidson's tie model (1970), with the product's position term and prior.

    P(first wins) ∝ πf·e^h, P(second wins) ∝ πs, P(tie) ∝ ν·√(πf·e^h·πs); `won` holds 1, 0
    or 0.5 (a tie). The prior is the product's: per item, one pseudo-observation half won,
    half lost against a reference at 0.
    """
    f, s, w = np.asarray(first), np.asarray(second), np.asarray(won)
    outcome = np.where(w == 1.0, 0, np.where(w == 0.0, 1, 2))

    def loss(theta: np.ndarray) -> float:
        strengths, h, log_nu = theta[:n], theta[n], theta[n + 1]
        a, b = strengths[f] + h, strengths[s]
        logits = np.stack([a, b, log_nu + (a + b) / 2])
        log_p = logits - np.logaddexp.reduce(logits, axis=0)
        chosen = log_p[outcome, np.arange(len(outcome))]
        prior = 0.5 * (np.logaddexp(0, -strengths) + np.logaddexp(0, strengths)).sum()
        return float(-chosen.sum() + prior + 0.5 * (h**2 + log_nu**2) * 1e-3)

    fitted = minimize(loss, np.zeros(n + 2), method="L-BFGS-B").x
    return [float(v) for v in fitted[:n] - fitted[:n].mean()]


async def _sort(topic: ReplayTopic, seed: int, **settings: Any) -> Any:
    sorter = QualitativeSorter(ReplayProvider(topic, seed=seed), criteria=CRITERIA, seed=seed,
                               checkpointer=None, max_concurrent_requests=1000, **settings)
    return await sorter.sort(list(topic.texts))


def _by_rank(rankings: Any, texts: Sequence[str]) -> list[float]:
    rank = {text: r for r, group in rankings for text in group}
    return [-float(rank[text]) for text in texts]


async def play(topic: ReplayTopic, seed: int) -> dict[str, dict[str, Any]]:
    """Every strategy on one topic and seed: name → {calls, rho, tau}."""
    n, gold = len(topic.ids), gold_strengths(topic)
    out: dict[str, dict[str, Any]] = {}
    for m in MULTIPLES:
        first, second, won, ties = await random_pairs(topic, ReplayProvider(topic, seed=seed),
                                                      m * n, seed)
        out[f"{RANDOM} @{m}n"] = {"calls": m * n, **scored(_fit(n, first, second, won), gold)}
        out[f"{RANDOM_TIES} @{m}n"] = {"calls": m * n,
                                       **scored(_fit(n, first, second, ties), gold)}
        out[f"{RANDOM_DAVIDSON} @{m}n"] = {"calls": m * n,
                                           **scored(davidson(n, first, second, ties), gold)}
        for name, settings in SWISS.items():
            result = await _sort(topic, seed, strategy=Swiss(budget=m * n, **settings))
            out[f"{name} @{m}n"] = {"calls": result.statistics.total_api_calls,
                                    **scored(_by_rank(result.rankings, topic.texts), gold)}
    for name, settings in ELIMINATION.items():
        result = await _sort(topic, seed, strategy=Elimination(**settings))
        calls = result.statistics.total_api_calls
        scores = [result.scores[text] for text in topic.texts]
        out[f"{name}, wins"] = {"calls": calls,
                                **scored(_by_rank(result.rankings, topic.texts), gold)}
        out[f"{name}, BT"] = {"calls": calls, **scored(scores, gold)}
    return out


async def study(paths: Sequence[Path], seeds: int) -> Runs:
    started = time.perf_counter()
    runs: Runs = {}
    for path in paths:
        topic = load_replay_topic(path)
        for seed in range(seeds):
            for name, figures in (await play(topic, seed)).items():
                runs.setdefault(name, []).append(
                    {"topic": topic.name, "seed": seed, "n": len(topic.ids), **figures})
        print(f"{topic.name[:50]}: {time.perf_counter() - started:.0f} s", flush=True)
    return runs


def mean_sd(values: Sequence[float]) -> str:
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.fmean(values):.3f} ± {sd:.3f}"


def paired(runs: Runs, name: str, base: str, metric: str = "rho") -> str:
    """Per topic × seed difference `name − base`: mean ± sd (± standard error of the mean)."""
    diffs = [a[metric] - b[metric] for a, b in zip(runs[name], runs[base], strict=True)]
    se = statistics.stdev(diffs) / len(diffs) ** 0.5
    return f"{statistics.fmean(diffs):+.3f} ± {statistics.stdev(diffs):.3f} (SE {se:.3f})"


def _base_of(name: str) -> str | None:
    if "@" not in name or name.startswith(f"{RANDOM} @"):
        return None
    return f"{RANDOM} @{name.split('@')[1]}"


def table(runs: Runs) -> list[str]:
    lines = ["| strategy | calls / n | Spearman ρ | Kendall τ-b | ρ − random pairs, paired |",
             "|---|---|---|---|---|"]
    for name, rows in runs.items():
        per_item = statistics.fmean(r["calls"] / r["n"] for r in rows)
        base = _base_of(name)
        diff = paired(runs, name, base) if base else ""
        lines.append(f"| {name} | {per_item:.2f} | {mean_sd([r['rho'] for r in rows])} "
                     f"| {mean_sd([r['tau'] for r in rows])} | {diff} |")
    return lines


def plot(runs: Runs, path: Path) -> None:
    fig, ax = plt.subplots(figsize=(8, 5.5))
    families = [RANDOM, RANDOM_TIES, RANDOM_DAVIDSON, *SWISS]
    for family, style in zip(families, ["o-", "o:", "o--", "s-", "^-", "s:"], strict=True):
        names = [f"{family} @{m}n" for m in MULTIPLES]
        xs = [statistics.fmean(r["calls"] / r["n"] for r in runs[k]) for k in names]
        ys = [statistics.fmean(r["rho"] for r in runs[k]) for k in names]
        sds = [statistics.stdev(r["rho"] for r in runs[k]) for k in names]
        ax.errorbar(xs, ys, yerr=sds, fmt=style, capsize=3, label=family)
    for name in [k for k in runs if k.startswith("elimination")]:
        rows = runs[name]
        ax.errorbar([statistics.fmean(r["calls"] / r["n"] for r in rows)],
                    [statistics.fmean(r["rho"] for r in rows)],
                    yerr=[statistics.stdev(r["rho"] for r in rows)],
                    fmt="D" if "BT" in name else "x", capsize=3, label=name)
    ax.set_xlabel("calls / number of arguments")
    ax.set_ylabel("Spearman ρ against gold (BT over all votes)")
    ax.set_xticks(MULTIPLES)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    count = len(next(iter(runs.values())))
    ax.set_title(f"UKPConvArg1, 16 topics, mean ± sd over {count} topic × seed runs\n"
                 f"{ATTRIBUTION}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def write(runs: Runs, seeds: int, elapsed: float, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    plot(runs, out / "replay_study.png")
    topics = len({r["topic"] for r in next(iter(runs.values()))})
    text = [f"<!-- written by scripts/replay_study.py --seeds {seeds}; {elapsed:.0f} s -->",
            f"{ATTRIBUTION} {topics} topics × seeds 0..{seeds - 1}; one stored vote per call, "
            "'=' a seeded coin flip, except in the runs with ties (ties=True: '=' is a tie "
            "verdict, half a win for each side in the fit) and in the '=' as half a win and "
            "Davidson rows, which fit the same random calls as the plain random-pairs row with "
            "'=' as a tie. Gold: Bradley–Terry over every vote of the topic, "
            "'=' as half a win. Mean ± sd over topics × seeds; the paired column is the "
            "difference to random pairs + BT at the same budget, mean ± sd (SE).", "",
            *table(runs), "", "![ρ per call](replay_study.png)", ""]
    path = out / "replay_study.md"
    # Hand-written findings below the marker survive a rewrite of the figures.
    kept = path.read_text(encoding="utf-8").partition(NOTES)[2] if path.exists() else ""
    path.write_text("\n".join(text) + (NOTES + kept if kept else ""), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/ukpconvarg1"))
    parser.add_argument("--seeds", type=int, default=5, help="seeds per topic (default 5)")
    parser.add_argument("--out", type=Path, default=Path("docs"), help="output directory")
    parser.add_argument("--from-json", type=Path, help="write from a saved replay_study.json")
    args = parser.parse_args()
    started = time.perf_counter()
    if args.from_json:
        runs = json.loads(args.from_json.read_text(encoding="utf-8"))
    else:
        paths = sorted(args.data.glob("*.json"))
        if not paths:
            parser.error(f"no topic JSON files in {args.data}")
        runs = asyncio.run(study(paths, args.seeds))
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "replay_study.json").write_text(json.dumps(runs, indent=0),
                                                    encoding="utf-8")
    write(runs, args.seeds, time.perf_counter() - started, args.out)
    print(f"wrote {args.out / 'replay_study.md'} and {args.out / 'replay_study.png'}")


if __name__ == "__main__":
    main()
