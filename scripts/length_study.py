"""How well the audit recovers a judge's length preference: two estimators on the mock.

The judge: `MockLLMProvider(noise="gumbel", length_preference=λ)`, exactly Bradley–Terry
with strength `v_i + λ·x_i` (x the standardised log length). Items: texts of log-uniform
length (50 to 2000 characters) whose hidden values `v` are drawn independently of their
length, normal with sd `spread` logits. Each run sorts them with the public API (elimination,
`elimination_count` N), then estimates λ from the run's calls two ways:

- "two-stage": the Bradley–Terry strengths and their standard errors, regressed on the
  length feature (`rating.covariates.covariate_effects`);
- "structured": the Bradley–Terry model with strength = β·length + residual, the residuals'
  spread fitted by marginal likelihood (`rating.structured.fit_structured`).

Reported per setting, over the seeds: the mean estimate, its bias, the root-mean-square
error, and how often the 95 % interval held λ.

Usage:
    python scripts/length_study.py [--seeds 10] [--out docs/benchmarks/length_preference_table.txt]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import time
from dataclasses import dataclass

import numpy as np

from llm_qualitative_sort import Elimination, MockLLMProvider, QualitativeSorter
from llm_qualitative_sort.bradley_terry import fit_bradley_terry
from llm_qualitative_sort.rating.covariates import Effect, covariate_effects, length_feature
from llm_qualitative_sort.rating.played import shown_calls
from llm_qualitative_sort.rating.structured import fit_structured

NOISE_SD = 3.33
SCALE = NOISE_SD * math.sqrt(6) / math.pi  # the Gumbel mock's logistic scale


@dataclass(frozen=True)
class Setting:
    n: int
    count: int  # elimination_count
    spread: float  # sd of the true values, logits
    preference: float


def texts_of(n: int, spread: float, rng: random.Random) -> dict[str, float]:
    """n texts of log-uniform length, each with a hidden value in logits."""
    texts = {}
    for i in range(n):
        length = int(math.exp(rng.uniform(math.log(50), math.log(2000))))
        texts[f"{i:05d} " + "x" * length] = rng.gauss(0.0, spread)
    return texts


def run(setting: Setting, seed: int) -> tuple[Effect, Effect, float, float, int]:
    """(two-stage, structured, seconds of each, calls) for one seed."""
    values = texts_of(setting.n, setting.spread, random.Random(seed))
    judge = MockLLMProvider(seed=seed, noise="gumbel", noise_stddev=NOISE_SD,
                            score=lambda text: values[text] * SCALE,
                            length_preference=setting.preference)
    sorter = QualitativeSorter(judge, criteria="better", seed=seed, checkpointer=None,
                               strategy=Elimination(elimination_count=setting.count))
    result = asyncio.run(sorter.sort(list(values)))
    items = sorted(values)
    first, second, won = shown_calls(items, result.match_history)
    length = {"length": length_feature(items)}
    start = time.perf_counter()
    fit = fit_bradley_terry(len(items), first, second, won)
    two = covariate_effects(fit.strengths, fit.standard_errors, length)["length"]
    middle = time.perf_counter()
    structured = fit_structured(len(items), first, second, won, length).effects["length"]
    end = time.perf_counter()
    return two, structured, middle - start, end - middle, len(first)


def summary(name: str, effects: list[Effect], truth: float, seconds: float) -> str:
    betas = np.array([e.beta for e in effects])
    covered = np.mean([e.low <= truth <= e.high for e in effects])
    rmse = float(np.sqrt(np.mean((betas - truth) ** 2)))
    return (f"| {name} | {betas.mean():+.3f} | {betas.mean() - truth:+.3f} "
            f"| {betas.std(ddof=1) / math.sqrt(len(betas)):.3f} | {rmse:.3f} "
            f"| {100 * covered:.0f} % | {1000 * seconds / len(effects):.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    settings = [Setting(200, 2, 1.0, 0.25), Setting(200, 8, 1.0, 0.25),
                Setting(300, 8, 0.3, 0.25), Setting(300, 8, 1.0, 0.0)]
    lines = ["| estimator | mean β | bias | ± (se of mean) | RMSE | 95 % interval held λ "
             "| ms per fit |", "|---|---|---|---|---|---|---|"]
    out = []
    for setting in settings:
        rows = []
        for seed in range(args.seeds):
            rows.append(run(setting, seed))
            print(setting, seed, rows[-1][0].beta, rows[-1][1].beta, flush=True)
        calls = int(np.mean([r[4] for r in rows]))
        out.append(f"\nn = {setting.n}, elimination N = {setting.count} (about {calls} calls "
                   f"with a verdict), true values sd {setting.spread} logits, "
                   f"λ = {setting.preference}, {args.seeds} seeds (0..{args.seeds - 1}):\n")
        out.append("\n".join([
            *lines,
            summary("two-stage", [r[0] for r in rows], setting.preference,
                    sum(r[2] for r in rows)),
            summary("structured", [r[1] for r in rows], setting.preference,
                    sum(r[3] for r in rows)),
        ]))
    text = "\n".join(out) + "\n"
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as handle:
            handle.write(text)


if __name__ == "__main__":
    main()
