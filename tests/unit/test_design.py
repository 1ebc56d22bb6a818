"""Pairs and groups chosen by the posterior: the gains are the trace reductions they claim."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_qualitative_sort.rating.design import (
    choose_groups,
    choose_pairs,
    implied_pairs,
    pair_gains,
    posterior_covariance,
)


def history(seed: int, n: int, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    first = rng.integers(0, n, m)
    second = (first + rng.integers(1, n, m)) % n
    return first, second, rng.normal(size=n)


@given(st.integers(0, 10_000), st.integers(3, 12), st.integers(0, 30))
@settings(max_examples=60, deadline=None)
def test_a_pair_s_gain_is_the_drop_in_total_variance_it_brings(seed: int, n: int,
                                                               m: int) -> None:
    first, second, strengths = history(seed, n, m)
    before = posterior_covariance(n, first, second, strengths)
    gains = pair_gains(before, strengths)
    i, j = 0, n - 1
    after = posterior_covariance(n, np.append(first, i), np.append(second, j), strengths)
    assert gains[i, j] == pytest.approx(np.trace(before) - np.trace(after), rel=1e-6)
    assert gains[i, j] == pytest.approx(gains[j, i])


def test_the_covariance_is_the_inverse_information_and_shrinks_with_comparisons() -> None:
    first, second, strengths = history(1, 6, 20)
    covariance = posterior_covariance(6, first, second, strengths)
    assert np.allclose(covariance, covariance.T)
    assert np.all(np.linalg.eigvalsh(covariance) > 0)
    more = posterior_covariance(6, np.append(first, [0, 0]), np.append(second, [1, 1]),
                                strengths)
    assert np.trace(more) < np.trace(covariance)


def test_pairs_are_disjoint_greedy_and_cover_the_items() -> None:
    first, second, strengths = history(2, 9, 25)
    gains = pair_gains(posterior_covariance(9, first, second, strengths), strengths)
    pairs = choose_pairs(gains, range(9))
    items = [x for pair in pairs for x in pair]
    assert len(pairs) == 4 and len(set(items)) == 8
    upper = np.triu(gains, 1)
    upper[np.tril_indices(9)] = -np.inf
    assert pairs[0] == tuple(int(x) for x in np.unravel_index(np.argmax(upper), upper.shape))


def test_groups_are_disjoint_and_of_the_size_asked() -> None:
    first, second, strengths = history(3, 14, 40)
    gains = pair_gains(posterior_covariance(14, first, second, strengths), strengths)
    groups = choose_groups(gains, range(14), 4)
    assert [len(g) for g in groups] == [4, 4, 4]
    assert len({x for g in groups for x in g}) == 12
    with pytest.raises(ValueError, match="size"):
        choose_groups(gains, range(14), 1)


def test_an_item_never_seen_is_asked_first() -> None:
    first, second, strengths = np.array([0, 1, 2, 0]), np.array([1, 2, 3, 3]), np.zeros(6)
    gains = pair_gains(posterior_covariance(6, first, second, strengths), strengths)
    assert set(choose_pairs(gains, range(6))[0]) == {4, 5}


def test_a_ranking_implies_every_pair_ties_half() -> None:
    pairs = implied_pairs([[3], [1, 2], [0]])
    assert len(pairs) == 6
    assert (1, 2, 0.5) in pairs and (3, 0, 1.0) in pairs and (2, 0, 1.0) in pairs


def test_covariance_input_is_checked() -> None:
    with pytest.raises(ValueError, match="outside"):
        posterior_covariance(3, [0], [3], np.zeros(3))
    with pytest.raises(ValueError, match="prior"):
        posterior_covariance(3, [0], [1], np.zeros(3), prior=0)
