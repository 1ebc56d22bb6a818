"""The helpers over match histories, and the sorter's scores (the model itself is tested in
test_bradley_terry_fit.py and test_bradley_terry_properties.py)."""

import asyncio
import math
import random

import numpy as np
import pytest

from llm_qualitative_sort import MockLLMProvider, QualitativeSorter
from llm_qualitative_sort.bradley_terry import (
    call_observations,
    fit_bradley_terry,
    fit_strengths,
    rank_by_score,
    shown_calls,
)
from llm_qualitative_sort.models import MatchResult, RoundResult, SortResult


def _order(scores: dict[str, float]) -> list[str]:
    return [item for _, group in rank_by_score(scores) for item in group]


def test_recovers_a_known_ordering_from_sampled_games() -> None:
    rng = random.Random(5)
    truth = {f"i{k}": 0.8 * k for k in range(8)}
    items = list(truth)
    observations = []
    for _ in range(4000):
        a, b = rng.sample(items, 2)
        p_a = 1 / (1 + math.exp(truth[b] - truth[a]))
        observations.append((a, b, 1.0 if rng.random() < p_a else 0.0))
    scores = fit_strengths(items, observations)
    assert _order(scores) == sorted(items, key=truth.__getitem__, reverse=True)
    # Differences of log-strengths estimate the true ones (within sampling error).
    assert scores["i7"] - scores["i0"] == pytest.approx(5.6, abs=0.6)


def test_symmetric_records_give_equal_scores_and_a_shared_rank() -> None:
    observations = [("a", "b", 1.0), ("b", "a", 1.0), ("c", "a", 1.0), ("c", "b", 1.0)]
    scores = fit_strengths(["a", "b", "c"], observations)
    assert scores["a"] == scores["b"] < scores["c"]
    assert rank_by_score(scores) == [(1, ["c"]), (2, ["a", "b"])]


def test_a_draw_counts_half_to_each_side() -> None:
    drawn = fit_strengths(["a", "b"], [("a", "b", 0.5)] * 6)
    split = fit_strengths(["a", "b"], [("a", "b", 1.0), ("a", "b", 0.0)] * 3)
    assert drawn == split
    assert drawn["a"] == drawn["b"] == 0.0


def test_prior_keeps_unbeaten_and_winless_items_finite() -> None:
    scores = fit_strengths(["top", "bottom"], [("top", "bottom", 1.0)] * 50)
    assert math.isfinite(scores["top"]) and math.isfinite(scores["bottom"])
    assert scores["top"] > scores["bottom"]
    weaker_prior = fit_strengths(["top", "bottom"], [("top", "bottom", 1.0)] * 50, prior=0.1)
    assert weaker_prior["top"] > scores["top"]  # the prior is what holds the gap finite


def test_items_without_games_sit_at_the_reference() -> None:
    scores = fit_strengths(["a", "b", "idle"], [("a", "b", 1.0)])
    assert scores["a"] > scores["idle"] > scores["b"]


@pytest.mark.parametrize(
    ("observations", "message"),
    [([("a", "zzz", 1.0)], "not in items"), ([("a", "b", 1.5)], r"\[0, 1\]")],
)
def test_bad_observations_are_rejected(observations: list, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fit_strengths(["a", "b"], observations)


def test_prior_must_be_positive() -> None:
    with pytest.raises(ValueError, match="prior"):
        fit_strengths(["a"], [], prior=0)


def test_each_call_with_a_verdict_is_one_observation() -> None:
    calls = [
        RoundResult(order="AB", winner="A", reasoning="", cached=False),
        RoundResult(order="BA", winner="B", reasoning="", cached=False),
        RoundResult(order="AB", winner=None, reasoning="", cached=False),
    ]
    assert call_observations([MatchResult("x", "y", None, calls)]) == [
        ("x", "y", 1.0),
        ("x", "y", 0.0),
    ]


def _call(order: str, winner: str | None) -> RoundResult:
    return RoundResult(order=order, winner=winner, reasoning="", cached=False)  # type: ignore[arg-type]


def test_shown_calls_are_in_presentation_order() -> None:
    matches = [
        # x first and x won; y first and x won (the first-shown lost); no verdict: skipped.
        MatchResult("x", "y", "A", [_call("AB", "A"), _call("BA", "A"), _call("AB", None)]),
        # z first and z (item_b) won; y first and y (item_a) won.
        MatchResult("y", "z", None, [_call("BA", "B"), _call("AB", "A")]),
    ]
    first, second, won = shown_calls(["x", "y", "z"], matches)
    assert first.tolist() == [0, 1, 2, 1]
    assert second.tolist() == [1, 0, 1, 2]
    assert won.tolist() == [1.0, 0.0, 1.0, 1.0]
    assert first.dtype == second.dtype == np.intp and won.dtype == np.float64


def test_shown_calls_of_nothing_and_of_unknown_items() -> None:
    first, second, won = shown_calls(["x"], [])
    assert len(first) == len(second) == len(won) == 0
    with pytest.raises(ValueError, match="unknown item"):
        shown_calls(["x"], [MatchResult("x", "q", "A", [_call("AB", "A")])])


def test_a_judge_that_favours_the_first_shown_is_measured_from_a_history() -> None:
    # y beats x when shown first, x beats y when shown first: equal items, h > 0.
    matches = [MatchResult("x", "y", None, [_call("AB", "A"), _call("BA", "B")])] * 20
    fit = fit_bradley_terry(2, *shown_calls(["x", "y"], matches))
    assert fit.strengths[0] == pytest.approx(fit.strengths[1], abs=1e-9)
    shift, low, high = fit.position_shift()
    assert 0 < low < shift < high < 0.5


def _sort(ranking: str) -> SortResult:
    sorter = QualitativeSorter(
        MockLLMProvider(seed=3), criteria="larger", elimination_count=3, seed=3,
        checkpointer=None, ranking=ranking,  # type: ignore[arg-type]
    )
    return asyncio.run(sorter.sort([str(i) for i in range(0, 400, 7)]))


def test_sorter_ranks_by_strength_from_the_same_calls() -> None:
    by_wins, by_bt = _sort("wins"), _sort("bradley_terry")
    assert by_bt.match_history == by_wins.match_history
    assert by_bt.scores == by_wins.scores
    scores = by_bt.scores
    assert by_bt.rankings == rank_by_score(scores)
    assert by_wins.rankings != by_bt.rankings
    flat = [item for _, group in by_bt.rankings for item in group]
    assert flat[0] == "399"


def test_unknown_ranking_is_rejected() -> None:
    with pytest.raises(ValueError, match="ranking"):
        QualitativeSorter(MockLLMProvider(seed=1), criteria="c", ranking="elo")  # type: ignore[arg-type]


def test_trivial_results_have_scores() -> None:
    sorter = QualitativeSorter(MockLLMProvider(seed=1), criteria="c", checkpointer=None)
    assert asyncio.run(sorter.sort(["5"])).scores == {"5": 0.0}
    assert asyncio.run(sorter.sort([])).scores == {}
