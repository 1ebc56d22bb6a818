"""The mock's order for a ranking call, measured against its pairwise answers over many draws."""

import hashlib
import json
import math
import random
from itertools import combinations
from statistics import NormalDist
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llm_qualitative_sort import MockLLMProvider
from llm_qualitative_sort.errors import InputError
from llm_qualitative_sort.testing._draws import KeyedDraws
from llm_qualitative_sort.testing.mock import (
    list_stddev,
    mock_order,
    noisy_values,
    order_of,
    ranking_key,
    ranking_rng,
)

SD = 3.33
N = 4000
PHI = NormalDist().cdf


def within(share: float, p: float, n: int, sigmas: float = 3.0) -> bool:
    """A measured share agrees with probability p, within binomial tolerance."""
    return abs(share - p) <= sigmas * math.sqrt(p * (1 - p) / n)


def before(order: list[list[int]], i: int, j: int) -> bool:
    """Slot i is placed strictly ahead of slot j."""
    rank = {slot: place for place, group in enumerate(order) for slot in group}
    return rank[i] < rank[j]


# --- k = 2 is the pairwise call ----------------------------------------------------------


@pytest.mark.parametrize("noise", ["gauss", "gumbel", "student_t"])
async def test_with_two_texts_a_text_wins_as_often_as_in_the_pairwise_mock(noise: Any) -> None:
    texts, values = ["10", "13"], [10.0, 13.0]
    ranked = [mock_order(values, rng=ranking_rng(11, texts, r), stddev=SD, noise=noise)
              for r in range(N)]
    ranking_share = sum(order[0] == [0] for order in ranked) / N
    provider = MockLLMProvider(seed=11, noise=noise)
    verdicts = [await provider.compare_call(*texts, "c", repetition=r) for r in range(N)]
    pairwise_share = sum(v.winner == "A" for v in verdicts) / N
    sd = math.sqrt((ranking_share * (1 - ranking_share) + pairwise_share * (1 - pairwise_share))
                   / N)
    assert abs(ranking_share - pairwise_share) <= 3 * sd
    # The pair is close enough that a wrong order is common, so the check has teeth.
    assert 0.15 < ranking_share < 0.45


# --- each implied pair is a pairwise call ------------------------------------------------


def test_each_implied_pair_of_four_wins_with_the_pairwise_probability() -> None:
    texts, values = ["a", "b", "c", "d"], [0.0, 2.0, 3.0, 6.0]
    ranked = [mock_order(values, rng=ranking_rng(12, texts, r), stddev=SD) for r in range(N)]
    for i, j in combinations(range(4), 2):
        share = sum(before(order, i, j) for order in ranked) / N
        expected = PHI((values[i] - values[j]) / (math.sqrt(2) * SD))
        assert within(share, expected, N), (i, j, share, expected)


# --- position bias -----------------------------------------------------------------------


def _first_place_probability(values: list[float], bonus: float, sd: float) -> float:
    """P(slot 0 has the largest noisy value), integrated over its noise on a fine grid."""
    steps, low, high = 4000, -8.0, 8.0
    width = (high - low) / steps
    total = 0.0
    for step in range(steps + 1):
        z = low + step * width
        top = values[0] + bonus + sd * z
        beaten = math.prod(PHI((top - v) / sd) for v in values[1:])
        total += NormalDist().pdf(z) * beaten * (0.5 if step in (0, steps) else 1.0)
    return total * width


def test_a_bias_on_the_first_slot_raises_its_first_places_by_the_expected_amount() -> None:
    texts, values, bonus = ["a", "b", "c", "d"], [1.0, 2.0, 3.0, 4.0], 2.0

    def first_share(bias: list[float] | None) -> float:
        ranked = [mock_order(values, rng=ranking_rng(13, texts, r), stddev=SD,
                             position_bias=bias) for r in range(N)]
        return sum(order[0] == [0] for order in ranked) / N

    plain, biased = first_share(None), first_share([bonus, 0.0, 0.0, 0.0])
    expected_plain = _first_place_probability(values, 0.0, SD)
    expected_biased = _first_place_probability(values, bonus, SD)
    assert within(plain, expected_plain, N)
    assert within(biased, expected_biased, N)
    # The same draws with and without the bonus: the rise itself is the expected one.
    assert expected_biased - expected_plain > 0.1
    rise_sd = math.sqrt((expected_biased - expected_plain) / N)
    assert abs((biased - plain) - (expected_biased - expected_plain)) <= 3 * rise_sd


def test_a_bias_only_shifts_values_it_draws_nothing() -> None:
    values = [1.0, 2.0, 3.0]
    plain = noisy_values(values, rng=random.Random(3), stddev=SD)
    biased = noisy_values(values, rng=random.Random(3), stddev=SD, position_bias=[0.5, 0.0, -1])
    assert biased == [plain[0] + 0.5, plain[1], plain[2] - 1]


# --- list penalty ------------------------------------------------------------------------


def _agreement(k: int, list_penalty: float) -> float:
    """How often the slot worth 1 is placed ahead of the slot worth 0, in a list of k."""
    values = [1.0, 0.0] + [10.0 * (i + 1) for i in range(k - 2)]
    texts = [f"t{i}" for i in range(k)]
    ranked = [mock_order(values, rng=ranking_rng(14, texts, r), stddev=SD,
                         list_penalty=list_penalty) for r in range(N)]
    return sum(before(order, 0, 1) for order in ranked) / N


def test_a_list_penalty_lowers_agreement_with_the_true_order_as_lists_grow() -> None:
    shares = [_agreement(k, 0.5) for k in (2, 4, 8)]
    for k, share in zip((2, 4, 8), shares, strict=True):
        expected = PHI(1.0 / (math.sqrt(2) * list_stddev(SD, k, 0.5)))
        assert within(share, expected, N), (k, share, expected)
    assert shares[0] > shares[1] > shares[2]
    assert shares[0] - shares[2] > 0.06


def test_without_a_list_penalty_a_pair_is_as_noisy_in_any_list_length() -> None:
    expected = PHI(1.0 / (math.sqrt(2) * SD))
    for k in (2, 4, 8):
        assert within(_agreement(k, 0.0), expected, N)


def test_the_list_noise_grows_linearly_from_the_pairwise_noise() -> None:
    assert list_stddev(SD, 2, 0.7) == SD
    assert list_stddev(2.0, 5, 0.5) == pytest.approx(5.0)


# --- ties --------------------------------------------------------------------------------


def test_ties_appear_only_with_a_tie_margin() -> None:
    texts, values = ["a", "b", "c"], [0.0, 0.5, 1.0]
    for margin in (None, 0.0):
        ranked = [mock_order(values, rng=ranking_rng(15, texts, r), stddev=SD,
                             tie_margin=margin) for r in range(N)]
        assert all(len(group) == 1 for order in ranked for group in order)
    ranked = [mock_order(values, rng=ranking_rng(15, texts, r), stddev=SD, tie_margin=3.0)
              for r in range(N)]
    assert sum(any(len(group) > 1 for group in order) for order in ranked) > N // 10


def test_equal_values_without_noise_keep_the_shown_order_and_do_not_tie() -> None:
    assert mock_order([2.0, 2.0, 2.0], rng=random.Random(0), stddev=0.0) == [[0], [1], [2]]
    assert mock_order([2.0, 2.0, 2.0], rng=random.Random(0), stddev=0.0,
                      tie_margin=0.1) == [[0, 1, 2]]


def test_two_texts_tie_as_often_as_their_noisy_values_fall_within_the_margin() -> None:
    texts, values, margin = ["a", "b"], [0.0, 1.0], 1.5
    ranked = [mock_order(values, rng=ranking_rng(16, texts, r), stddev=SD, tie_margin=margin)
              for r in range(N)]
    share = sum(order == [[0, 1]] or order == [[1, 0]] for order in ranked) / N
    gap = math.sqrt(2) * SD
    expected = PHI((margin - 1.0) / gap) - PHI((-margin - 1.0) / gap)
    assert within(share, expected, N)


def test_a_tied_group_spans_less_than_the_margin() -> None:
    assert order_of([3.0, 2.6, 2.2, 1.9], tie_margin=0.5) == [[0, 1], [2, 3]]


# --- determinism and keys ----------------------------------------------------------------


def test_the_same_call_gives_the_same_order() -> None:
    texts, values = ["w", "x", "y", "z"], [1.0, 2.0, 3.0, 4.0]
    first = [mock_order(values, rng=ranking_rng(17, texts, r), stddev=SD) for r in range(200)]
    again = [mock_order(values, rng=ranking_rng(17, texts, r), stddev=SD) for r in range(200)]
    assert first == again
    other_seed = [mock_order(values, rng=ranking_rng(18, texts, r), stddev=SD)
                  for r in range(200)]
    assert first != other_seed


def test_the_mocks_cached_draws_give_the_same_generator() -> None:
    texts = ["p", "q", "r"]
    draws = KeyedDraws(19)
    for repetition in range(5):
        cached = draws.rng(*ranking_key(texts, repetition)).random()
        assert cached == ranking_rng(19, texts, repetition).random()


def test_a_ranking_call_never_shares_the_pairwise_calls_draws() -> None:
    # The same two texts in the same order and repetition: a ranking call is a call of its own.
    assert ranking_rng(20, ["a", "b"], 0).random() != KeyedDraws(20).rng("a", "b", 0).random()


def test_another_presentation_order_or_repetition_gets_fresh_draws() -> None:
    base = ranking_rng(21, ["a", "b", "c"], 0).random()
    assert base != ranking_rng(21, ["c", "b", "a"], 0).random()
    assert base != ranking_rng(21, ["a", "b", "c"], 1).random()


@given(
    st.lists(st.floats(-100, 100), min_size=2, max_size=8),
    st.integers(0, 2**32),
    st.sampled_from(["gauss", "gumbel", "student_t"]),
    st.one_of(st.none(), st.floats(0, 5)),
    st.floats(0, 2),
)
def test_an_order_places_every_slot_once_best_first(
    values: list[float], seed: int, noise: Any, margin: float | None, penalty: float
) -> None:
    noisy = noisy_values(values, rng=random.Random(seed), stddev=SD, noise=noise,
                         list_penalty=penalty)
    order = mock_order(values, rng=random.Random(seed), stddev=SD, noise=noise,
                       list_penalty=penalty, tie_margin=margin)
    assert order == order_of(noisy, margin)
    assert sorted(slot for group in order for slot in group) == list(range(len(values)))
    flat = [noisy[slot] for group in order for slot in group]
    assert flat == sorted(flat, reverse=True)
    for group in order:
        if len(group) > 1:
            assert margin and noisy[group[0]] - noisy[group[-1]] < margin
    if not margin:
        assert all(len(group) == 1 for group in order)


# --- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "options", "message"),
    [
        ([1.0], {}, r"values must hold at least 2 texts to order, got 1"),
        ([1.0, math.nan], {}, r"values must be finite, got nan"),
        ([1.0, 2.0], {"stddev": -1.0}, r"stddev must be >= 0, got -1.0"),
        ([1.0, 2.0], {"stddev": math.inf}, r"stddev must be >= 0, got inf"),
        ([1.0, 2.0], {"noise": "cauchy"}, r"noise must be one of .*'cauchy'"),
        ([1.0, 2.0], {"list_penalty": -0.5}, r"list_penalty must be >= 0, got -0.5"),
        ([1.0, 2.0], {"position_bias": [1.0]}, r"position_bias must give one bonus per shown "
                                               r"text \(2\), got 1: \[1.0\]"),
        ([1.0, 2.0], {"position_bias": [1.0, math.inf]}, r"position_bias must be finite, got inf"),
        ([1.0, 2.0], {"tie_margin": -0.1}, r"tie_margin must be >= 0 or None, got -0.1"),
        ([1.0, 2.0], {"tie_margin": math.nan}, r"tie_margin must be >= 0 or None, got nan"),
    ],
)
def test_bad_settings_are_refused_naming_the_setting_and_value(
    values: list[float], options: dict[str, Any], message: str
) -> None:
    rng = random.Random(0)
    state = rng.getstate()
    with pytest.raises(InputError, match=message):
        mock_order(values, rng=rng, **({"stddev": SD} | options))
    assert rng.getstate() == state  # refused before any draw


# --- the pairwise mock is untouched ------------------------------------------------------


async def test_the_pairwise_answers_are_unchanged() -> None:
    # Digest of pairwise answers under the options a ranking call shares (noise kinds, ties)
    # and the realistic preset, taken before the ranking model existed.
    out = []
    providers = [MockLLMProvider(seed=3), MockLLMProvider(seed=4, noise="gumbel"),
                 MockLLMProvider(seed=5, noise="student_t", tie_margin=3.0),
                 MockLLMProvider.realistic(seed=6)]
    for provider in providers:
        for i in range(40):
            a, b = str(i * 7 % 50), str(i * 11 % 53)
            if a != b:
                r = await provider.compare_call(a, b, "c", repetition=i % 3, ties=i % 2 == 0)
                out.append([r.winner, r.reasoning, r.raw_response])
    assert hashlib.sha256(json.dumps(out).encode()).hexdigest()[:16] == "e90229cad3dd7ade"
