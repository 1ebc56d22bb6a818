"""The Bradley–Terry model with a position term: estimates, uncertainty, validation."""

import numpy as np
import pytest

from llm_qualitative_sort.bradley_terry import BradleyTerryFit, fit_bradley_terry
from llm_qualitative_sort.rating import posterior
from llm_qualitative_sort.rating.newton import Calls, maximise


def simulate(truth: np.ndarray, h: float, calls: int, seed: int) -> tuple[np.ndarray, ...]:
    """Random pairs, random order; the first-shown wins with probability σ(Δs + h)."""
    rng = np.random.default_rng(seed)
    n = len(truth)
    first = rng.integers(0, n, calls)
    second = (first + rng.integers(1, n, calls)) % n
    p = 1 / (1 + np.exp(-(truth[first] - truth[second] + h)))
    return first, second, (rng.random(calls) < p).astype(float)


TRUTH = np.linspace(-2.0, 2.0, 30)


def test_recovers_known_strengths_and_position_within_their_errors() -> None:
    fit = fit_bradley_terry(30, *simulate(TRUTH, 0.5, 30_000, seed=1))
    z = (fit.strengths - (TRUTH - TRUTH.mean())) / fit.standard_errors
    # 30 items: |z| > 4 anywhere has probability ~0.2 % if the errors are right; the
    # errors themselves are small, so this also pins the estimates to ~0.25 logit.
    assert np.max(np.abs(z)) < 4
    assert np.max(fit.standard_errors) < 0.065
    assert abs(fit.position - 0.5) < 4 * fit.position_se
    assert fit.position_se < 0.02


def test_no_position_effect_is_found_where_there_is_none() -> None:
    fit = fit_bradley_terry(30, *simulate(TRUTH, 0.0, 30_000, seed=2))
    assert abs(fit.position) < 3 * fit.position_se


def test_errors_shrink_as_data_grows() -> None:
    small = fit_bradley_terry(30, *simulate(TRUTH, 0.5, 2_000, seed=3))
    large = fit_bradley_terry(30, *simulate(TRUTH, 0.5, 8_000, seed=3))
    assert np.all(large.standard_errors < small.standard_errors)
    # Four times the calls, about half the error (the prior's share shrinks too).
    assert np.median(large.standard_errors / small.standard_errors) == pytest.approx(0.5, abs=0.05)
    assert large.position_se < small.position_se


def test_a_round_robin_of_draws_gives_equal_strengths() -> None:
    first = np.array([i for i in range(4) for j in range(4) if i != j])
    second = np.array([j for i in range(4) for j in range(4) if i != j])
    fit = fit_bradley_terry(4, first, second, np.full(12, 0.5))
    assert np.allclose(fit.strengths, 0.0, atol=1e-9)
    assert np.allclose(fit.standard_errors, fit.standard_errors[0])
    assert fit.position == pytest.approx(0.0, abs=1e-9)


def test_a_draw_counts_as_half_a_win_and_half_a_loss() -> None:
    first, second = [0, 0, 1, 1, 0, 0], [1, 1, 2, 2, 2, 2]
    drawn = fit_bradley_terry(3, first, second, [0.5, 0.5, 1.0, 1.0, 0.5, 0.5])
    split = fit_bradley_terry(3, first, second, [1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    assert np.allclose(drawn.strengths, split.strengths, atol=1e-8)
    assert np.allclose(drawn.standard_errors, split.standard_errors, atol=1e-8)


def test_without_the_position_term_h_is_zero() -> None:
    fit = fit_bradley_terry(30, *simulate(TRUTH, 0.5, 3_000, seed=4), position=False)
    assert fit.position == 0.0 and fit.position_se == 0.0
    assert fit.position_shift() == (0.0, 0.0, 0.0)


def test_an_always_winning_first_position_stays_finite() -> None:
    # Every call shows item 0 first and it wins: h and the gap are not separable, and
    # only the prior on both keeps them finite.
    fit = fit_bradley_terry(2, [0] * 50, [1] * 50, [1.0] * 50)
    assert np.all(np.isfinite(fit.strengths)) and np.isfinite(fit.position)
    assert fit.strengths[0] > fit.strengths[1] and fit.position > 0


def test_an_item_without_calls_sits_at_the_reference_with_a_finite_error() -> None:
    fit = fit_bradley_terry(3, [0, 1], [1, 0], [1.0, 0.0], position=False)  # 0 beat 1 twice
    assert fit.strengths[0] > fit.strengths[2] > fit.strengths[1]
    assert fit.strengths[2] == pytest.approx(0.0, abs=1e-9)  # 0 and 1 mirror each other
    assert np.isfinite(fit.standard_errors[2]) and fit.standard_errors[2] > 1


def test_tiny_fields() -> None:
    empty = fit_bradley_terry(0, [], [], [])
    assert empty.strengths.shape == empty.standard_errors.shape == (0,)
    alone = fit_bradley_terry(1, [], [], [])
    assert alone.strengths.tolist() == [0.0] and alone.standard_errors.tolist() == [0.0]
    assert alone.top_k_probability(1).tolist() == [1.0]


def test_intervals_and_position_shift() -> None:
    fit = fit_bradley_terry(30, *simulate(TRUTH, 0.5, 3_000, seed=5))
    low, high = fit.intervals()
    wide_low, wide_high = fit.intervals(0.99)
    assert np.all(wide_low < low) and np.all(low < fit.strengths)
    assert np.all(fit.strengths < high) and np.all(high < wide_high)
    assert np.allclose(high - fit.strengths, 1.959964 * fit.standard_errors)
    shift, shift_low, shift_high = fit.position_shift()
    assert shift == pytest.approx(1 / (1 + np.exp(-fit.position)) - 0.5)
    assert -0.5 < shift_low < shift < shift_high < 0.5
    with pytest.raises(ValueError, match="level"):
        fit.intervals(1.0)


def test_top_k_probability_follows_strength_for_well_separated_items() -> None:
    truth = np.linspace(0.0, 9.0, 10)
    fit = fit_bradley_terry(10, *simulate(truth, 0.3, 5_000, seed=6))
    p = fit.top_k_probability(3)
    assert abs(p.sum() - 3) < 1e-9
    assert np.all(np.diff(p) >= 0)  # strength rises with the index
    assert p[-1] > 0.99 and p[0] < 0.01
    assert np.array_equal(p, fit.top_k_probability(3))  # seeded: reproducible
    with pytest.raises(ValueError, match="k must"):
        fit.top_k_probability(11)


def test_a_cheap_fit_has_no_errors_and_no_top_k() -> None:
    fit = fit_bradley_terry(30, *simulate(TRUTH, 0.5, 3_000, seed=7), uncertainty=False)
    assert np.all(np.isnan(fit.standard_errors)) and np.isnan(fit.position_se)
    with pytest.raises(ValueError, match="uncertainty=True"):
        fit.top_k_probability(3)


def test_a_hand_built_fit_draws_independent_strengths() -> None:
    fit = BradleyTerryFit(np.array([3.0, 0.0, -3.0]), np.array([0.1, 0.1, 0.1]), 0.0, 0.0)
    assert fit.top_k_probability(1).tolist() == [1.0, 0.0, 0.0]


def brute_force_errors(n: int, first: np.ndarray, second: np.ndarray, won: np.ndarray):
    """SEs of the centred strengths as P H⁻¹ P straight from the definition."""
    optimum = maximise(Calls(n, first, second, won, 1.0, True), np.zeros(n + 1))
    covariance = np.linalg.inv(optimum.hessian.toarray())
    centring = np.eye(n) - 1 / n
    centred = centring @ covariance[:n, :n] @ centring
    return np.sqrt(np.diag(centred)), np.sqrt(covariance[n, n])


@pytest.mark.parametrize("spread", [2.0, 20.0])
def test_errors_match_the_inverse_hessian(spread: float) -> None:
    truth = np.linspace(0.0, spread, 12)
    first, second, won = simulate(truth, 0.4, 600, seed=8)
    fit = fit_bradley_terry(12, first, second, won)
    errors, h_error = brute_force_errors(12, first, second, won)
    assert np.allclose(fit.standard_errors, errors, rtol=1e-6)
    assert fit.position_se == pytest.approx(h_error, rel=1e-6)


def test_the_sampled_errors_for_large_fields_agree_with_the_exact_ones(monkeypatch) -> None:
    truth = np.linspace(-2.0, 2.0, 60)
    first, second, won = simulate(truth, 0.4, 3_000, seed=9)
    exact = fit_bradley_terry(60, first, second, won)
    monkeypatch.setattr(posterior, "DENSE_LIMIT", 0)
    sampled = fit_bradley_terry(60, first, second, won)
    # 400 draws: each SE has ~3.5 % relative error; 60 items stay within 5 sd of it.
    assert np.allclose(sampled.standard_errors, exact.standard_errors, rtol=0.18)
    assert np.mean(sampled.standard_errors / exact.standard_errors) == pytest.approx(1, abs=0.03)
    assert sampled.position_se == pytest.approx(exact.position_se, rel=0.18)
    p, q = sampled.top_k_probability(5), exact.top_k_probability(5)
    assert abs(p.sum() - 5) < 1e-9 and np.max(np.abs(p - q)) < 0.1


@pytest.mark.parametrize(
    ("args", "options", "message"),
    [
        ((2, [0], [2], [1.0]), {}, r"second index outside 0\.\.1"),
        ((2, [-1], [1], [1.0]), {}, r"first index outside"),
        ((2, [0, 1], [0, 0], [1.0, 1.0]), {}, r"call 0: first == second"),
        ((2, [0], [1], [1.5]), {}, r"first_won outside \[0, 1\]"),
        ((2, [0], [1], [np.nan]), {}, r"first_won outside"),
        ((2, [0, 1], [1], [1.0]), {}, "one length"),
        ((2, [0.5], [1], [1.0]), {}, "integer indices"),
        ((-1, [], [], []), {}, "n_items"),
        ((2, [0], [1], [1.0]), {"prior": 0.0}, "prior"),
        ((2, [0], [1], [1.0]), {"start": np.zeros(3)}, "start must hold 2"),
    ],
)
def test_bad_input_is_refused(args: tuple, options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fit_bradley_terry(*args, **options)
