"""Ranking calls in Swiss: the setting, the pure planning and fitting pieces, the carrier."""

from __future__ import annotations

import asyncio
import random
from collections import Counter

import numpy as np
import pytest

from llm_qualitative_sort import InputError, MockLLMProvider, Swiss
from llm_qualitative_sort._calls.ranking import checked
from llm_qualitative_sort.bradley_terry import fit_bradley_terry
from llm_qualitative_sort.errors import InvalidAnswerError
from llm_qualitative_sort.graph.nodes._groups import group_log
from llm_qualitative_sort.providers.questions import Compare, Rank, Request
from llm_qualitative_sort.results.listwise import slot_shares
from llm_qualitative_sort.tournament import strategy_for
from llm_qualitative_sort.tournament.swiss.groups import (
    focus_groups,
    gather_groups,
    neighbour_groups,
    planned,
    sitting_out,
)
from llm_qualitative_sort.verdicts import ComparisonResult, RankingCall, RankingResult


@pytest.mark.parametrize(("given", "message"), [
    ({"group_size": 1}, "group_size must be >= 2, got 1"),
    ({"group_size": 9}, "group_size must be at most 8, got 9"),
    ({"group_size": 4, "comparison_rounds": 2}, "comparison_rounds must be 1, got 2"),
])
def test_a_bad_group_size_is_refused_naming_it(given: dict[str, int], message: str) -> None:
    with pytest.raises(InputError, match=message):
        Swiss(**given)  # type: ignore[arg-type]


def test_a_group_larger_than_the_run_is_refused() -> None:
    settings = Swiss(group_size=5)
    with pytest.raises(InputError, match=r"group_size must be at most the number of items \(4\)"):
        strategy_for(settings, 4, 0).check(settings, 4)


def test_the_default_plans_pairs_as_before() -> None:
    strategy = strategy_for(Swiss(), 10, 7)
    plan = strategy.plan(strategy.start(), [], 1)
    assert plan.groups == [] and len(plan.matches) == 5


def test_groups_are_neighbours_shown_shuffled_and_replayed_by_seed() -> None:
    strategy = strategy_for(Swiss(group_size=4, budget=100), 10, 7)
    standing = {**strategy.start(), "strengths": [float(i) for i in range(10)]}
    plan = strategy.plan(standing, [], 2)
    assert plan.matches == [] and len(plan.groups) == 2  # 2 of the 10 sit out
    members = [sorted(g.items) for g in plan.groups]
    assert all(group[-1] - group[0] <= 5 for group in members)  # neighbours in strength
    assert strategy.plan(standing, [], 2) == plan  # a resumed run plans the same
    shown = [g.items for r in range(1, 30) for g in strategy.plan(standing, [], r).groups]
    assert len({tuple(sorted(s)) for s in shown}) < len(set(shown))  # orders vary


def test_the_items_sitting_out_change_from_round_to_round() -> None:
    rng = random.Random(1)
    assert sitting_out(list(range(8)), 4, [], rng) == set()
    out = sitting_out(list(range(10)), 4, [0, 1], rng)
    assert len(out) == 2 and not out & {0, 1}


def test_neighbour_and_focus_groups() -> None:
    assert neighbour_groups([9, 8, 7, 6, 5], 2) == [(9, 8), (7, 6)]
    waves = focus_groups([0, 1, 2, 3, 4, 5], [0, 1, 2, 3, 4, 5, 6], 3, calls=4)
    assert len(waves) == 4 and waves[0] == (0, 1, 2) and waves[2] != waves[0]
    assert planned([(1, 2, 3), (1, 2, 3)], Counter({(1, 2, 3): 2}))[1].first_repetition == 3


def test_each_implied_pair_counts_two_kths_shown_order_first() -> None:
    history = [{"groups": [{"items": [4, 1, 7, 2], "order": [[7], [1], [4, 2]]},
                           {"items": [0, 3, 5, 6], "order": None}]}]
    found = gather_groups(history)
    assert found.calls == 2 and len(found.first) == 6
    assert set(found.weight) == {0.5}
    pairs = set(zip(found.first, found.second, found.first_won, strict=True))
    assert (1, 7, 0.0) in pairs and (4, 2, 0.5) in pairs and (4, 1, 0.0) in pairs


def test_a_call_of_weight_two_counts_as_two_calls() -> None:
    doubled = fit_bradley_terry(3, [0, 0, 1], [1, 1, 2], [1.0, 1.0, 0.0])
    weighted = fit_bradley_terry(3, [0, 1], [1, 2], [1.0, 0.0], weight=[2.0, 1.0])
    assert np.allclose(doubled.strengths, weighted.strengths, atol=1e-6)
    assert np.allclose(doubled.standard_errors, weighted.standard_errors, atol=1e-6)
    with pytest.raises(InputError, match="weight not a finite number > 0"):
        fit_bradley_terry(2, [0], [1], [1.0], weight=[0.0])


def test_an_order_that_is_not_the_labels_shown_goes_on_as_no_order() -> None:
    good = checked(RankingResult((("B",), ("A",), ("C",)), "why"), ("A", "B", "C"),
                   ties=False)
    assert good.order == (("B",), ("A",), ("C",)) and "problem" not in good.raw_response
    missing = checked(RankingResult((("B",), ("A",)), "why"), ("A", "B", "C"), ties=False)
    assert missing.order is None and "'C' is missing" in missing.raw_response["problem"]
    tied = checked(RankingResult((("B", "A"), ("C",)), ""), ("A", "B", "C"), ties=False)
    assert tied.order is None and "ties" in tied.raw_response["problem"]
    with pytest.raises(InvalidAnswerError, match="expected a RankingResult"):
        checked(ComparisonResult("A", ""), ("A", "B", "C"), ties=False)


def test_a_stored_group_names_items_and_says_why_it_has_no_order() -> None:
    log = group_log([3, 1, 2], RankingResult(None, "", {"problem": "garbled"}), cached=True)
    assert log["order"] is None and log["problem"] == "garbled" and log["cached"] is True


def test_the_mock_ranks_from_the_same_latent_values_with_its_knobs() -> None:
    texts = ("10", "30", "20", "40")
    plain = MockLLMProvider(seed=1, noise_stddev=0.0)
    assert plain.answers(Rank) and plain.answers(Compare)
    answer = asyncio.run(plain.answer(Request(Rank(texts), "larger")))
    assert isinstance(answer, RankingResult)
    assert answer.order == (("D",), ("B",), ("C",), ("A",))
    biased = MockLLMProvider(seed=1, noise_stddev=0.0, slot_bias=(100.0,))
    first = asyncio.run(biased.answer(Request(Rank(texts), "larger")))
    assert isinstance(first, RankingResult) and first.order is not None
    assert first.order[0] == ("A",)
    assert biased.model_identity != plain.model_identity
    with pytest.raises(InputError, match="list_penalty must be a number >= 0"):
        MockLLMProvider(list_penalty=-1.0)
    with pytest.raises(InputError, match="slot_bias gives at most 8 slots"):
        MockLLMProvider(slot_bias=(0.0,) * 9)


def test_the_mock_list_penalty_makes_longer_lists_noisier() -> None:
    texts = tuple(str(v) for v in (0, 1, 2, 3, 4, 5))

    def wrong(judge: MockLLMProvider) -> int:
        count = 0
        for repetition in range(300):
            answer = asyncio.run(judge.answer(Request(Rank(texts), "c", repetition)))
            assert isinstance(answer, RankingResult) and answer.order is not None
            count += answer.order[0] != ("F",)
        return count

    assert wrong(MockLLMProvider(seed=2, noise_stddev=1.0, list_penalty=1.0)) > wrong(
        MockLLMProvider(seed=2, noise_stddev=1.0))


def test_slot_shares_count_first_places_with_intervals() -> None:
    calls = [RankingCall(("a", "b", "c", "d"), (("a",), ("b",), ("c",), ("d",)), "", False)] * 30
    calls += [RankingCall(("a", "b", "c", "d"), (("b", "c"), ("a",), ("d",)), "", False)] * 10
    calls += [RankingCall(("a", "b", "c", "d"), None, "", False)]
    shares = slot_shares(calls)
    assert [s.slot for s in shares] == [1, 2, 3, 4] and shares[0].calls == 40
    assert shares[0].first == 30 and shares[1].first == 5 and shares[3].first == 0
    assert shares[0].low > shares[0].expected  # the first slot is favoured


def test_the_dry_run_counts_ranking_calls_and_their_longer_prompts() -> None:
    import io

    from llm_qualitative_sort.cli._dry_run import estimate, print_estimate
    from llm_qualitative_sort.cli._rounds import simulated_rounds
    from llm_qualitative_sort.providers._tokens import mean_call_tokens

    texts = ["word " * 40] * 20
    plan = estimate(20, Swiss(group_size=4, budget=50))
    out = io.StringIO()
    print_estimate(plan, 0.01, out, simulated_rounds(Swiss(group_size=4, budget=50), 20),
                   tokens_per_call=mean_call_tokens(texts, "c", shown=4))
    text = out.getvalue()
    assert "LLM calls: 50 … 50 (ranking calls, each showing 4 texts" in text
    assert "matches:" not in text and "cost: at most 0.5000" in text
    # Two more texts of 200 characters: 100 more tokens at 4 characters a token.
    assert mean_call_tokens(texts, "c", shown=4) == mean_call_tokens(texts, "c") + 100
