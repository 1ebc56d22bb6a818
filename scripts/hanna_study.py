"""Five LLM judges under four prompts against people, on HANNA's stories.

Data: HANNA (Chhun et al., COLING 2022 and TACL 2024; MIT licence, see
../shared/data/hanna/README.md): 48 sets of 11 stories, each story rated 1–5 on six
criteria by three people, and by five LLM judges under four evaluation prompts (EP1–EP4;
each value the mean of the judge's three tries).

For each judge × prompt and each set, on the "overall" rating (the mean over the six
criteria, the steadiest gold):
- the judge replayed through the sorter as a pointwise judge (`testing.FunctionProvider`
  answering each story's stored rating on the scale 1–5, its fraction as a label
  distribution, so the expected label is the stored value; values below 1, from tries with
  no usable rating, count as 1): Spearman ρ of the sorter's ranking against the people's
  mean;
- the judge's pairwise verdicts on the set's 55 pairs (the higher rating wins, equal
  ratings tie) against the people's (the higher mean wins): agreement and Cohen's κ over
  A / tie / B, with a bootstrap interval over pairs (`results.agreement`);
- the length preference: the slope of the rating on log length within sets (each set's
  ratings and standardised log lengths centred), in rating points per sd, beside the same
  slope of the people's mean, each with a 95 % bootstrap interval over sets (2,000 draws,
  seed 0), and the judge's slope less the people's, bootstrapped by set (the same sets
  drawn for both), so that the difference is the judge's preference beyond people's.

Writes docs/benchmarks/judges_vs_people_table.txt and docs/benchmarks/judges_vs_people.json.

Usage:
    python scripts/hanna_study.py [--data ../shared/data/hanna] [--out docs/benchmarks]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import spearmanr

from llm_qualitative_sort import Pointwise, PointwiseResult, QualitativeSorter
from llm_qualitative_sort.rating.covariates import length_feature
from llm_qualitative_sort.rating.scale import Scale
from llm_qualitative_sort.results.agreement import LabelledCall, judge_agreement
from llm_qualitative_sort.testing import FunctionProvider

PROMPTS = ("EP1", "EP2", "EP3", "EP4")
CRITERIA = "How good is this story overall?"


def overall(ratings: dict[str, float]) -> float:
    return float(np.mean(list(ratings.values())))


def stored_answer(value: float) -> PointwiseResult:
    """A stored mean rating as a label with its fraction spread to the next label."""
    value = min(max(value, 1.0), 5.0)
    low = math.floor(value)
    part = value - low
    if part < 1e-9:
        return PointwiseResult(label=low, reason="stored rating")
    return PointwiseResult(label=round(value), reason="stored rating",
                           distribution={low: 1 - part, low + 1: part})


async def replayed_rho(texts: list[str], judged: dict[str, float], gold: dict[str, float]
                       ) -> float:
    def score(text: str, criteria: str, scale: Scale) -> PointwiseResult:
        return stored_answer(judged[text])

    sorter = QualitativeSorter(FunctionProvider(score=score, model="hanna"),
                               criteria=CRITERIA, strategy=Pointwise(scale="1-5"), seed=0,
                               checkpointer=None)
    result = await sorter.sort(texts)
    assert result.scores is not None
    order = [result.scores[text] for text in texts]
    return float(spearmanr(order, [gold[text] for text in texts]).statistic)


def verdict(x: float, y: float) -> str:
    return "A" if x > y + 1e-9 else "B" if y > x + 1e-9 else "tie"


def within_set_slope(values: list[np.ndarray], lengths: list[np.ndarray]) -> float:
    """The pooled slope of centred values on centred standardised log lengths."""
    x = np.concatenate([z - z.mean() for z in lengths])
    y = np.concatenate([v - v.mean() for v in values])
    return float((x * y).sum() / (x * x).sum())


BOOTSTRAP_DRAWS = 2000


def set_moments(values: list[np.ndarray], lengths: list[np.ndarray]) -> tuple[np.ndarray,
                                                                                np.ndarray]:
    """Per set, Σ x·y and Σ x² of the centred values and lengths: the slope's two sums."""
    xy = np.array([((z - z.mean()) * (v - v.mean())).sum()
                   for v, z in zip(values, lengths, strict=True)])
    xx = np.array([((z - z.mean()) ** 2).sum() for z in lengths])
    return xy, xx


def slope_interval(xy: np.ndarray, xx: np.ndarray, people_xy: np.ndarray
                   ) -> tuple[float, float, float, float, float]:
    """95 % bootstrap intervals over sets: (low, high) of the slope, the gap to people's
    slope, and that gap's (low, high); the same draws of sets for every judge (seed 0)."""
    draws = np.random.default_rng(0).integers(0, xy.size, (BOOTSTRAP_DRAWS, xy.size))
    slopes = xy[draws].sum(axis=1) / xx[draws].sum(axis=1)
    gaps = slopes - people_xy[draws].sum(axis=1) / xx[draws].sum(axis=1)
    low, high = np.percentile(slopes, [2.5, 97.5])
    gap_low, gap_high = np.percentile(gaps, [2.5, 97.5])
    gap = float(xy.sum() / xx.sum() - people_xy.sum() / xx.sum())
    return float(low), float(high), gap, float(gap_low), float(gap_high)


async def study(sets: list[dict[str, Any]]) -> dict[str, Any]:
    judges = list(sets[0]["items"][0]["llm"])
    rows: list[dict[str, Any]] = []
    lengths = [length_feature([it["text"] for it in s["items"]]) for s in sets]
    human = [np.array([overall(it["human_mean"]) for it in s["items"]]) for s in sets]
    people_xy, xx = set_moments(human, lengths)
    for judge in judges:
        for prompt in PROMPTS:
            rhos, calls, values = [], [], []
            for k, one in enumerate(sets):
                texts = [it["text"] for it in one["items"]]
                judged = {it["text"]: overall(it["llm"][judge][prompt]) for it in one["items"]}
                gold = {it["text"]: overall(it["human_mean"]) for it in one["items"]}
                rhos.append(await replayed_rho(texts, judged, gold))
                values.append(np.array([judged[t] for t in texts]))
                base = 100 * k
                for i in range(len(texts)):
                    for j in range(i + 1, len(texts)):
                        calls.append(LabelledCall(
                            base + i, base + j, verdict(gold[texts[i]], gold[texts[j]]),
                            verdict(judged[texts[i]], judged[texts[j]]), True))
            figures = judge_agreement(calls, draws=1000)
            low, high, gap, gap_low, gap_high = slope_interval(
                set_moments(values, lengths)[0], xx, people_xy)
            rows.append({
                "judge": judge, "prompt": prompt, "rho": float(np.nanmean(rhos)),
                "rho_sd": float(np.nanstd(rhos)), "agreement": figures.agreement,
                "kappa": figures.kappa.value, "kappa_low": figures.kappa.low,
                "kappa_high": figures.kappa.high,
                "length_slope": within_set_slope(values, lengths),
                "length_slope_low": low, "length_slope_high": high, "length_gap": gap,
                "length_gap_low": gap_low, "length_gap_high": gap_high})
    rows.sort(key=lambda r: -r["rho"])
    length_rho = float(np.mean([spearmanr(z, h).statistic for z, h in zip(lengths, human,
                                                                        strict=True)]))
    people_low, people_high, *_ = slope_interval(people_xy, xx, people_xy)
    return {"rows": rows, "people_length_slope": within_set_slope(human, lengths),
            "people_length_slope_low": people_low, "people_length_slope_high": people_high,
            "length_rho": length_rho, "sets": len(sets)}


def table(found: dict[str, Any]) -> str:
    lines = ["| judge | prompt | ρ with people's mean (sorter, pointwise) | pairwise agreement "
             "| κ (95 % CI) | length slope, points per sd (95 % CI) "
             "| slope less people's (95 % CI) |", "|---|---|---|---|---|---|---|"]
    for r in found["rows"]:
        lines.append(f"| {r['judge']} | {r['prompt']} | {r['rho']:.3f} ± {r['rho_sd']:.3f} | "
                     f"{r['agreement']:.1%} | {r['kappa']:.2f} ({r['kappa_low']:.2f}–"
                     f"{r['kappa_high']:.2f}) | {r['length_slope']:+.3f} "
                     f"({r['length_slope_low']:+.3f} to {r['length_slope_high']:+.3f}) "
                     f"| {r['length_gap']:+.3f} ({r['length_gap_low']:+.3f} to "
                     f"{r['length_gap_high']:+.3f}) |")
    lines.append(f"| story length alone | — | {found['length_rho']:.3f} | — | — | — | — |")
    lines.append(f"| people (the gold) | — | — | — | — | {found['people_length_slope']:+.3f} "
                 f"({found['people_length_slope_low']:+.3f} to "
                 f"{found['people_length_slope_high']:+.3f}) | — |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared"
                                              / "data" / "hanna"))
    parser.add_argument("--out", default="docs/benchmarks")
    args = parser.parse_args()
    sets = [json.loads(p.read_text(encoding="utf-8"))
            for p in sorted(Path(args.data).glob("p*.json"))]
    found = asyncio.run(study(sets))
    out = Path(args.out)
    (out / "judges_vs_people.json").write_text(json.dumps(found, indent=1) + "\n",
                                               encoding="utf-8")
    text = table(found)
    (out / "judges_vs_people_table.txt").write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
