"""Pair choice, Swiss and ranking calls replayed on four corpora of human pairwise judgements.

Corpora (topics built by `scripts/corpora_build.py`, except UKPConvArg1, read as shipped
beside the repository): UKPConvArg1, Webis-ArgQuality-20, the comparative-judgement
sessions of Kinnear, Jones & Davies with at least 95 % of pairs judged, and WMT21 TED
en-de MQM (one vote per pair of a segment's translations from their MQM scores).

Every call is answered by one stored vote of the pair it shows ("=" a tie, half a win each
side); a pair no one judged has no stored vote, so a call on it gets no verdict. The gold
order of a topic is the UKP replay study's: Bradley–Terry over every stored vote of the
topic, ties half a win. At n, 2n and 4n calls (n = texts of the topic), per topic and seed:

- **random pairs + BT** (the baseline): distinct random stored pairs (all once before any
  repeats), fitted by Bradley–Terry with ties as half a win;
- **Swiss, ties**: the product's `QualitativeSorter` with `Swiss(budget, ties=True)`, its
  judge a `ReplayProvider` that answers a pair without stored votes with no verdict;
- **A-optimal pairs**: Swiss-like rounds of disjoint pairs, the first at random, each later
  one chosen greedily by `rating.design` (`posterior_covariance`, `pair_gains`,
  `choose_pairs`) among the stored pairs;
- **ranking calls of 4** (the replay proxy of `scripts/listwise_study.py`): rounds of
  disjoint random groups of 4, each implied pair answered by one stored vote, or with
  probability q by a coin flip (q = 0 and 0.25); at the baseline's number of calls, and at
  its number of input tokens.

Tokens per call are estimated as the built-in prompt's length without texts plus the texts
shown, at 4 characters a token; a ranking call of 4 shows 4 texts where a pairwise call
shows 2. The cj artefacts are not public, so their texts count `CJ_TEXT_TOKENS` each.

Spearman ρ and Kendall τ-b against the gold, mean ± sd over topics × seeds, and the
paired difference to the baseline. Each table ends with the best a strict order can score
(the gold's order with its ties broken at random): where the gold ties many texts (MQM),
no sorter's ranks reach 1. Writes docs/benchmarks/corpora_tables.txt (the tables)
and docs/benchmarks/corpora.svg (ρ per call), and every run to CACHE/corpora.json (too
large for the repository; `--from-json` writes the tables and plot again from it).

Usage:
    python scripts/corpora_study.py [--ukp DIR] [--cache DIR] [--seeds 10]
        [--corpora cj,ukp,webis,mqm] [--max-topics 0] [--out docs/benchmarks]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import statistics
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import ConstantInputWarning, kendalltau, spearmanr

from corpora_build import default_cache
from llm_qualitative_sort import ComparisonResult, PromptTemplate, QualitativeSorter, Swiss
from llm_qualitative_sort.bradley_terry import fit_bradley_terry
from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.rating.design import choose_pairs, pair_gains, posterior_covariance
from llm_qualitative_sort.testing import ReplayProvider, ReplayTopic, load_replay_topic

MULTIPLES = (1, 2, 4)
SHARE = {"1": 1.0, "2": 0.0, "=": 0.5}
CHARS_PER_TOKEN = 4
CJ_TEXT_TOKENS = 200
GROUP = 4
CORPORA = {"cj": "Comparative judgement (Kinnear, Jones & Davies), sessions ≥ 95 % judged",
           "ukp": "UKPConvArg1", "webis": "Webis-ArgQuality-20 (rhetorical quality)",
           "mqm": "WMT21 TED en-de, MQM"}
CRITERIA = {"cj": "Which is the better piece of work?",
            "ukp": "Which argument is more convincing?",
            "webis": "Which argument is better written and more persuasive?",
            "mqm": "Which German translation of the source is better?"}
BASELINE = "random pairs + BT"
SWISS = "Swiss, ties (the product)"
OPTIMAL = "A-optimal pairs (simulated)"
GROUPS = {f"ranking calls of 4, q={q:g}, {budget}": (q, budget)
          for budget in ("equal calls", "equal tokens") for q in (0.0, 0.25)}
# Not a design: the gold's own order with its ties broken at random, the best ρ any strict
# order (such as a sorter's ranks) can reach where the gold ties many texts (MQM).
CEILING = "gold order, ties broken at random"
DESIGNS = (BASELINE, SWISS, OPTIMAL, *GROUPS, CEILING)

# runs[corpus][design][f"{m}n"] = one {"topic", "seed", "n", "calls", "rho", "tau", ...}
Runs = dict[str, dict[str, dict[str, list[dict[str, Any]]]]]
Fitted = tuple[np.ndarray, int, int]  # strengths, calls made, calls that got a verdict


class Stored:
    """A topic's stored votes by index, each pair in both orders, and its token costs."""

    def __init__(self, topic: ReplayTopic, text_tokens: float | None, overhead: float) -> None:
        index = {item: i for i, item in enumerate(topic.ids)}
        self.n = len(topic.ids)
        self.votes: dict[tuple[int, int], list[float]] = {}
        for (x, y), stored in topic.votes.items():
            i, j = index[x], index[y]
            self.votes[(i, j)] = [SHARE[v] for v in stored]
            self.votes[(j, i)] = [1 - SHARE[v] for v in stored]
        self.pairs = sorted((i, j) for i, j in self.votes if i < j)
        self.judged = np.zeros((self.n, self.n), dtype=bool)
        for i, j in self.votes:
            self.judged[i, j] = True
        tokens = text_tokens or statistics.fmean(len(t) / CHARS_PER_TOKEN for t in topic.texts)
        self.text_tokens, self.overhead = tokens, overhead

    def answer(self, i: int, j: int, q: float, rng: np.random.Generator) -> float | None:
        """The share i wins: one stored vote, a coin flip with probability q, None if unjudged."""
        stored = self.votes.get((i, j))
        if stored is None:
            return None
        if q and rng.random() < q:
            return float(rng.integers(0, 2))
        return stored[int(rng.integers(0, len(stored)))]

    def group_calls(self, pair_calls: int, budget: str) -> int:
        """Ranking calls of 4 for the calls, or the input tokens, of `pair_calls` pair calls."""
        if budget == "equal calls":
            return pair_calls
        pair = self.overhead + 2 * self.text_tokens
        return round(pair_calls * pair / (self.overhead + GROUP * self.text_tokens))


class Answers:
    """The verdicts gathered so far, in the form the Bradley–Terry fit takes."""

    def __init__(self) -> None:
        self.first: list[int] = []
        self.second: list[int] = []
        self.won: list[float] = []

    def add(self, i: int, j: int, share: float | None) -> bool:
        if share is None:
            return False
        self.first.append(i)
        self.second.append(j)
        self.won.append(share)
        return True

    def strengths(self, n: int) -> np.ndarray:
        return fit_bradley_terry(n, self.first, self.second, self.won, position=False,
                                 uncertainty=False).strengths


def random_pairs(stored: Stored, calls: int, rng: np.random.Generator,
                 answers: Answers | None = None) -> Fitted:
    """`calls` calls on random stored pairs, every pair once before any repeats."""
    answers, order = answers or Answers(), []
    while len(order) < calls:
        order += [stored.pairs[k] for k in rng.permutation(len(stored.pairs))]
    for i, j in order[:calls]:
        answers.add(i, j, stored.answer(i, j, 0.0, rng))
    return answers.strengths(stored.n), calls, calls


def optimal_pairs(stored: Stored, calls: int, rng: np.random.Generator) -> Fitted:
    """Rounds of disjoint stored pairs, the first at random, then greedily by A-gain."""
    answers, made, strengths = Answers(), 0, np.zeros(stored.n)
    while made < calls:
        if answers.first:
            gains = pair_gains(posterior_covariance(stored.n, answers.first, answers.second,
                                                    strengths), strengths)
        else:
            gains = rng.random((stored.n, stored.n))
        round_pairs = choose_pairs(np.where(stored.judged, gains, -np.inf), range(stored.n), rng)
        if not round_pairs:  # no stored pair left to choose: spend the rest at random
            return random_pairs(stored, calls - made, rng, answers)[0], calls, calls
        for i, j in round_pairs[: calls - made]:
            answers.add(i, j, stored.answer(i, j, 0.0, rng))
            made += 1
        strengths = answers.strengths(stored.n)
    return strengths, calls, calls


def ranking_calls(stored: Stored, calls: int, q: float, rng: np.random.Generator) -> Fitted:
    """Rounds of disjoint random groups of 4; every implied stored pair answered."""
    answers, made, heard = Answers(), 0, 0
    while made < calls:
        order = [int(x) for x in rng.permutation(stored.n)]
        for start in range(0, stored.n - GROUP + 1, GROUP):
            if made == calls:
                break
            group = order[start:start + GROUP]
            answered = [answers.add(a, b, stored.answer(a, b, q, rng))
                        for k, a in enumerate(group) for b in group[k + 1:]]
            heard += any(answered)
            made += 1
    return answers.strengths(stored.n), calls, heard


class SparseReplay(ReplayProvider):
    """The product's replay judge, answering a pair no one judged with no verdict."""

    def __init__(self, topic: ReplayTopic, seed: int) -> None:
        super().__init__(topic, seed=seed)
        self._by_text = dict(zip(topic.texts, topic.ids, strict=True))
        self.unjudged = 0

    def check_items(self, items: Sequence[str]) -> None:
        unknown = [text for text in items if text not in self._by_text]
        if unknown:
            raise InputError(f"no stored text {unknown[0][:40]!r}")

    async def compare_call(self, item_a: str, item_b: str, criteria: str, *, repetition: int,
                           ties: bool = False) -> ComparisonResult:
        a, b = self._by_text[item_a], self._by_text[item_b]
        if (a, b) in self.topic.votes or (b, a) in self.topic.votes:
            return await super().compare_call(item_a, item_b, criteria,
                                              repetition=repetition, ties=ties)
        self.unjudged += 1
        return ComparisonResult(None, "no stored vote for this pair")


def swiss(topic: ReplayTopic, calls: int, seed: int) -> Fitted:
    judge = SparseReplay(topic, seed)
    sorter = QualitativeSorter(judge, criteria="replay", seed=seed, checkpointer=None,
                               max_concurrent_requests=1000,
                               strategy=Swiss(budget=calls, ties=True))
    result = asyncio.run(sorter.sort(list(topic.texts)))
    rank = {text: r for r, group in result.rankings for text in group}
    made = result.statistics.total_api_calls
    return np.array([-float(rank[t]) for t in topic.texts]), made, made - judge.unjudged


def scored(found: np.ndarray, gold: np.ndarray) -> dict[str, float]:
    """ρ and τ-b against gold; an order with no information (all equal) scores 0.

    Strengths are compared to 6 decimals: items whose votes are the same (translations with
    equal MQM scores) fit equal strengths up to the solver's tolerance, and ranking that
    noise would turn the gold's ties into an arbitrary order.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConstantInputWarning)
        found, gold = np.round(found, 6), np.round(gold, 6)
        rho, tau = spearmanr(found, gold).statistic, kendalltau(found, gold).statistic
    return {"rho": 0.0 if math.isnan(rho) else float(rho),
            "tau": 0.0 if math.isnan(tau) else float(tau)}


def run(name: str, topic: ReplayTopic, stored: Stored, calls: int, seed: int) -> Fitted:
    """One design at the budget of `calls` pairwise calls; its random draws keyed on all of it."""
    key = f"{topic.name}/{name}/{calls}/{seed}"
    rng = np.random.default_rng(random.Random(key).getrandbits(64))
    if name == BASELINE:
        return random_pairs(stored, calls, rng)
    if name == SWISS:
        return swiss(topic, calls, seed)
    if name == OPTIMAL:
        return optimal_pairs(stored, calls, rng)
    q, budget = GROUPS[name]
    return ranking_calls(stored, stored.group_calls(calls, budget), q, rng)


def play(topic: ReplayTopic, stored: Stored, seed: int) -> dict[str, dict[str, dict[str, Any]]]:
    """Every design at n, 2n and 4n calls on one topic and seed."""
    gold = fit_bradley_terry(stored.n, *topic.observations(), position=False,
                             uncertainty=False).strengths
    out: dict[str, dict[str, dict[str, Any]]] = {name: {} for name in DESIGNS}
    for m in MULTIPLES:
        for name in DESIGNS:
            if name == CEILING:
                found, made, heard = gold_broken(topic.name, gold, m, seed), 0, 0
            else:
                found, made, heard = run(name, topic, stored, m * stored.n, seed)
            out[name][f"{m}n"] = {"calls": made, "heard": heard,
                                  "tokens": _tokens(stored, name, made), **scored(found, gold)}
    return out


def gold_broken(name: str, gold: np.ndarray, m: int, seed: int) -> np.ndarray:
    """The gold's order with its ties (to 6 decimals) broken at random, seeded."""
    rng = np.random.default_rng(random.Random(f"{name}/{m}/{seed}").getrandbits(64))
    return np.round(gold, 6) + rng.random(gold.size) * 1e-3


def add_ceiling(runs: Runs, args: argparse.Namespace) -> None:
    """The ceiling row for corpora whose saved runs lack it (no call needed: seconds)."""
    for corpus, by_design in runs.items():
        if CEILING in by_design:
            continue
        by_design[CEILING] = {f"{m}n": [] for m in MULTIPLES}
        for topic in topics_of(corpus, args):
            gold = fit_bradley_terry(len(topic.ids), *topic.observations(), position=False,
                                     uncertainty=False).strengths
            for seed in range(args.seeds):
                for m in MULTIPLES:
                    found = gold_broken(topic.name, gold, m, seed)
                    by_design[CEILING][f"{m}n"].append(
                        {"topic": topic.name, "seed": seed, "n": len(topic.ids),
                         **scored(found, gold)})


def _tokens(stored: Stored, design: str, calls: int) -> float:
    shown = GROUP if design in GROUPS else 2
    return calls * (stored.overhead + shown * stored.text_tokens)


def prompt_overhead() -> float:
    """Input tokens of a built-in pairwise call without its texts (the criterion included)."""
    template = PromptTemplate.builtin()
    return (len(template.system) + len(template.user) + 60) / CHARS_PER_TOKEN


def topics_of(corpus: str, args: argparse.Namespace) -> list[ReplayTopic]:
    folder = args.ukp if corpus == "ukp" else args.cache / corpus
    paths = sorted(Path(folder).glob("*.json"))
    if not paths:
        raise SystemExit(f"no topics in {folder}: run scripts/corpora_build.py first")
    if args.max_topics and len(paths) > args.max_topics:
        paths = sorted(random.Random(f"corpora/{corpus}").sample(paths, args.max_topics))
    return [load_replay_topic(path) for path in paths]


def study(corpus: str, args: argparse.Namespace) -> dict[str, dict[str, list[dict[str, Any]]]]:
    started, overhead = time.perf_counter(), prompt_overhead()
    runs: dict[str, dict[str, list[dict[str, Any]]]] = {
        name: {f"{m}n": [] for m in MULTIPLES} for name in DESIGNS}
    for topic in topics_of(corpus, args):
        stored = Stored(topic, CJ_TEXT_TOKENS if corpus == "cj" else None, overhead)
        for seed in range(args.seeds):
            for name, by_budget in play(topic, stored, seed).items():
                for budget, figures in by_budget.items():
                    runs[name][budget].append({"topic": topic.name, "seed": seed,
                                               "n": stored.n, **figures})
    print(f"{corpus}: {time.perf_counter() - started:.0f} s", flush=True)
    return runs


def _mean_sd(values: Sequence[float]) -> str:
    return f"{statistics.fmean(values):.3f} ± {statistics.stdev(values):.3f}"


def paired(rows: Sequence[dict[str, Any]], base: Sequence[dict[str, Any]]) -> str:
    """Per topic × seed difference in ρ to the baseline: mean ± sd (standard error)."""
    diffs = [a["rho"] - b["rho"] for a, b in zip(rows, base, strict=True)]
    sd = statistics.stdev(diffs)
    return f"{statistics.fmean(diffs):+.3f} ± {sd:.3f} ({sd / len(diffs) ** 0.5:.3f})"


def table(runs: dict[str, dict[str, list[dict[str, Any]]]]) -> list[str]:
    lines = ["| design | budget | calls / n | tokens / baseline's | calls with a verdict "
             "| Spearman ρ | Kendall τ-b | ρ − baseline, paired (SE) |",
             "|---|---|---|---|---|---|---|---|"]
    for m in MULTIPLES:
        base = runs[BASELINE][f"{m}n"]
        for name in [d for d in DESIGNS if d in runs]:
            rows = runs[name][f"{m}n"]
            diff = "" if name in (BASELINE, CEILING) else paired(rows, base)
            label = f"**{name}**" if name == BASELINE else name
            if name == CEILING:
                lines.append(f"| *{name}* | | | | | {_mean_sd([r['rho'] for r in rows])} "
                             f"| {_mean_sd([r['tau'] for r in rows])} | |")
                continue
            calls = statistics.fmean(r["calls"] / r["n"] for r in rows)
            tokens = statistics.fmean(r["tokens"] / b["tokens"] for r, b in zip(rows, base,
                                                                                 strict=True))
            heard = sum(r["heard"] for r in rows) / sum(r["calls"] for r in rows)
            lines.append(f"| {label} | {m}n | {calls:.2f} | {tokens:.2f} | {heard:.0%} "
                         f"| {_mean_sd([r['rho'] for r in rows])} "
                         f"| {_mean_sd([r['tau'] for r in rows])} | {diff} |")
    return lines


def describe(corpus: str, rows: Sequence[dict[str, Any]], seeds: int) -> str:
    topics = sorted({(r["topic"], r["n"]) for r in rows})
    sizes = [n for _, n in topics]
    return (f"{CORPORA[corpus]}: {len(topics)} topics of {min(sizes)}–{max(sizes)} texts "
            f"(median {statistics.median(sizes):g}) × seeds 0..{seeds - 1}.")


def plot(runs: Runs, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    matplotlib.rcParams["svg.fonttype"] = "none"  # text as text: a small file
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(runs), figsize=(4 * len(runs), 4.2), sharey=True)
    for ax, (corpus, by_design) in zip(np.atleast_1d(axes), runs.items(), strict=True):
        for name in [d for d in DESIGNS if d in by_design and d != CEILING]:
            cells = [by_design[name][f"{m}n"] for m in MULTIPLES]
            xs = [statistics.fmean(r["calls"] / r["n"] for r in c) for c in cells]
            ys = [statistics.fmean(r["rho"] for r in c) for c in cells]
            ax.plot(xs, ys, "o-" if name == BASELINE else ".--", label=name,
                    linewidth=2.5 if name == BASELINE else 1)
        ax.set_title(CORPORA[corpus].split(" (")[0].split(",")[0], fontsize=10)
        ax.set_xlabel("calls / texts")
        ax.grid(alpha=0.3)
    np.atleast_1d(axes)[0].set_ylabel("Spearman ρ against gold")
    np.atleast_1d(axes)[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)


def write(runs: Runs, seeds: int, elapsed: float | None, out: Path) -> None:
    took = "from its saved runs" if elapsed is None else f"{elapsed:.0f} s"
    text = [f"<!-- written by scripts/corpora_study.py --seeds {seeds}; {took} -->"]
    for corpus, by_design in runs.items():
        rows = by_design[BASELINE]["1n"]
        text += ["", f"#### {CORPORA[corpus]}", "", describe(corpus, rows, seeds), "",
                 *table(by_design)]
    (out / "corpora_tables.txt").write_text("\n".join(text) + "\n", encoding="utf-8")
    plot(runs, out / "corpora.svg")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ukp", type=Path,
                        default=Path(__file__).resolve().parents[2] / "shared/data/ukpconvarg1")
    parser.add_argument("--cache", type=Path, default=default_cache(),
                        help="topics written by corpora_build.py")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--corpora", default=",".join(CORPORA))
    parser.add_argument("--max-topics", type=int, default=0,
                        help="a seeded sample of at most this many topics per corpus (0: all)")
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks"))
    parser.add_argument("--from-json", type=Path, help="write again from a saved corpora.json")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    if args.from_json:
        saved = json.loads(args.from_json.read_text(encoding="utf-8"))
        runs, args.seeds, args.max_topics = saved["runs"], saved["seeds"], saved["max_topics"]
    else:
        saved_path = args.cache / "corpora.json"
        # A corpus run again replaces its figures; the others' are kept (same seeds only).
        runs = {}
        if saved_path.exists():
            saved = json.loads(saved_path.read_text(encoding="utf-8"))
            if saved["seeds"] == args.seeds and saved["max_topics"] == args.max_topics:
                runs = saved["runs"]
        for corpus in args.corpora.split(","):
            runs[corpus] = study(corpus, args)
        runs = {corpus: runs[corpus] for corpus in CORPORA if corpus in runs}
        args.out.mkdir(parents=True, exist_ok=True)
        args.cache.mkdir(parents=True, exist_ok=True)
        saved_path.write_text(json.dumps(
            {"seeds": args.seeds, "max_topics": args.max_topics, "runs": runs}),
            encoding="utf-8")
    add_ceiling(runs, args)
    write(runs, args.seeds, None if args.from_json else time.perf_counter() - started, args.out)
    print(f"wrote {args.out / 'corpora_tables.txt'}")


if __name__ == "__main__":
    main()
