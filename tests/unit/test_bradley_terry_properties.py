"""Invariants of the Bradley–Terry fit, searched with hypothesis."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_qualitative_sort.bradley_terry import fit_bradley_terry

Design = tuple[int, np.ndarray, np.ndarray, np.ndarray]


@st.composite
def designs(draw: st.DrawFn, max_items: int = 8, max_calls: int = 40) -> Design:
    """A few items and calls between them, verdicts 0, ½ or 1 (some items may not play)."""
    n = draw(st.integers(2, max_items))
    pairs = st.tuples(st.integers(0, n - 1), st.integers(1, n - 1)).map(
        lambda p: (p[0], (p[0] + p[1]) % n)
    )
    calls = draw(st.lists(st.tuples(pairs, st.sampled_from([0.0, 0.5, 1.0])), max_size=max_calls))
    first = np.array([a for (a, _), _ in calls], dtype=np.intp)
    second = np.array([b for (_, b), _ in calls], dtype=np.intp)
    won = np.array([y for _, y in calls], dtype=float)
    return n, first, second, won


def _close(a: np.ndarray, b: np.ndarray, tol: float = 1e-6) -> bool:
    return bool(np.allclose(a, b, rtol=0, atol=tol))


@settings(max_examples=60, deadline=None)
@given(designs(), st.randoms(use_true_random=False))
def test_the_order_of_the_calls_does_not_matter(design: Design, rnd) -> None:
    n, first, second, won = design
    order = np.arange(len(first))
    rnd.shuffle(order)
    fit = fit_bradley_terry(n, first, second, won)
    shuffled = fit_bradley_terry(n, first[order], second[order], won[order])
    assert _close(fit.strengths, shuffled.strengths)
    assert _close(fit.standard_errors, shuffled.standard_errors)
    assert abs(fit.position - shuffled.position) < 1e-6


@settings(max_examples=60, deadline=None)
@given(designs(), st.randoms(use_true_random=False))
def test_renaming_the_items_permutes_the_strengths(design: Design, rnd) -> None:
    n, first, second, won = design
    names = list(range(n))
    rnd.shuffle(names)
    rename = np.array(names, dtype=np.intp)
    fit = fit_bradley_terry(n, first, second, won)
    renamed = fit_bradley_terry(n, rename[first], rename[second], won)
    assert _close(renamed.strengths[rename], fit.strengths)
    assert _close(renamed.standard_errors[rename], fit.standard_errors)


@settings(max_examples=60, deadline=None)
@given(designs())
def test_strengths_are_centred_and_errors_finite(design: Design) -> None:
    n, first, second, won = design
    fit = fit_bradley_terry(n, first, second, won)
    assert abs(float(np.mean(fit.strengths))) < 1e-9
    assert np.all(np.isfinite(fit.strengths))
    assert np.all(np.isfinite(fit.standard_errors)) and np.all(fit.standard_errors > 0)
    assert np.isfinite(fit.position) and fit.position_se > 0


@settings(max_examples=150, deadline=None)
@given(designs(max_items=12, max_calls=60), st.sampled_from([1e-4, 1e-2, 1.0, 10.0]), st.data())
def test_a_warm_start_reaches_the_cold_answer(
    design: Design, prior: float, data: st.DataObject
) -> None:
    # Weak priors included: an unbeaten item then sits on an almost flat slope, where an
    # uncapped Newton step once flew off to infinity.
    n, first, second, won = design
    start = np.array(data.draw(st.lists(st.floats(-30, 30), min_size=n, max_size=n)))
    cold = fit_bradley_terry(n, first, second, won, prior=prior)
    assert np.all(np.isfinite(cold.strengths)) and np.all(np.isfinite(cold.standard_errors))
    warm = fit_bradley_terry(n, first, second, won, prior=prior, start=start, uncertainty=False)
    assert np.allclose(cold.strengths, warm.strengths, rtol=1e-7, atol=1e-5)
    assert abs(cold.position - warm.position) < 1e-5
    earlier = fit_bradley_terry(n, first[::2], second[::2], won[::2], prior=prior)
    from_fit = fit_bradley_terry(n, first, second, won, prior=prior, start=earlier)
    assert np.allclose(cold.strengths, from_fit.strengths, rtol=1e-7, atol=1e-5)


@settings(max_examples=60, deadline=None)
@given(designs())
def test_showing_every_call_in_both_orders_gives_no_position_effect(design: Design) -> None:
    # The same verdicts seen with the winner first and with the winner second: any h > 0
    # explains one half exactly as badly as it explains the other worse.
    n, first, second, won = design
    both = fit_bradley_terry(
        n, np.concatenate([first, second]), np.concatenate([second, first]),
        np.concatenate([won, 1 - won]),
    )
    without = fit_bradley_terry(
        n, np.concatenate([first, second]), np.concatenate([second, first]),
        np.concatenate([won, 1 - won]), position=False,
    )
    assert abs(both.position) < 1e-6
    assert _close(both.strengths, without.strengths)


@settings(max_examples=40, deadline=None)
@given(designs(), st.integers(1, 8))
def test_top_k_probabilities_sum_to_k(design: Design, k: int) -> None:
    n, first, second, won = design
    k = min(k, n)
    p = fit_bradley_terry(n, first, second, won).top_k_probability(k, samples=300, seed=1)
    assert p.shape == (n,)
    assert np.all((p >= 0) & (p <= 1))
    assert abs(float(p.sum()) - k) < 1e-9  # every draw puts exactly k items in the top k
