"""The seeded mock judge: its default, its input check, and each option measured over many calls."""

import asyncio
import hashlib
import json
import math
import random
import statistics
from statistics import NormalDist
from typing import Any

import pytest

from llm_qualitative_sort import ComparisonResult, MockLLMProvider
from llm_qualitative_sort.testing.mock import REFUSAL, default_score

Call = tuple[str, str, int]


async def judge(provider: MockLLMProvider, calls: list[Call]) -> list[ComparisonResult]:
    return [await provider.compare_call(a, b, "c", repetition=r) for a, b, r in calls]


def first_wins(results: list[ComparisonResult]) -> float:
    return sum(r.winner == "A" for r in results) / len(results)


def within(share: float, p: float, n: int, sigmas: float = 4.0) -> bool:
    """A measured share agrees with probability p, within binomial tolerance."""
    return abs(share - p) <= sigmas * math.sqrt(p * (1 - p) / n)


# --- the default -------------------------------------------------------------------------


async def test_default_verdicts_are_bit_identical_to_the_specification_mock() -> None:
    # Digest of 171 calls' verdicts, reasonings and raw answers under three settings,
    # computed on commit 5552618, before the options existed.
    out = []
    for options in [{"seed": 3}, {"seed": 5, "noise_stddev": 10.0, "position_bias": 0.2},
                    {"seed": 9, "score": len}]:
        provider = MockLLMProvider(**options)
        for i in range(60):
            a, b = str(i * 7 % 50), str(i * 11 % 53)
            if a != b:
                r = await provider.compare_call(a, b, "c", repetition=i % 3)
                out.append([r.winner, r.reasoning, r.raw_response])
    assert hashlib.sha256(json.dumps(out).encode()).hexdigest()[:16] == "e7103ca0ad320c8e"


def test_default_identity_is_unchanged() -> None:
    assert MockLLMProvider(seed=3).model_identity == (
        "MockLLMProvider:seed=3:sd=3.33:bias=0.0:score=False"
    )


@pytest.mark.parametrize(
    ("text", "value"),
    [("17", 17.0), (" -4 ", -4.0), ("吾輩は猫である", 7.0), ("a b", 3.0), ("9" * 400, 400.0)],
)
def test_default_score_is_the_integer_value_else_the_length(text: str, value: float) -> None:
    assert default_score(text) == value
    assert MockLLMProvider(seed=1).value(text) == value


async def test_the_default_judges_any_text_longer_first_without_noise() -> None:
    provider = MockLLMProvider(seed=1, noise_stddev=0.0)
    assert (await provider.compare("短い", "これは長い文章です", "c")).winner == "B"
    provider.check_items(["短い", "これは長い文章です", "12"])  # accepted


# --- the input check ---------------------------------------------------------------------


def _unknown(text: str) -> float:
    return {"known": 1.0}[text]


@pytest.mark.parametrize(
    ("score", "message"),
    [(_unknown, "cannot score 'other'.*KeyError"), (lambda t: math.nan, "'other' as nan"),
     (lambda t: math.inf, "'other' as inf")],
)
def test_a_text_the_score_cannot_value_is_refused_naming_it(score: Any, message: str) -> None:
    provider = MockLLMProvider(seed=1, score=score)
    with pytest.raises(ValueError, match=message):
        provider.check_items(["other"])
    assert provider.calls == 0


@pytest.mark.parametrize(
    "options",
    [{"noise": "cauchy"}, {"close_noise": -1.0}, {"pair_bias": (0.0, -1.0)},
     {"pair_bias": (math.nan, 1.0)}, {"item_bias": math.inf}, {"wrong_rate": 1.5},
     {"refusal_rate": -0.1}, {"refusal_rate": (0.2, 0.1)}, {"noise_stddev": math.nan}],
)
def test_bad_options_are_refused(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        MockLLMProvider(seed=1, **options)


OPTIONS: list[dict[str, Any]] = [
    {"noise": "gumbel"}, {"noise": "student_t"}, {"close_noise": 1.0},
    {"pair_bias": (1.0, 0.0)}, {"pair_bias": (0.0, 1.0)}, {"item_bias": 1.0},
    {"wrong_rate": 0.03}, {"refusal_rate": 0.05}, {"refusal_rate": (0.04, 0.1)},
]


def test_every_option_has_its_own_identity() -> None:
    identities = {MockLLMProvider(seed=1, **o).model_identity for o in [{}, *OPTIONS]}
    assert len(identities) == len(OPTIONS) + 1


# --- position bias fixed per pair and per item -------------------------------------------


def _correlation(xs: list[float], ys: list[float]) -> float:
    return statistics.correlation(xs, ys)


async def _first_win_shares_by_order(provider: MockLLMProvider) -> tuple[list[float], list[float]]:
    """For 40 pairs one apart: the first-shown text's win share in AB and in BA."""
    ab, ba = [], []
    for k in range(40):
        a, b = str(2 * k), str(2 * k + 1)
        ab.append(first_wins(await judge(provider, [(a, b, r) for r in range(60)])))
        ba.append(first_wins(await judge(provider, [(b, a, r) for r in range(60)])))
    return ab, ba


async def test_a_pairs_bias_repeats_in_both_orders() -> None:
    ab, ba = await _first_win_shares_by_order(MockLLMProvider(seed=4, pair_bias=(0.0, 3.33)))
    assert _correlation(ab, ba) > 0.8
    # The per-call bias strikes at random: a pair's two orders are unrelated.
    ab, ba = await _first_win_shares_by_order(MockLLMProvider(seed=4, position_bias=0.3))
    assert abs(_correlation(ab, ba)) < 0.5


async def test_the_pair_bias_mean_favours_the_first_text_as_predicted() -> None:
    provider = MockLLMProvider(seed=5, score=lambda t: 0.0, pair_bias=(2.0, 0.0))
    calls = [(f"x{i}", f"y{i}", r) for i in range(50) for r in range(100)]
    expected = NormalDist(0, 3.33 * math.sqrt(2)).cdf(2.0)  # P(2 + e_a - e_b > 0)
    assert within(first_wins(await judge(provider, calls)), expected, len(calls))


async def test_an_items_bias_follows_it_whoever_the_opponent() -> None:
    provider = MockLLMProvider(seed=6, score=lambda t: 0.0, item_bias=3.33)
    items = [f"item{i}" for i in range(30)]
    shares: list[list[float]] = [[], []]
    for i, item in enumerate(items):
        for half, offsets in enumerate((range(1, 6), range(6, 11))):
            calls = [(item, items[(i + o) % 30], r) for o in offsets for r in range(20)]
            shares[half].append(first_wins(await judge(provider, calls)))
    assert _correlation(*shares) > 0.8


# --- refusals and confident wrong verdicts -----------------------------------------------


def _pairs(n: int) -> list[tuple[str, str]]:
    return [(str(i), str(i + 3)) for i in range(n)]


async def test_refusals_come_at_the_given_share_with_no_verdict() -> None:
    provider = MockLLMProvider(seed=7, refusal_rate=0.07)
    calls = [(a, b, r) for a, b in _pairs(100) for r in range(100)]
    results = await judge(provider, calls)
    refused = [r for r in results if r.winner is None]
    assert within(len(refused) / len(results), 0.07, len(results))
    assert all(r.reasoning == REFUSAL and r.raw_response["refused"] for r in refused)


async def test_a_refusal_range_gives_each_pair_its_own_rate() -> None:
    provider = MockLLMProvider(seed=8, refusal_rate=(0.04, 0.10))
    shares = []
    for a, b in _pairs(60):
        calls = [(x, y, r) for x, y in ((a, b), (b, a)) for r in range(200)]
        shares.append(sum(r.winner is None for r in await judge(provider, calls)) / 400)
    assert within(statistics.mean(shares), 0.07, 400 * 60)
    # Pair rates spread over the range add their variance (0.06²/12) to the binomial one.
    assert statistics.variance(shares) > 1.5 * 0.07 * 0.93 / 400


async def test_confident_wrong_verdicts_come_at_the_given_share() -> None:
    provider = MockLLMProvider(seed=9, noise_stddev=0.0, wrong_rate=0.03)
    calls = [(a, b, r) for a, b in _pairs(100) for r in range(100)]
    results = await judge(provider, calls)
    wrong = [r for r in results if r.winner == "A"]  # A is the smaller number: the worse
    assert within(len(wrong) / len(results), 0.03, len(results))
    assert all(r.raw_response["wrong"] and "clearly" in r.reasoning for r in wrong)


async def test_one_flaw_leaves_the_others_draws_in_place() -> None:
    calls = [(a, b, r) for a, b in _pairs(50) for r in range(20)]
    alone = await judge(MockLLMProvider(seed=2, refusal_rate=0.1), calls)
    both = await judge(MockLLMProvider(seed=2, refusal_rate=0.1, wrong_rate=0.2), calls)
    assert [r.winner is None for r in alone] == [r.winner is None for r in both]


# --- noise -------------------------------------------------------------------------------


async def _flips(provider: MockLLMProvider, gap: int, n: int) -> int:
    calls = [(str(i % 500), str(i % 500 + gap), i // 500) for i in range(n)]
    return sum(r.winner == "A" for r in await judge(provider, calls))


async def test_student_t_noise_gives_far_more_extreme_flips_than_gaussian() -> None:
    heavy = await _flips(MockLLMProvider(seed=10, noise="student_t"), gap=20, n=20_000)
    normal = await _flips(MockLLMProvider(seed=10), gap=20, n=20_000)
    # Gaussian: P(flip) = P(N(0, 4.71) > 20) ≈ 1e-5, so about 0.2 flips expected.
    assert normal <= 3
    assert heavy >= 10 * max(normal, 1)


async def _noise_sd(provider: MockLLMProvider, gap: int) -> float:
    calls = [(str(i % 200), str(i % 200 + gap), i // 200) for i in range(4000)]
    results = await judge(provider, calls)
    noise = [r.raw_response["a"] - float(a) for r, (a, _, _) in zip(results, calls, strict=True)]
    return statistics.pstdev(noise)


async def test_close_noise_grows_the_noise_for_close_items() -> None:
    provider = MockLLMProvider(seed=11, close_noise=1.0)
    ratio = await _noise_sd(provider, gap=1) / await _noise_sd(provider, gap=40)
    expected = (1 + math.exp(-1 / 3.33)) / (1 + math.exp(-40 / 3.33))
    assert abs(ratio - expected) < 0.1
    assert abs(await _noise_sd(MockLLMProvider(seed=11), gap=1) - 3.33) < 0.15


@pytest.mark.parametrize("gap", [1, 3, 6, 10])
async def test_gumbel_noise_makes_an_exact_bradley_terry_judge(gap: int) -> None:
    provider = MockLLMProvider(seed=12, noise="gumbel")
    n = 4000
    beta = 3.33 * math.sqrt(6) / math.pi
    wins_of_larger = n - await _flips(provider, gap, n)
    assert within(wins_of_larger / n, 1 / (1 + math.exp(-gap / beta)), n)


def excess_kurtosis(xs: list[float]) -> float:
    mean = statistics.fmean(xs)
    m2 = statistics.fmean((x - mean) ** 2 for x in xs)
    m4 = statistics.fmean((x - mean) ** 4 for x in xs)
    return m4 / m2**2 - 3


async def _noise_differences(provider: MockLLMProvider, n: int) -> list[float]:
    calls = [(str(i % 100), str(i % 100 + 50), i // 100) for i in range(n)]
    results = await judge(provider, calls)
    return [r.raw_response["a"] - r.raw_response["b"] + 50 for r in results]


async def test_gumbel_noise_differences_have_the_logistic_shape_not_the_normal() -> None:
    # Win shares alone hardly tell logistic from normal; the tails do: the logistic's excess
    # kurtosis is 1.2, the normal's 0 (sample sd about 0.035 and 0.1 here).
    logistic = await _noise_differences(MockLLMProvider(seed=14, noise="gumbel"), 20_000)
    normal = await _noise_differences(MockLLMProvider(seed=14), 20_000)
    assert abs(excess_kurtosis(logistic) - 1.2) < 0.3
    assert abs(excess_kurtosis(normal)) < 0.15
    assert abs(statistics.pstdev(logistic) - 3.33 * math.sqrt(2)) < 0.1


# --- determinism -------------------------------------------------------------------------


async def test_the_realistic_judge_is_the_same_whatever_the_concurrency() -> None:
    calls = [(a, b, r) for a, b in _pairs(40) for r in range(3)] + [
        (b, a, r) for a, b in _pairs(40) for r in range(3)
    ]

    async def answers(order: list[Call]) -> dict[Call, ComparisonResult]:
        provider = MockLLMProvider.realistic(seed=13, latency=(0.0, 0.003))
        results = await asyncio.gather(
            *(provider.compare_call(a, b, "c", repetition=r) for a, b, r in order)
        )
        return dict(zip(order, results, strict=True))

    shuffled = calls[:]
    random.Random(0).shuffle(shuffled)
    assert await answers(calls) == await answers(shuffled)
    flaws = await answers(calls)
    assert any(r.winner is None for r in flaws.values())  # the preset does refuse


# --- the length preference ---------------------------------------------------------------

LENGTH_TEXTS = ["w" * k for k in (5, 8, 13, 20, 34, 55, 89, 144)]


async def test_no_length_preference_keeps_every_answer_and_the_identity() -> None:
    plain, zero = MockLLMProvider(seed=4, score=lambda t: 0.0), MockLLMProvider(
        seed=4, score=lambda t: 0.0, length_preference=0.0)
    zero.check_items(LENGTH_TEXTS)
    calls = [(a, b, r) for a in LENGTH_TEXTS for b in LENGTH_TEXTS if a != b for r in range(3)]
    assert [(x.winner, x.reasoning, x.raw_response) for x in await judge(plain, calls)] == [
        (x.winner, x.reasoning, x.raw_response) for x in await judge(zero, calls)]
    assert zero.model_identity == plain.model_identity


async def test_the_length_preference_is_that_many_logits_per_sd_of_log_length() -> None:
    # Two texts equal in value, their log lengths 2 sd apart over the run's texts: with
    # Gumbel noise the longer wins with probability σ(2λ) exactly.
    texts = ["x" * 10, "y" * 1000]  # over these two, each is 1 sd from the mean
    provider = MockLLMProvider(seed=8, noise="gumbel", score=lambda t: 0.0,
                               length_preference=0.4)
    provider.check_items(texts)
    n = 4000
    wins = first_wins(await judge(provider, [(texts[1], texts[0], r) for r in range(n)]))
    assert within(wins, 1 / (1 + math.exp(-0.8)), n)
    assert "length=0.4@" in provider.model_identity


async def test_the_length_preference_needs_the_runs_texts_first() -> None:
    provider = MockLLMProvider(seed=1, length_preference=0.3)
    with pytest.raises(ValueError, match="check_items"):
        await provider.compare("a", "bb", "c")


def test_a_length_preference_that_is_no_number_is_refused() -> None:
    with pytest.raises(ValueError, match="length_preference"):
        MockLLMProvider(seed=1, length_preference=math.nan)
