"""Plain examples of the pure tournament rules; the properties are in the next file."""

import random

from llm_qualitative_sort.tournament import (
    BracketChange,
    Pairing,
    active_players,
    apply_round,
    competition_ranks,
    final_ranks,
    match_winner,
    pair_round,
    presentation_orders,
    remaining_match_bound,
    round_rng,
)


def test_competition_ranks_share_a_rank_and_skip_the_next() -> None:
    assert competition_ranks([9, 5, 5, 1]) == [(1, [0]), (2, [1, 2]), (4, [3])]


def test_competition_ranks_list_tied_players_by_index_whatever_their_place() -> None:
    assert competition_ranks([0, 2, 0, 2, 1]) == [(1, [1, 3]), (3, [4]), (4, [0, 2])]
    assert competition_ranks([]) == []


def test_presentation_orders_alternate_with_a_repetition_index() -> None:
    assert presentation_orders(2) == [("AB", 0), ("BA", 0)]
    assert presentation_orders(6) == [
        ("AB", 0), ("BA", 0), ("AB", 1), ("BA", 1), ("AB", 2), ("BA", 2)
    ]


def test_match_winner_counts_calls_and_ignores_calls_without_verdict() -> None:
    assert match_winner(["A", "A"]) == "A"
    assert match_winner(["B", "A", "B", "B"]) == "B"
    assert match_winner(["A", "B"]) is None
    assert match_winner([None, "B"]) == "B"
    assert match_winner([None, None]) is None
    assert match_winner([]) is None


def test_apply_round_moves_the_loser_down_and_credits_the_winner() -> None:
    losses, wins, changes = apply_round([0, 0, 1, 1], [0, 0, 2, 0], [(0, 1), (2, 3)],
                                        ["A", "B"], 2)
    assert losses == [0, 1, 2, 1]
    assert wins == [1, 0, 2, 1]
    assert changes == [BracketChange(1, 0, 1, False), BracketChange(2, 1, 2, True)]


def test_a_draw_costs_both_a_loss_and_gives_no_win() -> None:
    losses, wins, changes = apply_round([0, 1], [3, 3], [(0, 1)], [None], 2)
    assert losses == [1, 2]
    assert wins == [3, 3]
    assert changes == [BracketChange(0, 0, 1, False), BracketChange(1, 1, 2, True)]


def test_apply_round_does_not_mutate_its_input() -> None:
    losses, wins = [0, 0], [0, 0]
    apply_round(losses, wins, [(0, 1)], ["A"], 1)
    assert (losses, wins) == ([0, 0], [0, 0])


def test_active_players_and_the_bound_with_fresh_players() -> None:
    assert active_players([0, 2, 1, 3], 2) == [0, 2]
    # The specification's N·n − 1 for n fresh players.
    assert remaining_match_bound([0] * 10, 3) == 29
    assert remaining_match_bound([0, 2, 2], 2) == 0
    assert remaining_match_bound([1, 0, 2], 2) == 2


def test_an_odd_bracket_floats_its_odd_one_to_the_next_non_empty_bracket() -> None:
    # Bracket 0 = {0, 1, 2}, bracket 1 empty, bracket 2 = {3}: one pair inside bracket 0,
    # and its odd one meets player 3 two brackets down; nobody sits out.
    pairing = pair_round([0, 0, 0, 2], 3, random.Random(1))
    assert pairing.bye is None
    assert len(pairing.pairs) == 2
    cross = [pair for pair in pairing.pairs if 3 in pair]
    assert len(cross) == 1 and set(cross[0]) - {3} <= {0, 1, 2}


def test_only_the_last_brackets_odd_one_sits_out() -> None:
    for seed in range(20):
        pairing = pair_round([1, 0, 1, 1, 1, 5], 2, random.Random(seed))
        # Bracket 0 = {1} floats into bracket 1 = {0, 2, 3, 4}, whose odd one sits out;
        # player 5 is out of the tournament.
        assert pairing.bye in {0, 2, 3, 4}
        played = sorted(p for pair in pairing.pairs for p in pair)
        assert played == sorted({0, 1, 2, 3, 4} - {pairing.bye})
        assert any(1 in pair for pair in pairing.pairs)


def test_no_match_with_fewer_than_two_active() -> None:
    assert pair_round([2, 0, 2], 2, random.Random(0)) == Pairing(pairs=[], bye=1)
    assert pair_round([1, 1], 1, random.Random(0)) == Pairing(pairs=[], bye=None)


def test_round_rng_depends_on_seed_and_round_only() -> None:
    draw = [round_rng(5, 3).random() for _ in range(2)]
    assert draw[0] == draw[1]
    assert round_rng(5, 3).random() != round_rng(5, 4).random()
    assert round_rng(5, 3).random() != round_rng(6, 3).random()


def test_pairing_is_reproducible_for_a_seed_and_round() -> None:
    losses = [0, 1, 0, 0, 1, 1, 0, 2]
    first = pair_round(losses, 3, round_rng(11, 2))
    assert pair_round(losses, 3, round_rng(11, 2)) == first


def test_final_ranks_put_the_last_player_standing_first_even_with_fewer_wins() -> None:
    # Player 2 won the final having had a bye; player 0 won a match in round 1.
    assert final_ranks([1, 0, 1], [1, 1, 0], 1) == [(1, [2]), (2, [0]), (3, [1])]
    assert final_ranks([2, 0, 1], [1, 1, 0], 1) == [(1, [2]), (2, [0]), (3, [1])]


def test_final_ranks_fall_back_to_wins_when_nobody_is_left() -> None:
    # A drawn final eliminated both finalists.
    assert final_ranks([2, 2, 0], [2, 2, 2], 2) == [(1, [0, 1]), (3, [2])]
