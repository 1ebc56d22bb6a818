"""How sure is a ranking? Coverage of `SortResult.intervals`, calibration of
`SortResult.top_k_probability`, and the audit figures on the study's mocks.

Everything goes through the public API: `QualitativeSorter(...).sort(items)`, then
`result.intervals`, `result.top_k_probability(10)` and `result.statistics`.

Coverage: the share of 95 % intervals that contain the true centred log-strength, over all
items × seeds (and split: the 5 % at either end, the middle 90 %), the mean interval
half-width against the root-mean-square error, and whether the 95 % interval of the
position shift contains the true one. Judges with a known truth:
- "exact BT": `MockLLMProvider(noise="gumbel")`, exactly Bradley–Terry with log-strength
  v/β (β = sd·√6/π); the items' values are scaled so that the truth spans `spread` logits,
  and a fixed first-position bonus gives a true shift σ(h) − ½ with h = 0.4;
- "default mock": `MockLLMProvider(seed)` with its default noise on "0".."n−1" (each side
  v + gauss(0, 3.33)): truth ≈ 1.702·v / (3.33·√2) logits (a probit judge), no position bias.
For comparison, a parametric bootstrap (200 refits of simulated verdicts on the same
design, "basic" intervals 2ŝ − q) on the same runs, with its cost.

Top-K calibration: items binned by P(top 10); per bin the mean prediction against the share
truly in the top 10.

Audit: on the default mock and `MockLLMProvider.realistic` (n = 1000), per strategy, the
figures of the trust section: position shift, order disagreements, ties, the expected
number of the reported top 10 that do not belong there, calls without a verdict.

Prior scan: why the default mock is not covered. For priors from 3 to 0.01, on the default mock
(n = 200, elimination N = 2 and 5), the coverage and the held-out log-likelihood per call
of a 5-fold cross-validation by match: which prior the calls themselves prefer.

Usage:
    python scripts/trust_coverage.py [--quick] [--out docs/trust.md]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import expit, log_expit

from llm_qualitative_sort import (
    MockLLMProvider,
    PanelProvider,
    QualitativeSorter,
    SortResult,
    Swiss,
)
from llm_qualitative_sort.bradley_terry import fit_bradley_terry, shown_calls
from llm_qualitative_sort.reports._trust import poor_order

SD = 3.33
BETA = SD * math.sqrt(6) / math.pi
SPEC_LOGITS_PER_UNIT = 1.702 / (SD * math.sqrt(2))
H = 0.4
K = 10
BOOTSTRAP = 200
BINS = [0.0, 0.05, 0.2, 0.5, 0.8, 0.95, 1.0001]


@dataclass(frozen=True)
class Setting:
    judge: str  # "exact BT" or "default mock"
    n: int
    strategy: str  # "elimination N=2", "elimination N=5", "swiss 1 call"
    seeds: int
    spread: float = 8.0
    bootstrap: bool = False

    def label(self) -> str:
        truth = f"spread {self.spread:g} logits, h = {H}" if self.judge == "exact BT" else (
            f"probit, spread {SPEC_LOGITS_PER_UNIT * (self.n - 1):.0f} logits")
        return f"{self.judge} ({truth}), n = {self.n}, {self.strategy}"


@dataclass
class Tally:
    covered: list[np.ndarray] = field(default_factory=list)
    extreme: list[np.ndarray] = field(default_factory=list)
    half: list[np.ndarray] = field(default_factory=list)
    error: list[np.ndarray] = field(default_factory=list)
    shift: list[tuple[float, float, float]] = field(default_factory=list)
    top_p: list[np.ndarray] = field(default_factory=list)
    top_true: list[np.ndarray] = field(default_factory=list)
    boot: list[np.ndarray] = field(default_factory=list)
    boot_seconds: list[float] = field(default_factory=list)
    fit_seconds: list[float] = field(default_factory=list)
    calls: list[int] = field(default_factory=list)


def sorter_options(strategy: str) -> dict[str, Any]:
    if strategy.startswith("elimination"):
        return {"elimination_count": int(strategy.split("=")[1])}
    return {"strategy": "swiss", "comparison_rounds": 1}


def judge_and_truth(setting: Setting, seed: int) -> tuple[MockLLMProvider, np.ndarray, float]:
    n = setting.n
    if setting.judge == "default mock":
        return MockLLMProvider(seed=seed), SPEC_LOGITS_PER_UNIT * np.arange(n, dtype=float), 0.0
    scale = setting.spread * BETA / (n - 1)  # value of item i: i·scale, truth i·scale/β
    judge = MockLLMProvider(seed=seed, noise="gumbel", noise_stddev=SD,
                            score=lambda text: int(text) * scale, pair_bias=(H * BETA, 0.0))
    return judge, np.arange(n, dtype=float) * scale / BETA, float(expit(H) - 0.5)


def play(judge: MockLLMProvider, items: list[str], strategy: str, seed: int) -> SortResult:
    sorter = QualitativeSorter(judge, criteria="larger", seed=seed, checkpointer=None,
                               **sorter_options(strategy))
    return asyncio.run(sorter.sort(items))


def measure(setting: Setting) -> Tally:
    tally = Tally()
    items = [str(i) for i in range(setting.n)]
    for seed in range(setting.seeds):
        judge, truth, true_shift = judge_and_truth(setting, seed)
        truth = truth - truth.mean()
        result = play(judge, items, setting.strategy, seed)
        started = time.perf_counter()
        low = np.array([result.intervals[i][0] for i in items])
        high = np.array([result.intervals[i][1] for i in items])
        top = np.array([result.top_k_probability(K)[i] for i in items])
        tally.fit_seconds.append(time.perf_counter() - started)
        score = np.array([result.scores[i] for i in items])
        ranks = np.argsort(np.argsort(-truth))
        ends = (ranks < setting.n // 20) | (ranks >= setting.n - setting.n // 20)
        tally.covered.append((low <= truth) & (truth <= high))
        tally.extreme.append(ends)
        tally.half.append((high - low) / 2)
        tally.error.append(score - truth)
        bias = result.statistics.position_bias
        if bias is not None:
            tally.shift.append((bias.shift, true_shift, float(bias.low <= true_shift <= bias.high)))
        tally.top_p.append(top)
        tally.top_true.append(ranks < K)
        tally.calls.append(result.statistics.total_api_calls)
        if setting.bootstrap:
            started = time.perf_counter()
            tally.boot.append(bootstrap_covered(items, result, truth, seed))
            tally.boot_seconds.append(time.perf_counter() - started)
    return tally


def bootstrap_covered(items: list[str], result: SortResult, truth: np.ndarray,
                      seed: int) -> np.ndarray:
    """Basic parametric-bootstrap intervals (2ŝ − q) on the run's own design."""
    first, second, _ = shown_calls(items, result.match_history)
    fit = fit_bradley_terry(len(items), *shown_calls(items, result.match_history),
                            uncertainty=False)
    p = expit(fit.strengths[first] - fit.strengths[second] + fit.position)
    rng = np.random.default_rng(seed)
    draws = np.empty((BOOTSTRAP, len(items)))
    for b in range(BOOTSTRAP):
        won = (rng.random(p.size) < p).astype(float)
        draws[b] = fit_bradley_terry(len(items), first, second, won, start=fit,
                                     uncertainty=False).strengths
    q_low, q_high = np.quantile(draws, [0.025, 0.975], axis=0)
    low, high = 2 * fit.strengths - q_high, 2 * fit.strengths - q_low
    return (low <= truth) & (truth <= high)


def coverage_row(setting: Setting, tally: Tally) -> str:
    covered, extreme = np.concatenate(tally.covered), np.concatenate(tally.extreme)
    rmse = float(np.sqrt(np.mean(np.concatenate(tally.error) ** 2)))
    half = float(np.mean(np.concatenate(tally.half)))
    shifts = np.array(tally.shift)
    shift = (f"{shifts[:, 0].mean():+.3f} ({shifts[0, 1]:+.3f}), {shifts[:, 2].mean():.2f}"
             if len(shifts) else "—")
    boot = "—"
    if tally.boot:
        boot = (f"{np.concatenate(tally.boot).mean():.3f} "
                f"({np.mean(tally.boot_seconds):.1f} s)")
    return (f"| {setting.label()} | {setting.seeds} | {np.mean(tally.calls):,.0f} | "
            f"**{covered.mean():.3f}** | {covered[~extreme].mean():.3f} | "
            f"{covered[extreme].mean():.3f} | {half:.2f} / {rmse:.2f} | {shift} | {boot} | "
            f"{np.mean(tally.fit_seconds) * 1000:.0f} |")


def calibration(tallies: list[tuple[Setting, Tally]]) -> list[str]:
    lines = ["| setting | " + " | ".join(f"P in [{a:g}, {b:.2g})" for a, b in
                                         zip(BINS, BINS[1:], strict=False)) + " |",
             "|---|" + "---|" * (len(BINS) - 1)]
    for setting, tally in tallies:
        p, truth = np.concatenate(tally.top_p), np.concatenate(tally.top_true)
        cells = []
        for a, b in zip(BINS, BINS[1:], strict=False):
            inside = (p >= a) & (p < b)
            cells.append(f"{p[inside].mean():.2f} → {truth[inside].mean():.2f} "
                         f"({inside.sum()})" if inside.any() else "—")
        lines.append(f"| {setting.label()} | " + " | ".join(cells) + " |")
    return lines


AUDIT_JUDGES = {
    "default mock": lambda seed: MockLLMProvider(seed=seed),
    "realistic mock": lambda seed: MockLLMProvider.realistic(seed=seed),
    "panel of 2 realistic": lambda seed: PanelProvider(
        [MockLLMProvider.realistic(seed=seed), MockLLMProvider.realistic(seed=seed + 100)]),
}
AUDIT_STRATEGIES = {
    "elimination N=2": {"elimination_count": 2},
    "elimination N=2, 4 calls": {"elimination_count": 2, "comparison_rounds": 4},
    "swiss, 1 call": {"strategy": Swiss(comparison_rounds=1)},
    "swiss, 1 call, top_k=10": {"strategy": Swiss(comparison_rounds=1, top_k=K)},
}


def audit_rows(n: int, seeds: int) -> list[str]:
    lines = ["| judge | strategy | calls | first-shown won | shift (95 %) | orders disagreed "
             "| tied items / largest block | expected misplaced in top 10 | warning | "
             "no verdict | agreement (κ) |", "|---" * 11 + "|"]
    items = [str(i) for i in range(n)]
    for judge_name, make in AUDIT_JUDGES.items():
        for strategy, options in AUDIT_STRATEGIES.items():
            if judge_name.startswith("panel") and not strategy.endswith("4 calls"):
                continue
            rows = []
            for seed in range(seeds):
                sorter = QualitativeSorter(make(seed), criteria="larger", seed=seed,
                                           checkpointer=None, **options)
                rows.append(audit_figures(asyncio.run(sorter.sort(items))))
            lines.append(f"| {judge_name} | {strategy} | " + " | ".join(
                _mean_cell(rows, column) for column in range(len(rows[0]))) + " |")
    return lines


def audit_figures(result: SortResult) -> list[Any]:
    stats = result.statistics
    bias, order = stats.position_bias, stats.order_consistency
    ranked = [item for _, group in result.rankings for item in group][:K]
    top = result.top_k_probability(K)
    missing = K - sum(top[item] for item in ranked)
    calls = stats.total_api_calls + stats.cache_hits
    agreement = stats.agreement[0] if stats.agreement else None
    return [
        calls,
        bias.first_shown_share if bias else math.nan,
        (bias.shift, bias.low, bias.high) if bias else None,
        order.share if order and order.share is not None else math.nan,
        (stats.tied_items, stats.largest_tie),
        missing,
        float(missing >= 1.0 or (order is not None and poor_order(order))),
        stats.failed_calls / calls,
        (agreement.share, agreement.kappa) if agreement and agreement.share else None,
    ]


def _mean_cell(rows: list[list[Any]], column: int) -> str:
    values = [row[column] for row in rows]
    if values[0] is None:
        return "—"
    if isinstance(values[0], tuple):
        means = np.mean(np.array(values, dtype=float), axis=0)
        if column == 2:
            return f"{means[0]:+.3f} ({means[1]:+.3f} … {means[2]:+.3f})"
        if column == 4:
            return f"{means[0]:.0f} / {means[1]:.0f}"
        return f"{means[0]:.2f} ({means[1]:.2f})"
    mean = float(np.mean(values))
    if math.isnan(mean):
        return "—"
    if column == 0:
        return f"{mean:,.0f}"
    if column == 6:
        return f"{mean * len(values):.0f} of {len(values)}"
    if column == 5:
        return f"{mean:.1f}"
    return f"{mean * 100:.1f} %"


PRIORS = (3.0, 1.0, 0.3, 0.1, 0.03, 0.01)


def prior_scan(seeds: int) -> list[str]:
    """Coverage and cross-validated log-likelihood per call, by prior, on the default mock."""
    lines = ["| default mock, n = 200 | " + " | ".join(f"prior {p:g}" for p in PRIORS) + " |",
             "|---" * (len(PRIORS) + 1) + "|"]
    items = [str(i) for i in range(200)]
    truth = SPEC_LOGITS_PER_UNIT * np.arange(200.0)
    truth -= truth.mean()
    for strategy in ("elimination N=2", "elimination N=5"):
        cells: dict[float, list[tuple[float, float]]] = {p: [] for p in PRIORS}
        for seed in range(seeds):
            result = play(MockLLMProvider(seed=seed), items, strategy, seed)
            calls = shown_calls(items, result.match_history)
            for prior in PRIORS:
                fit = fit_bradley_terry(200, *calls, prior=prior)
                low, high = fit.intervals()
                covered = float(np.mean((low <= truth) & (truth <= high)))
                cells[prior].append((covered, held_out(calls, prior, seed)))
        lines.append(f"| {strategy}: coverage / held-out log-lik per call | " + " | ".join(
            f"{np.mean([c for c, _ in v]):.2f} / {np.mean([h for _, h in v]):.3f}"
            for v in cells.values()) + " |")
    return lines


def held_out(calls: tuple[np.ndarray, ...], prior: float, seed: int, folds: int = 5) -> float:
    """Mean log-likelihood of held-out calls; a match's two calls stay in one fold."""
    first, second, won = calls
    fold = np.random.default_rng(seed).integers(0, folds, len(first) // 2 + 1)[
        np.arange(len(first)) // 2]
    total = 0.0
    for k in range(folds):
        train = fold != k
        fit = fit_bradley_terry(200, first[train], second[train], won[train], prior=prior,
                                uncertainty=False)
        gap = fit.strengths[first[~train]] - fit.strengths[second[~train]] + fit.position
        total += float(np.sum(won[~train] * log_expit(gap) + (1 - won[~train]) * log_expit(-gap)))
    return total / len(first)


def settings(quick: bool) -> list[Setting]:
    seeds = 4 if quick else 20
    return [
        Setting("exact BT", 200, "elimination N=2", seeds, 8.0, bootstrap=True),
        Setting("exact BT", 200, "elimination N=5", seeds, 8.0),
        Setting("exact BT", 200, "swiss 1 call", seeds, 8.0),
        Setting("exact BT", 200, "elimination N=2", seeds, 4.0),
        Setting("exact BT", 1000, "elimination N=2", max(2, seeds // 4), 8.0),
        Setting("default mock", 200, "elimination N=2", seeds, bootstrap=True),
        Setting("default mock", 200, "elimination N=5", seeds),
        Setting("default mock", 200, "swiss 1 call", seeds),
        Setting("default mock", 1000, "elimination N=2", max(2, seeds // 4)),
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    lines = ["## Coverage of 95 % intervals", "",
             "| judge (truth), n, strategy | seeds | calls | coverage: all | middle 90 % | "
             "extreme 10 % | mean half-width / RMSE | mean shift (true), its interval "
             "covered | bootstrap coverage (time per run) | intervals + top-10 ms |",
             "|---" * 10 + "|"]
    measured = []
    for setting in settings(args.quick):
        tally = measure(setting)
        measured.append((setting, tally))
        lines.append(coverage_row(setting, tally))
        print(lines[-1], flush=True)
    lines += ["", "## Calibration of P(top 10)", "",
              "Mean predicted → share truly in the top 10 (items in the bin).", ""]
    lines += calibration(measured)
    lines += ["", "## Prior scan (default mock)", ""] + prior_scan(2 if args.quick else 6)
    n, seeds = (300, 2) if args.quick else (1000, 3)
    lines += ["", f"## Audit figures, n = {n}, mean of {seeds} seeds", ""]
    lines += audit_rows(n, seeds)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
