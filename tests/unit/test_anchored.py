"""The anchored fit and the covariate effects, on simulated judges with known flaws."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from llm_qualitative_sort.bradley_terry import fit_bradley_terry
from llm_qualitative_sort.rating.anchored import fit_anchored
from llm_qualitative_sort.rating.covariates import covariate_effects, length_feature, standardised


def random_pairs(rng: np.random.Generator, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    first = rng.integers(0, n, m)
    return first, (first + rng.integers(1, n, m)) % n


def outcomes(rng: np.random.Generator, strengths: np.ndarray, first: np.ndarray,
             second: np.ndarray) -> np.ndarray:
    p = 1 / (1 + np.exp(-(strengths[first] - strengths[second])))
    return (rng.random(first.size) < p).astype(float)


def world(seed: int, n: int = 40, bias: float = 0.8) -> dict[str, np.ndarray]:
    """People's truth, a judge that also rewards a covariate, 2n judge calls, 1.5n verdicts."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=n)
    z = rng.normal(size=n)
    judge_first, judge_second = random_pairs(rng, n, 2 * n)
    judge_won = outcomes(rng, 1.5 * (truth + bias * z), judge_first, judge_second)
    human_first, human_second = random_pairs(rng, n, int(1.5 * n))
    human_won = outcomes(rng, truth, human_first, human_second)
    return {"truth": truth, "z": z, "jf": judge_first, "js": judge_second, "jw": judge_won,
            "hf": human_first, "hs": human_second, "hw": human_won}


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    return float(stats.spearmanr(a, b).statistic)


def test_people_s_verdicts_pull_a_biased_judge_towards_people() -> None:
    rho: dict[str, list[float]] = {"judge": [], "people": [], "anchored": []}
    coverage = []
    for seed in range(12):
        w = world(seed)
        n = w["truth"].size
        judge = fit_bradley_terry(n, w["jf"], w["js"], w["jw"], position=False)
        people = fit_bradley_terry(n, w["hf"], w["hs"], w["hw"], position=False)
        anchored = fit_anchored(judge.strengths, judge.standard_errors, first=w["hf"],
                                second=w["hs"], first_won=w["hw"])
        for name, fit in (("judge", judge), ("people", people), ("anchored", anchored)):
            rho[name].append(spearman(fit.strengths, w["truth"]))
        low, high = anchored.rank_intervals(0.9, draws=1000)
        position = np.empty(n, int)
        position[np.argsort(-w["truth"])] = np.arange(1, n + 1)
        coverage.append(np.mean((low <= position) & (position <= high)))
    mean = {name: float(np.mean(values)) for name, values in rho.items()}
    assert mean["anchored"] > max(mean["judge"], mean["people"]) + 0.05
    assert np.mean(coverage) >= 0.85


def test_a_judge_that_agrees_with_people_keeps_its_order_and_a_positive_scale() -> None:
    w = world(1, bias=0.0)
    n = w["truth"].size
    judge = fit_bradley_terry(n, w["jf"], w["js"], w["jw"], position=False)
    anchored = fit_anchored(judge.strengths, judge.standard_errors, first=w["hf"],
                            second=w["hs"], first_won=w["hw"])
    assert anchored.scale > 0.1
    assert spearman(anchored.strengths, judge.strengths) > 0.8


def test_an_item_nobody_labelled_keeps_the_judge_s_place_and_a_wider_interval() -> None:
    judge = np.linspace(2, -2, 6)
    anchored = fit_anchored(judge, np.full(6, 0.2), first=[1, 2, 1], second=[2, 3, 3],
                            first_won=[1, 1, 1])
    assert not anchored.labelled[0] and not anchored.labelled[5]
    assert anchored.strengths[0] > anchored.strengths[5]
    assert anchored.standard_errors[0] > anchored.standard_errors[1:4].max()


def test_a_covariate_people_do_not_reward_gets_a_negative_effect() -> None:
    effects = []
    for seed in range(4):
        w = world(seed, n=60)
        judge = fit_bradley_terry(60, w["jf"], w["js"], w["jw"], position=False)
        anchored = fit_anchored(judge.strengths, judge.standard_errors, first=w["hf"],
                                second=w["hs"], first_won=w["hw"], covariates=w["z"])
        effects.append(anchored.effects[0])
    assert np.mean(effects) < 0


def test_anchored_input_is_checked() -> None:
    with pytest.raises(ValueError, match="at least one"):
        fit_anchored([0.0, 1.0], [0.1, 0.1], first=[], second=[], first_won=[])
    with pytest.raises(ValueError, match="itself"):
        fit_anchored([0.0, 1.0], [0.1, 0.1], first=[1], second=[1], first_won=[1])
    with pytest.raises(ValueError, match="outside"):
        fit_anchored([0.0, 1.0], [0.1, 0.1], first=[0], second=[2], first_won=[1])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        fit_anchored([0.0, 1.0], [0.1, 0.1], first=[0], second=[1], first_won=[2])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_judge_s_length_preference_is_recovered(seed: int) -> None:
    # Strength = quality + 0.25 per sd of log length, quality uncorrelated with length in
    # this sample: the effect the fit should find is 0.25 logit per sd.
    rng = np.random.default_rng(seed)
    n = 1000
    texts = ["x" * int(length) for length in np.exp(rng.normal(6, 0.6, n))]
    z = length_feature(texts)
    quality = rng.normal(size=n)
    quality = standardised(quality - np.polyval(np.polyfit(z, quality, 1), z))
    strengths = quality + 0.25 * z
    first, second = random_pairs(rng, n, 20 * n)
    fit = fit_bradley_terry(n, first, second, outcomes(rng, strengths, first, second),
                            position=False)
    effect = covariate_effects(fit.strengths, fit.standard_errors, {"length": z})["length"]
    assert effect.beta == pytest.approx(0.25, abs=0.05)
    assert effect.low < 0.25 < effect.high


def test_covariate_input_is_checked() -> None:
    with pytest.raises(ValueError, match="one value per item"):
        covariate_effects([0.0, 1.0, 2.0], [0.1, 0.1, 0.1], {"length": [1.0, 2.0]})
    with pytest.raises(ValueError, match="at least 3"):
        covariate_effects([0.0, 1.0], [0.1, 0.1], {"length": [1.0, 2.0]})


def test_top_k_probabilities_sum_to_k_and_follow_the_strengths() -> None:
    judge = np.array([2.0, 1.0, 0.0, -1.0, -2.0])
    fit = fit_anchored(judge, np.full(5, 0.3), first=[4, 4, 4, 3], second=[0, 1, 0, 0],
                       first_won=[1, 1, 1, 1])
    top = fit.top_k_probability(2)
    assert top.sum() == pytest.approx(2.0)
    assert int(np.argmax(top)) == int(np.argmax(fit.strengths))
    assert np.array_equal(top, fit.top_k_probability(2))  # seeded
    with pytest.raises(ValueError, match="k must lie in 1..5"):
        fit.top_k_probability(6)
