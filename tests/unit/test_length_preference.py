"""The judge's length preference: its estimate in the audit, people's, and `adjust=`."""

from __future__ import annotations

import asyncio
import math
import random
from typing import Any

import numpy as np
import pytest

from llm_qualitative_sort import Elimination, MockLLMProvider, QualitativeSorter
from llm_qualitative_sort.rating.preference import length_preference
from llm_qualitative_sort.rating.result import Rating
from llm_qualitative_sort.rating.structured import fit_structured
from llm_qualitative_sort.results.adjusted import check_adjust, human_length_preference
from llm_qualitative_sort.results.human import check_human
from llm_qualitative_sort.verdicts import MatchResult, RoundResult

SCALE = 3.33 * math.sqrt(6) / math.pi  # the Gumbel mock's logistic scale


def texts_of(n: int, spread: float, seed: int) -> dict[str, float]:
    """n texts of log-uniform length (50 to 2000 characters), each with a value in logits."""
    rng = random.Random(seed)
    texts = {}
    for i in range(n):
        length = int(math.exp(rng.uniform(math.log(50), math.log(2000))))
        texts[f"{i:04d} " + "x" * length] = rng.gauss(0.0, spread)
    return texts


def length_judge(values: dict[str, float], seed: int, preference: float) -> MockLLMProvider:
    return MockLLMProvider(seed=seed, noise="gumbel", score=lambda text: values[text] * SCALE,
                           length_preference=preference)


def sorter(judge: MockLLMProvider, seed: int, count: int = 2) -> QualitativeSorter:
    return QualitativeSorter(judge, criteria="better", seed=seed, checkpointer=None,
                             strategy=Elimination(elimination_count=count))


# --- the estimate ------------------------------------------------------------------------


async def mock_matches(judge: MockLLMProvider, items: list[str], matches: int,
                       seed: int) -> list[MatchResult]:
    """`matches` random pairs, each judged in both orders, as a run records them."""
    rng = random.Random(seed)
    judge.check_items(items)
    played = []
    for _ in range(matches):
        a, b = rng.sample(items, 2)
        ab = await judge.compare_call(a, b, "better", repetition=0)
        ba = await judge.compare_call(b, a, "better", repetition=0)
        in_match_terms = {"A": "B", "B": "A"}[ba.winner or ""]
        rounds = [RoundResult("AB", ab.winner, "", False, 0, 0),
                  RoundResult("BA", in_match_terms, "", False, 0, 0)]  # type: ignore[arg-type]
        played.append(MatchResult(a, b, None, rounds, 1))
    return played


@pytest.mark.parametrize("seed", range(5))
def test_the_audit_recovers_the_mocks_length_preference(seed: int) -> None:
    # 500 texts of near-equal quality (sd 0.25 logits), 16,000 calls: β's standard error is
    # about 0.016, so 0.25 ± 0.05 is ±3 sd. Random pairs rather than a tournament: the
    # estimate reads calls, whoever paired them, and a tournament this size takes minutes.
    values = texts_of(500, 0.25, seed)
    items = list(values)
    matches = asyncio.run(mock_matches(length_judge(values, seed, 0.25), items, 8000, seed))
    effect = length_preference(Rating(items, matches))
    assert effect is not None and effect.method == "structured"
    assert abs(effect.beta - 0.25) <= 0.05
    assert effect.low < 0.25 < effect.high


def test_a_tournament_shows_the_mocks_length_preference() -> None:
    values = texts_of(150, 0.5, 11)
    result = asyncio.run(sorter(length_judge(values, 11, 0.5), 11, 4).sort(list(values)))
    effect = result.length_preference
    assert effect is not None and effect.low < 0.5 < effect.high and effect.low > 0.2


def test_a_judge_without_length_preference_shows_none_within_its_interval() -> None:
    values = texts_of(120, 1.0, 3)
    result = asyncio.run(sorter(length_judge(values, 3, 0.0), 3).sort(list(values)))
    effect = result.length_preference
    assert effect is not None and effect.low < 0 < effect.high


def test_the_structured_fit_recovers_a_known_beta_and_its_intervals_cover() -> None:
    # Exact Bradley–Terry draws: the 95 % interval holds the true β in most of 40 fits.
    held, estimates = 0, []
    for seed in range(40):
        rng = np.random.default_rng(seed)
        x, residual = rng.normal(size=80), rng.normal(scale=0.5, size=80)
        first, second = rng.integers(0, 80, (2, 3000))
        keep = first != second
        first, second = first[keep], second[keep]
        strength = 0.4 * x + residual
        won = rng.random(first.size) < 1 / (1 + np.exp(-(strength[first] - strength[second])))
        effect = fit_structured(80, first, second, won, {"x": x}).effects["x"]
        estimates.append(effect.beta)
        held += effect.low <= 0.4 <= effect.high
    assert held >= 34  # 95 % of 40 is 38; binomial spread allows a few more misses
    assert abs(np.mean(estimates) - 0.4) < 0.03


def test_fewer_than_three_items_or_one_length_have_no_length_preference() -> None:
    judge = MockLLMProvider(seed=1)
    two = asyncio.run(sorter(judge, 1).sort(["a text", "another text"]))
    same = asyncio.run(sorter(MockLLMProvider(seed=1), 1).sort(["aaa", "bbb", "ccc", "ddd"]))
    assert two.length_preference is None and same.length_preference is None


def test_the_audit_leaves_every_verdict_and_ranking_as_it_was() -> None:
    values = texts_of(40, 1.0, 5)
    plain = asyncio.run(sorter(length_judge(values, 5, 0.0), 5).sort(list(values)))
    audited = asyncio.run(sorter(length_judge(values, 5, 0.0), 5).sort(list(values)))
    assert audited.length_preference is not None
    assert audited.rankings == plain.rankings and audited.adjusted is None
    assert [m.rounds for m in audited.match_history] == [m.rounds for m in plain.match_history]


# --- people's length preference ----------------------------------------------------------


def test_peoples_length_preference_comes_from_their_verdicts() -> None:
    values = texts_of(60, 0.5, 7)
    items = list(values)
    lengths = np.log([len(text) for text in items])
    x = (lengths - lengths.mean()) / lengths.std()
    rng = random.Random(7)
    verdicts = []
    for _ in range(4000):
        a, b = rng.sample(range(60), 2)
        gap = values[items[a]] - values[items[b]] + 0.6 * (x[a] - x[b])
        verdicts.append((a, b, "A" if rng.random() < 1 / (1 + math.exp(-gap)) else "B"))
    effect = human_length_preference(check_human({"verdicts": verdicts}, items), items)
    assert effect is not None and effect.low < 0.6 < effect.high


def test_people_with_scores_only_have_no_length_preference() -> None:
    items = ["short", "longer text", "the longest text"]
    labels = check_human({"scores": {0: 1.0, 1: 2.0}}, items)
    assert human_length_preference(labels, items) is None


# --- adjust= -----------------------------------------------------------------------------


def test_adjust_length_ranks_beside_the_raw_order_without_changing_it() -> None:
    values = texts_of(60, 1.0, 2)
    plain = asyncio.run(sorter(length_judge(values, 2, 1.0), 2).sort(list(values)))
    result = asyncio.run(sorter(length_judge(values, 2, 1.0), 2).sort(list(values),
                                                                      adjust="length"))
    assert result.rankings == plain.rankings
    assert result.statistics.total_api_calls == plain.statistics.total_api_calls
    adjusted = result.adjusted
    assert adjusted is not None and adjusted.covariates == ("length",)
    assert sorted(adjusted.scores) == sorted(values)
    assert all(low <= adjusted.scores[t] <= high for t, (low, high) in adjusted.intervals.items())
    assert adjusted.effects[0] == result.length_preference
    # Taken out, the length preference no longer orders the texts; the raw order follows it.
    lengths = {text: math.log(len(text)) for text in values}
    raw_corr = np.corrcoef([lengths[t] for t in values], [result.scores[t] for t in values])[0, 1]
    adjusted_corr = np.corrcoef([lengths[t] for t in values],
                                [adjusted.scores[t] for t in values])[0, 1]
    assert raw_corr > 0.3 and abs(adjusted_corr) < 0.15


def test_adjust_takes_numeric_fields_the_prompt_does_not_show() -> None:
    values = texts_of(40, 1.0, 4)
    fields = [{"reading_level": float(i % 7)} for i in range(40)]
    result = asyncio.run(sorter(length_judge(values, 4, 0.5), 4).sort(
        list(values), fields=fields, adjust=["length", "reading_level"]))
    assert result.adjusted is not None
    assert [e.covariate for e in result.adjusted.effects] == ["length", "reading_level"]


@pytest.mark.parametrize(
    ("adjust", "fields", "message"),
    [(["reading_level"], [{"reading_level": 3}, {}, {"reading_level": 1}],
      r"item 1 \('bb'\) has no field 'reading_level'"),
     (["reading_level"], [{"reading_level": 3}, {"reading_level": "hard"},
                          {"reading_level": 1}], r"item 1 .*'hard', not a finite number"),
     (["reading_level"], [{"reading_level": True}] * 3, "True, not a finite number"),
     (["reading_level"], None, "field of every item"),
     ([], None, "at least one"),
     (["length", "length"], None, "given twice"),
     (["grade"], [{"grade": 2}] * 3, "the same for every item")],
)
def test_a_bad_adjust_is_refused_before_any_call(adjust: Any, fields: Any, message: str) -> None:
    judge = MockLLMProvider(seed=1)
    with pytest.raises(ValueError, match=message):
        asyncio.run(sorter(judge, 1).sort(["a", "bb", "ccc"], fields=fields, adjust=adjust))
    assert judge.calls == 0


def test_adjust_of_a_wrong_type_and_of_a_pointwise_run_are_refused() -> None:
    with pytest.raises(TypeError, match="adjust"):
        check_adjust(3, ["a", "bb", "ccc"])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="pointwise"):
        check_adjust("length", ["a", "bb", "ccc"], pairwise=False)
