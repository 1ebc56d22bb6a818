import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit

from llm_qualitative_sort import MatchResult, RoundResult
from llm_qualitative_sort.audit import OrderConsistency
from llm_qualitative_sort.rating.position_bias import from_model, from_swapped_pairs
from llm_qualitative_sort.results.audit import (
    _add_match,
    _solo_tally,
    _Tally,
    audit,
    shared_places,
)


def _call(order, winner, judge=None, cached=False, tokens=(0, 0)):
    return RoundResult(order, winner, "", cached, tokens[0], tokens[1], judge=judge)


def _pair(a, b, first_winner, second_winner, judge=None):
    """A match's AB call then its BA call, winners in the match's terms."""
    return [_call("AB", first_winner, judge), _call("BA", second_winner, judge)]


def test_swapped_pairs_estimate_is_half_the_logit_of_the_share_that_went_first() -> None:
    bias = from_swapped_pairs(first_both=30, second_both=10, first_wins=250, verdicts=400)
    h = math.log(30.5 / 10.5) / 2  # Jeffreys: half a pair added to each side
    assert bias.shift == pytest.approx(expit(h) - 0.5)
    assert bias.first_shown_share == 250 / 400 and bias.evidence == 40
    assert bias.low < bias.shift < bias.high and -0.5 < bias.low and bias.high < 0.5
    none_split = from_swapped_pairs(0, 0, 10, 20)
    assert none_split.shift == 0.0 and none_split.low < -0.3 and none_split.high > 0.3
    assert from_swapped_pairs(0, 0, 0, 0) is None


def test_swapped_pairs_recover_h_whatever_the_strength_gaps() -> None:
    # Exact Bradley–Terry with h = 0.6 and gaps spread wide: the gaps cancel in the
    # conditional likelihood, while the plain first-shown share is diluted by them.
    rng = np.random.default_rng(3)
    h, gaps = 0.6, rng.normal(0, 3, 40_000)
    ab = rng.random(gaps.size) < expit(gaps + h)  # AB: the first-shown (A) wins
    ba = rng.random(gaps.size) < expit(-gaps + h)  # BA: the first-shown (B) wins
    first_both, second_both = int(np.sum(ab & ba)), int(np.sum(~ab & ~ba))
    bias = from_swapped_pairs(first_both, second_both, int(ab.sum() + ba.sum()), 2 * gaps.size)
    truth = expit(h) - 0.5
    assert bias.low < truth < bias.high and abs(bias.shift - truth) < 0.02
    assert bias.first_shown_share - 0.5 < truth - 0.05  # the plain share understates it


def test_model_estimate_recovers_h_with_the_gaps_held() -> None:
    rng = np.random.default_rng(4)
    gaps = rng.normal(0, 1.5, 20_000)
    won = (rng.random(gaps.size) < expit(gaps - 0.3)).astype(float)
    bias = from_model(gaps, won)
    assert bias.method == "model" and bias.low < expit(-0.3) - 0.5 < bias.high
    assert from_model(np.zeros(0), np.zeros(0)) is None


def test_audit_counts_pairs_disagreements_and_who_went_first() -> None:
    matches = [
        MatchResult("a", "b", "A", _pair("a", "b", "A", "A")),  # consistent
        MatchResult("c", "d", None, _pair("c", "d", "A", "B")),  # both first-shown won
        MatchResult("e", "f", None, _pair("e", "f", "B", "A")),  # both second-shown won
        MatchResult("g", "h", None, _pair("g", "h", "A", "B")),  # first-shown again
        MatchResult("i", "j", "A", [_call("AB", "A"), _call("BA", None)]),  # no pair
    ]
    found = audit(matches, "solo")
    assert found.order_consistency == OrderConsistency(pairs=4, disagreements=3, share=0.75)
    (judge,) = found.judges
    assert judge.judge == "solo" and judge.calls == 10 and judge.failed_calls == 1
    bias = found.position_bias
    assert bias is not None and bias.method == "swapped_pairs" and bias.evidence == 3
    # First-shown won: a/b AB, c/d both, e/f neither, g/h both, i/j AB = 6 of 9 verdicts.
    assert bias.first_shown_share == pytest.approx(6 / 9) and bias.shift > 0
    assert found.agreement == ()


def test_audit_splits_by_judge_and_prices_each_judge_on_its_own_tokens() -> None:
    matches = [
        MatchResult("a", "b", "A", [_call("AB", "A", "x", tokens=(10, 1)),
                                    _call("BA", "A", "x", tokens=(10, 1))]),
        MatchResult("c", "d", "A", [_call("AB", "A", "y", tokens=(5, 5)),
                                    _call("BA", "A", "y", cached=True, tokens=(5, 5))]),
    ]
    prices = {"x": lambda i, o: i * 0.1 + o, "y": None}
    found = audit(matches, "unused", prices.get)
    x, y = found.judges
    assert (x.judge, x.paid_calls, x.input_tokens, x.estimated_cost) == ("x", 2, 20, 4.0)
    assert (y.judge, y.calls, y.paid_calls, y.output_tokens, y.estimated_cost) == (
        "y", 2, 1, 5, None)


def test_agreement_and_kappa_on_prompts_both_judges_answered() -> None:
    # Four prompts answered by both; they agree on three. x picks the first-shown text on
    # 3 of 4, y on 2 of 4: chance agreement 3/4·2/4 + 1/4·2/4 = 1/2, κ = (3/4 − 1/2)/(1/2).
    verdicts = [("A", "A"), ("A", "A"), ("A", "B"), ("B", "B")]
    matches = []
    for index, (x, y) in enumerate(verdicts):
        a, b = f"p{index}", f"q{index}"
        matches.append(MatchResult(a, b, None, [_call("AB", x, "x"), _call("BA", "B", "x"),
                                                 _call("AB", y, "y"), _call("BA", "B", "y")]))
    (agreement,) = audit(matches, "unused").agreement
    # The BA prompts: both picked item b every time, i.e. the first-shown: 4 more agreeing.
    assert agreement.judges == ("x", "y") and agreement.prompts == 8
    assert agreement.agreeing == 7 and agreement.share == pytest.approx(7 / 8)
    p_x, p_y = 7 / 8, 6 / 8  # how often each picked the first-shown text
    chance = p_x * p_y + (1 - p_x) * (1 - p_y)
    assert agreement.kappa == pytest.approx((7 / 8 - chance) / (1 - chance), abs=1e-6)


def test_single_calls_take_the_model_estimate_from_the_strengths() -> None:
    matches = [MatchResult(str(i), str(i + 1), "A", [_call("AB" if i % 2 else "BA", "A")])
               for i in range(40)]
    asked = []

    def strengths():
        asked.append(1)
        return {str(i): 0.0 for i in range(41)}

    found = audit(matches, "solo", strengths=strengths)
    assert asked and found.position_bias is not None and found.position_bias.method == "model"
    assert found.order_consistency.pairs == 0 and found.order_consistency.share is None
    paired = [MatchResult("a", "b", "A", _pair("a", "b", "A", "A"))]
    assert audit(paired, "solo", strengths=strengths).position_bias is not None
    assert len(asked) == 1  # AB/BA pairs need no strengths


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["A", "B", None]), st.sampled_from(["A", "B", None]),
                          st.booleans(), st.sampled_from(["AB", "BA"]),
                          st.integers(0, 50)), max_size=30))
def test_the_fast_single_judge_pass_counts_what_the_general_one_does(calls) -> None:
    matches = []
    for index, (x, y, cached, first_order, tokens) in enumerate(calls):
        second_order = "BA" if first_order == "AB" else "AB"
        rounds = [RoundResult(first_order, x, "", cached, tokens, 1),
                  RoundResult(second_order, y, "", False, 2, tokens)]
        matches.append(MatchResult(f"a{index}", f"b{index}", None, rounds))
    fast = _solo_tally(matches)
    general: dict[str, _Tally] = {}
    for match in matches:
        _add_match(general, match, "j")
    assert fast is not None and (fast == general["j"] if matches else fast.calls == 0)


def test_shared_places_count_items_sharing_a_rank() -> None:
    assert shared_places([(1, ["a"]), (2, ["b"])]) == (0, 1)
    assert shared_places([(1, ["a", "b"]), (3, ["c", "d", "e"])]) == (5, 3)
    assert shared_places([]) == (0, 0)


def test_batch_calls_are_priced_at_the_batch_price_for_the_run_and_per_judge() -> None:
    from dataclasses import replace

    from llm_qualitative_sort.results.from_state import statistics

    def price(tokens_in: int, tokens_out: int) -> float:
        return tokens_in * 1.0 + tokens_out * 10.0

    live = _call("AB", "A", tokens=(100, 10))
    batched = replace(_call("BA", "A", tokens=(100, 10)), batch=True)
    stats = statistics([MatchResult("a", "b", "A", [live, batched])], 1, 0.0, price,
                       batch_discount=0.5, judge="j")
    assert stats.batch_calls == 1
    assert stats.estimated_cost == pytest.approx(200 + 200 * 0.5)
    assert stats.judges[0].estimated_cost == pytest.approx(stats.estimated_cost)


def test_stored_calls_keep_their_judge_and_batch_facts() -> None:
    from llm_qualitative_sort.results.from_state import match_from_log

    calls = [["AB", "A", "", False, 1, 2],
             ["BA", "B", "", False, 1, 2, {"judge": "j2", "batch": True}],
             ["AB", None, "", False, 1, 2, "batch"]]  # the form stored before the facts dict
    rounds = match_from_log(["x", "y"], [0, 1, "A", calls], 1).rounds
    assert [(r.judge, r.batch) for r in rounds] == [(None, False), ("j2", True), (None, True)]
