"""The pure Swiss rules: evidence from a history, pairing, orientation, refinement, stopping."""

import random
from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from llm_qualitative_sort.tournament.swiss.evidence import gather_evidence, pair_key
from llm_qualitative_sort.tournament.swiss.pairing import choose_bye, neighbour_pairs, orient
from llm_qualitative_sort.tournament.swiss.refine import (
    FULL_BUDGET,
    UNTIL_SETTLED,
    focus_items,
    wave_pairs,
)
from llm_qualitative_sort.tournament.swiss.settle import expected_top_k_share, top_k_settled


def test_evidence_reads_calls_in_presentation_order() -> None:
    history = [{"matches": [
        [0, 1, "A", [["AB", "A", "", False, 0, 0], ["BA", "A", "", False, 0, 0]]],
        [2, 3, None, [["AB", None, "", False, 0, 0]]],
    ]}]
    evidence = gather_evidence(history, 4)
    # AB: 0 shown first and won; BA: 1 shown first, and the match's A (item 0) won.
    assert evidence.first.tolist() == [0, 1]
    assert evidence.second.tolist() == [1, 0]
    assert evidence.first_won.tolist() == [1.0, 0.0]
    assert evidence.meetings == Counter({(0, 1): 2, (2, 3): 1})  # a call without verdict counts
    assert evidence.shown_first == [0, 0, 1, -1]
    assert evidence.calls == 3


def test_pairs_are_nearest_neighbours_without_rematches() -> None:
    order = [9, 8, 7, 6, 5, 4]
    assert neighbour_pairs(order, {}) == [(9, 8), (7, 6), (5, 4)]
    met = {pair_key(9, 8): 1, pair_key(7, 6): 1}
    assert neighbour_pairs(order, met) == [(9, 7), (8, 6), (5, 4)]


def test_a_rematch_left_at_the_end_is_swapped_away() -> None:
    # Greedy pairs (3, 2) then leaves (1, 0), who met: swapping partners makes both new.
    met = {pair_key(1, 0): 1}
    pairs = neighbour_pairs([3, 2, 1, 0], met)
    assert sorted(map(sorted, pairs)) == [[0, 3], [1, 2]] or sorted(map(sorted, pairs)) == [
        [0, 2], [1, 3]]
    assert all(pair_key(a, b) not in met for a, b in pairs)


def test_a_rematch_is_played_only_when_every_opponent_was_met() -> None:
    met = {pair_key(1, 0): 1}
    assert neighbour_pairs([1, 0], met) == [(1, 0)]


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40), st.integers(0, 10_000))
def test_pairing_covers_everyone_once(n: int, seed: int) -> None:
    rng = random.Random(seed)
    order = list(range(n))
    rng.shuffle(order)
    meetings = {pair_key(rng.randrange(n), rng.randrange(n)): 1 for _ in range(n)}
    bye = choose_bye(order, last_bye=None, rng=rng)
    players = [i for i in order if i != bye]
    pairs = neighbour_pairs(players, meetings)
    seen = [i for pair in pairs for i in pair]
    assert sorted(seen) == sorted(players)
    assert (bye is None) == (n % 2 == 0)


def test_the_bye_never_goes_to_the_same_item_twice_in_a_row() -> None:
    for seed in range(50):
        assert choose_bye([0, 1, 2], last_bye=1, rng=random.Random(seed)) != 1


def test_orientation_balances_who_is_shown_first() -> None:
    rng = random.Random(3)
    balance = [0] * 6
    for _ in range(200):
        pairs = [(a, b) for a, b in [(0, 1), (2, 3), (4, 5), (0, 2), (1, 4)]]
        for first, second in orient(pairs, balance, rng):
            balance[first] += 1
            balance[second] -= 1
    assert max(abs(b) for b in balance) <= 2


def test_focus_holds_the_top_k_plus_one_and_the_straddlers() -> None:
    s = np.array([5.0, 4.0, 3.0, 2.9, 1.0, 0.0])
    errors = np.array([0.1, 0.1, 0.1, 0.2, 0.1, 0.1])
    focus = focus_items(s, s - 1.96 * errors, s + 1.96 * errors, k=2)
    # boundary 3.5 between the 2nd (4.0) and 3rd (3.0); nobody's interval reaches it
    assert focus == [0, 1, 2]
    wide = focus_items(s, s - 1.0, s + 1.0, k=2)
    assert wide == [0, 1, 2, 3]


def test_a_wave_spends_its_calls_on_nearest_neighbours_and_repeats_a_small_focus() -> None:
    assert wave_pairs([4, 3, 2, 1], 1, 3, {}) == [(4, 3), (3, 2), (2, 1)]
    assert wave_pairs([4, 3, 2, 1], 1, 5, {}) == [(4, 3), (3, 2), (2, 1), (4, 2), (3, 1)]
    assert len(wave_pairs([4, 3], 2, 8, {})) == 4  # two calls per match, one pair repeated
    assert wave_pairs([4], 1, 5, {}) == []


def test_the_expected_share_is_the_mean_top_k_chance_of_the_k_strongest() -> None:
    strengths = np.array([0.0, 3.0, 2.0, 2.0])  # a tie goes to the lower index: 2 before 3
    chances = np.array([0.1, 1.0, 0.6, 0.3])
    assert expected_top_k_share(strengths, chances, k=2) == 0.8
    assert expected_top_k_share(strengths, chances, k=1) == 1.0


def test_settled_when_the_fit_expects_the_level_of_its_top_k_to_be_right() -> None:
    s = np.array([3.0, 2.0, 1.0, 0.0])
    assert top_k_settled(s, np.array([1.0, 0.9, 0.1, 0.0]), k=2)  # expects 95 %
    assert not top_k_settled(s, np.array([1.0, 0.88, 0.12, 0.0]), k=2)  # expects 94 %
    # A near-tie at the boundary among ten places is tolerated, two are not.
    s10 = np.arange(12.0)[::-1]
    one_tie = np.array([1.0] * 9 + [0.55, 0.45, 0.0])
    assert top_k_settled(s10, one_tie, k=10)
    two_ties = np.array([1.0] * 8 + [0.55, 0.55, 0.45, 0.45])
    assert not top_k_settled(s10, two_ties, k=10)
    assert top_k_settled(s10, two_ties, k=10, level=0.9)


def test_a_top_holding_everyone_is_settled() -> None:
    assert top_k_settled(np.array([1.0, 0.0]), np.array([0.5, 0.5]), k=2)


def test_refinement_takes_a_small_share_unless_the_run_may_stop_when_settled() -> None:
    assert 0 < FULL_BUDGET.share < UNTIL_SETTLED.share < 1
    assert FULL_BUDGET.waves <= 4  # the N=2 target allows 16 rounds: 8 Swiss + the waves
