"""How a Swiss round chooses its pairs: `tournament.swiss.choice` on plain data."""

from __future__ import annotations

import random

import numpy as np
import pytest

from llm_qualitative_sort.rating.design import choose_pairs, pair_gains, posterior_covariance
from llm_qualitative_sort.tournament.swiss import choice
from llm_qualitative_sort.tournament.swiss.choice import (
    PAIR_CHOICES,
    AOptimal,
    Neighbours,
    RoundView,
    candidate_gains,
    greedy_disjoint,
    nearest_candidates,
)
from llm_qualitative_sort.tournament.swiss.evidence import pair_key
from llm_qualitative_sort.tournament.swiss.pairing import neighbour_pairs
from llm_qualitative_sort.tournament.swiss.refine import wave_pairs


def _view(n: int, calls: int, seed: int, meetings: dict[tuple[int, int], int] | None = None
          ) -> RoundView:
    rng = np.random.default_rng(seed)
    first = rng.integers(0, n, calls)
    second = (first + rng.integers(1, n, calls)) % n
    strengths = [round(float(s), 6) for s in rng.normal(0, 1, n)]
    return RoundView(strengths, first.astype(np.intp), second.astype(np.intp),
                     meetings or {}, random.Random(seed))


def _order(view: RoundView) -> list[int]:
    return sorted(range(len(view.strengths)), key=lambda i: -view.strengths[i])


def test_the_choices_are_named_as_the_setting_spells_them() -> None:
    assert set(PAIR_CHOICES) == {"neighbours", "a-optimal"}
    assert isinstance(PAIR_CHOICES["neighbours"], Neighbours)
    assert isinstance(PAIR_CHOICES["a-optimal"], AOptimal)


def test_neighbours_is_todays_pairing_and_refinement() -> None:
    view = _view(12, 30, seed=1, meetings={(0, 5): 1, (2, 7): 2})
    order = _order(view)
    assert Neighbours().round_pairs(order, view) == neighbour_pairs(order, view.meetings)
    assert (Neighbours().wave_pairs(order[:5], 1, 9, view)
            == wave_pairs(order[:5], 1, 9, view.meetings))


@pytest.mark.parametrize("seed", range(5))
def test_candidate_gains_are_the_design_gains_of_those_pairs(seed: int) -> None:
    view = _view(15, 40, seed)
    strengths = np.asarray(view.strengths)
    covariance = posterior_covariance(15, view.first, view.second, strengths)
    first, second = nearest_candidates(_order(view), 4)
    full = pair_gains(covariance, strengths)
    assert np.allclose(candidate_gains(covariance, strengths, first, second),
                       full[first, second], rtol=1e-10, atol=0)


@pytest.mark.parametrize("seed", range(5))
def test_with_every_pair_a_candidate_a_round_is_the_design_greedy(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(choice, "NEAREST", 100)
    view = _view(14, 30, seed)
    strengths = np.asarray(view.strengths)
    gains = pair_gains(posterior_covariance(14, view.first, view.second, strengths), strengths)
    chosen = AOptimal().round_pairs(_order(view), view)
    assert [pair_key(*p) for p in chosen] == choose_pairs(gains, range(14))


def test_nearest_candidates_are_the_pairs_within_the_width() -> None:
    first, second = nearest_candidates([9, 4, 6, 1], 2)
    assert sorted(zip(first.tolist(), second.tolist(), strict=True)) == sorted(
        [(9, 4), (4, 6), (6, 1), (9, 6), (4, 1)])
    assert len(nearest_candidates([3], 5)[0]) == 0


@pytest.mark.parametrize(("seed", "width"), [(s, w) for s in range(6) for w in (1, 2, 16)])
def test_everyone_plays_once_whatever_the_candidates(
    seed: int, width: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A narrow window leaves items whose candidates were all taken: they still play.
    monkeypatch.setattr(choice, "NEAREST", width)
    view = _view(20, 60, seed)
    pairs = AOptimal().round_pairs(_order(view), view)
    players = [i for pair in pairs for i in pair]
    assert sorted(players) == list(range(20))


def test_a_rematch_counts_for_half_its_gain() -> None:
    # Four unseen items at equal strength: every pair teaches the same, so the one pair
    # that has met is never chosen while a fresh pairing covers everyone.
    for seed in range(20):
        view = RoundView([0.0] * 4, np.zeros(0, np.intp), np.zeros(0, np.intp),
                         {(0, 1): 1}, random.Random(seed))
        assert (0, 1) not in {pair_key(*p) for p in AOptimal().round_pairs([0, 1, 2, 3], view)}


def test_a_rematch_is_played_when_it_teaches_over_twice_the_best_fresh_pair() -> None:
    scores = np.array([1.0, 2.5, 1.2])
    first, second = np.array([0, 0, 1]), np.array([1, 2, 2])
    # The discount is applied by the choice, so score as it would: pair 0–2 met.
    view = RoundView([0.0] * 3, np.zeros(0, np.intp), np.zeros(0, np.intp), {(0, 2): 1},
                     random.Random(0))
    assert greedy_disjoint(first, second, scores * [1, choice.REMATCH_SHARE, 1],
                           view.rng) == [(0, 2)]
    assert greedy_disjoint(first, second, scores * [1, 0.4, 1], random.Random(0)) == [(1, 2)]


def test_equal_gains_are_broken_by_the_seed_alone() -> None:
    def pairs(seed: int) -> list[tuple[int, int]]:
        view = RoundView([0.0] * 30, np.zeros(0, np.intp), np.zeros(0, np.intp), {},
                         random.Random(seed))
        return AOptimal().round_pairs(list(range(30)), view)

    assert pairs(4) == pairs(4)
    assert len({tuple(pairs(seed)) for seed in range(5)}) == 5


def test_a_wave_takes_the_contenders_pairs_by_gain_and_passes_again_when_short() -> None:
    view = _view(10, 40, seed=3)
    focus = _order(view)[:4]
    wave = AOptimal().wave_pairs(focus, 1, 14, view)
    assert len(wave) == 14 and all(set(p) <= set(focus) for p in wave)
    assert len({pair_key(*p) for p in wave[:6]}) == 6  # all six pairs before any repeat
    assert wave[6:12] == wave[:6]
    strengths = np.asarray(view.strengths)
    covariance = posterior_covariance(10, view.first, view.second, strengths)
    gains = [candidate_gains(covariance, strengths, np.array([a]), np.array([b]))[0]
             for a, b in wave[:6]]
    assert gains == sorted(gains, reverse=True)
    assert AOptimal().wave_pairs(focus, 2, 5, view) == wave[:2]
    assert AOptimal().wave_pairs(focus[:1], 1, 5, view) == []
