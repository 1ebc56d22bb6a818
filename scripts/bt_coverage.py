"""Do the Bradley–Terry intervals cover the truth? Coverage over many items × seeds.

Each setting plays real elimination tournaments (QualitativeSorter, AB/BA in every match)
with a judge whose truth is known, fits `fit_bradley_terry` to the calls (position term
on, prior 1 unless stated), and counts:
- strengths: the share of 95 % intervals that cover the true centred log-strength, over all
  items and seeds, also split into the extreme 5 % at either end (unbeaten / winless items)
  and the middle 90 %; the mean standard error against the root-mean-square error;
- position: the share of seeds whose 95 % interval for h covers the true h, and the mean
  SE of h against the spread of ĥ across seeds;
- the large-n method (standard errors from sampled draws) is run on n = 1000 too, on the
  same tournaments as the exact covariance, and on n = 10,000 where it is the default;
- top-K: mean `top_k_probability(k)` per bin against the share of the bin's items truly in
  the top k (k = n/20).

Judges:
- "exact BT": `GumbelJudge`, the first-shown wins with probability σ(s_first − s_second + h),
  h = 0.4, strengths evenly spread over `spread` logits;
- "default mock": `MockLLMProvider` (each side int(text) + gauss(0, 3.33), a probit truth, no
  position effect): the truth mapped to logits is 1.702·v / (3.33·√2), centred, and h = 0.

Usage:
    python scripts/bt_coverage.py [--quick] [--out docs/bt_coverage.md]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from _bt_designs import MOCK_LOGITS_PER_UNIT, GumbelJudge, spaced_truth, tournament_calls
from llm_qualitative_sort import LLMProvider, MockLLMProvider
from llm_qualitative_sort.bradley_terry import fit_bradley_terry
from llm_qualitative_sort.rating import posterior

H = 0.4
BINS = [0.0, 0.05, 0.5, 0.95, 1.0001]


@dataclass(frozen=True)
class Setting:
    judge: str  # "exact BT" or "default mock"
    n: int
    losses: int
    seeds: int
    spread: float = 8.0  # logits between the weakest and the strongest (exact BT)
    prior: float = 1.0
    sampled: bool = False  # force the large-n method (sampled SEs) below its size limit

    def label(self) -> str:
        truth = f"spread {self.spread:.3g}" if self.judge == "exact BT" else "probit"
        prior = "" if self.prior == 1.0 else f", prior {self.prior:g}"
        method = ", sampled SEs" if self.sampled or self.n > posterior.DENSE_LIMIT else ""
        return f"{self.judge} ({truth}{prior}{method}), n={self.n}, N={self.losses}"


@dataclass
class Tally:
    covered: list[np.ndarray] = field(default_factory=list)
    extreme: list[np.ndarray] = field(default_factory=list)
    errors: list[np.ndarray] = field(default_factory=list)
    ses: list[np.ndarray] = field(default_factory=list)
    h: list[tuple[float, float, bool]] = field(default_factory=list)
    top_p: list[np.ndarray] = field(default_factory=list)
    top_true: list[np.ndarray] = field(default_factory=list)
    calls: list[int] = field(default_factory=list)


def judge_and_truth(setting: Setting, seed: int) -> tuple[LLMProvider, np.ndarray, float]:
    n = setting.n
    if setting.judge == "default mock":
        return MockLLMProvider(seed=seed), MOCK_LOGITS_PER_UNIT * np.arange(n, dtype=float), 0.0
    truth = spaced_truth(n, setting.spread)
    values = {str(i): float(truth[i]) for i in range(n)}
    return GumbelJudge(values, H, seed), truth, H


def run_one(setting: Setting, seed: int, tally: Tally) -> None:
    judge, truth, h_true = judge_and_truth(setting, seed)
    items = [str(i) for i in range(setting.n)]
    first, second, won = tournament_calls(judge, items, setting.losses, seed)
    limit = posterior.DENSE_LIMIT
    posterior.DENSE_LIMIT = 0 if setting.sampled else limit
    try:
        fit = fit_bradley_terry(setting.n, first, second, won, prior=setting.prior)
    finally:
        posterior.DENSE_LIMIT = limit
    centred = truth - truth.mean()
    low, high = fit.intervals(0.95)
    tally.covered.append((low <= centred) & (centred <= high))
    cut = max(1, setting.n // 20)
    rank = np.argsort(np.argsort(-truth))
    tally.extreme.append((rank < cut) | (rank >= setting.n - cut))
    tally.errors.append(fit.strengths - centred)
    tally.ses.append(fit.standard_errors)
    h_low, h_high = fit.position - 1.96 * fit.position_se, fit.position + 1.96 * fit.position_se
    tally.h.append((fit.position, fit.position_se, h_low <= h_true <= h_high))
    k = max(1, setting.n // 20)
    tally.top_p.append(fit.top_k_probability(k))
    tally.top_true.append(rank < k)
    tally.calls.append(len(first))


def summary(setting: Setting, tally: Tally) -> dict[str, str]:
    covered, extreme = np.concatenate(tally.covered), np.concatenate(tally.extreme)
    errors, ses = np.concatenate(tally.errors), np.concatenate(tally.ses)
    h = np.array([[est, se, hit] for est, se, hit in tally.h])
    h_spread = float(np.std(h[:, 0], ddof=1)) if len(h) > 1 else float("nan")
    return {
        "setting": setting.label(),
        "calls": f"{np.mean(tally.calls):,.0f}",
        "item × seed": f"{len(covered):,}",
        "coverage all": f"{covered.mean():.3f}",
        "extreme 10 %": f"{covered[extreme].mean():.3f}",
        "middle 90 %": f"{covered[~extreme].mean():.3f}",
        "mean SE / RMSE": f"{ses.mean():.2f} / {np.sqrt(np.mean(errors**2)):.2f}",
        "h coverage": f"{h[:, 2].mean():.2f} ({int(h[:, 2].sum())}/{len(h)})",
        "mean ĥ (true)": f"{h[:, 0].mean():.3f} ({H if setting.judge == 'exact BT' else 0.0:g})",
        "mean SE(ĥ) / sd(ĥ)": f"{h[:, 1].mean():.3f} / {h_spread:.3f}",
    }


def calibration(tally: Tally) -> list[str]:
    p, truth = np.concatenate(tally.top_p), np.concatenate(tally.top_true)
    cells = []
    for low, high in zip(BINS[:-1], BINS[1:], strict=True):
        inside = (p >= low) & (p < high)
        if inside.any():
            cells.append(f"[{low:g}, {min(high, 1):g}): {p[inside].mean():.3f} vs "
                         f"{truth[inside].mean():.3f} ({int(inside.sum())})")
    return cells


def settings(quick: bool) -> list[Setting]:
    small, large = (5, 2) if quick else (100, 20)
    found = [
        Setting("exact BT", 200, 2, small),
        Setting("exact BT", 200, 5, small),
        Setting("exact BT", 1000, 2, large),
        Setting("exact BT", 1000, 10, large),
        Setting("exact BT", 1000, 10, large, sampled=True),
        Setting("exact BT", 200, 5, small, spread=MOCK_LOGITS_PER_UNIT * 199),
        Setting("default mock", 200, 5, small),
        Setting("default mock", 1000, 10, large),
        Setting("default mock", 200, 5, small, prior=0.001),
    ]
    if not quick:
        found.append(Setting("exact BT", 10_000, 2, 3))  # the sampled (large-n) SE path
    return found


def table(rows: list[dict[str, str]]) -> str:
    columns = list(rows[0])
    lines = ["| " + " | ".join(columns) + " |", "|---" * len(columns) + "|"]
    lines += ["| " + " | ".join(row[c] for c in columns) + " |" for row in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer seeds, no n=10,000")
    parser.add_argument("--out", type=Path, help="also write the tables (markdown) here")
    args = parser.parse_args()
    rows, reliability = [], []
    for setting in settings(args.quick):
        started, tally = time.perf_counter(), Tally()
        for seed in range(setting.seeds):
            run_one(setting, seed, tally)
        rows.append(summary(setting, tally))
        reliability.append(f"- {setting.label()}: " + "; ".join(calibration(tally)))
        print(f"{setting.label()}: {time.perf_counter() - started:.0f} s", flush=True)
    text = (
        f"<!-- written by scripts/bt_coverage.py{' --quick' if args.quick else ''} -->\n"
        "Coverage of 95 % intervals (`python scripts/bt_coverage.py`)\n\n" + table(rows)
        + "\n\nTop-K calibration (k = n/20): mean predicted P(top k) vs share truly in the "
        "top k, per bin of predicted P (items in the bin)\n\n" + "\n".join(reliability) + "\n"
    )
    print("\n" + text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
