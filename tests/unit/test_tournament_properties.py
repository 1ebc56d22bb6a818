"""Invariants of the pure tournament rules, searched with hypothesis."""

import random
from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from llm_qualitative_sort.models import Side
from llm_qualitative_sort.tournament import (
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

Judge = Callable[[int, int, random.Random], Side | None]


@st.composite
def bracket_state(draw: st.DrawFn) -> tuple[list[int], int]:
    """Loss counts of a field part-way through; a count of N or more is eliminated."""
    n_losses = draw(st.integers(1, 6))
    losses = draw(st.lists(st.integers(0, n_losses + 1), max_size=40))
    return losses, n_losses


seeds = st.integers(0, 2**63 - 1)


# --- pairing ---------------------------------------------------------------------------------


@given(bracket_state(), seeds)
def test_every_active_player_plays_once_or_sits_out_and_the_eliminated_never_play(
    state: tuple[list[int], int], seed: int
) -> None:
    losses, n_losses = state
    pairing = pair_round(losses, n_losses, random.Random(seed))
    active = active_players(losses, n_losses)
    played = [p for pair in pairing.pairs for p in pair]
    assert len(played) == len(set(played)), "someone plays twice in a round"
    assert all(a != b for a, b in pairing.pairs)
    assert set(played) <= set(active), "an eliminated player plays"
    sitting_out = set(active) - set(played)
    assert sitting_out == ({pairing.bye} if pairing.bye is not None else set())


@given(bracket_state(), seeds)
def test_someone_sits_out_exactly_when_the_active_count_is_odd(
    state: tuple[list[int], int], seed: int
) -> None:
    losses, n_losses = state
    pairing = pair_round(losses, n_losses, random.Random(seed))
    active = active_players(losses, n_losses)
    assert (pairing.bye is not None) == (len(active) % 2 == 1)
    if len(active) >= 2:
        assert pairing.pairs, "two or more active players but no match"


@given(bracket_state(), seeds)
def test_a_floater_meets_the_nearest_non_empty_bracket_with_more_losses(
    state: tuple[list[int], int], seed: int
) -> None:
    losses, n_losses = state
    pairing = pair_round(losses, n_losses, random.Random(seed))
    occupied = sorted({losses[p] for p in active_players(losses, n_losses)})
    floaters_from: list[int] = []
    for a, b in pairing.pairs:
        upper, lower = sorted((losses[a], losses[b]))
        if upper != lower:
            assert lower == min(o for o in occupied if o > upper), (upper, lower, occupied)
            floaters_from.append(upper)
    assert len(floaters_from) == len(set(floaters_from)), "two floaters from one bracket"
    if pairing.bye is not None:
        assert losses[pairing.bye] == occupied[-1], "only the last bracket's odd one sits out"


@given(bracket_state(), seeds)
def test_brackets_pair_inside_unless_their_size_is_odd(
    state: tuple[list[int], int], seed: int
) -> None:
    losses, n_losses = state
    pairing = pair_round(losses, n_losses, random.Random(seed))
    inside = [losses[a] for a, b in pairing.pairs if losses[a] == losses[b]]
    for bracket in {losses[p] for p in active_players(losses, n_losses)}:
        size = losses.count(bracket)
        # At most one member leaves (floats out) and one joins (floats in).
        assert 2 * inside.count(bracket) >= size - 2


# --- match verdicts and reassignment --------------------------------------------------------


@given(st.integers(1, 20))
def test_presentation_orders_are_half_each_order_with_distinct_repetitions(half: int) -> None:
    orders = presentation_orders(2 * half)
    assert len(orders) == 2 * half == len(set(orders))
    assert sorted(orders) == sorted((o, r) for o in ("AB", "BA") for r in range(half))


@given(st.lists(st.sampled_from(["A", "B", None])))
def test_match_winner_is_the_side_with_more_calls(calls: list[Side | None]) -> None:
    a, b = calls.count("A"), calls.count("B")
    assert match_winner(calls) == ("A" if a > b else "B" if b > a else None)


@st.composite
def played_round(
    draw: st.DrawFn,
) -> tuple[list[int], list[int], list[tuple[int, int]], list[Side | None], int]:
    losses, n_losses = draw(bracket_state())
    wins = draw(st.lists(st.integers(0, 9), min_size=len(losses), max_size=len(losses)))
    pairs = pair_round(losses, n_losses, random.Random(draw(seeds))).pairs
    verdicts: list[Side | None] = draw(
        st.lists(st.sampled_from(["A", "B", None]), min_size=len(pairs), max_size=len(pairs))
    )
    return losses, wins, pairs, verdicts, n_losses


@given(played_round())
def test_reassignment_loser_drops_a_bracket_draw_drops_both_winner_gains(
    case: tuple[list[int], list[int], list[tuple[int, int]], list[Side | None], int],
) -> None:
    losses, wins, pairs, verdicts, n_losses = case
    new_losses, new_wins, changes = apply_round(losses, wins, pairs, verdicts, n_losses)
    expected_losses, expected_wins = list(losses), list(wins)
    for (a, b), verdict in zip(pairs, verdicts, strict=True):
        if verdict == "A":
            expected_wins[a] += 1
            expected_losses[b] += 1
        elif verdict == "B":
            expected_wins[b] += 1
            expected_losses[a] += 1
        else:
            expected_losses[a] += 1
            expected_losses[b] += 1
    assert (new_losses, new_wins) == (expected_losses, expected_wins)
    assert sorted(c.player for c in changes) == sorted(
        p for p in range(len(losses)) for _ in range(new_losses[p] - losses[p])
    )
    for change in changes:
        assert change.after == change.before + 1 == new_losses[change.player]
        assert change.eliminated == (change.after >= n_losses)


# --- whole tournaments, played by a pure loop -----------------------------------------------


@dataclass
class Run:
    wins: list[int]
    losses: list[int]
    matches: int
    draws: int


def play(n: int, n_losses: int, seed: int, judge: Judge) -> Run:
    """Pair, judge, reassign until at most one player is left; check the bound on the way."""
    losses, wins = [0] * n, [0] * n
    matches = draws = 0
    bounds = [remaining_match_bound(losses, n_losses)]
    verdicts_rng = random.Random(seed)
    round_number = 0
    while len(active_players(losses, n_losses)) >= 2:
        round_number += 1
        assert round_number <= n_losses * n, "the tournament does not end"
        pairs = pair_round(losses, n_losses, round_rng(seed, round_number)).pairs
        assert pairs, "the tournament stopped early"
        verdicts = [judge(a, b, verdicts_rng) for a, b in pairs]
        losses, wins, _ = apply_round(losses, wins, pairs, verdicts, n_losses)
        matches += len(pairs)
        draws += verdicts.count(None)
        bounds.append(remaining_match_bound(losses, n_losses))
    assert bounds == sorted(bounds, reverse=True), "the bound went up"
    # Every bound taken along the way covers the matches actually played after it.
    assert bounds[0] >= matches
    return Run(wins, losses, matches, draws)


def perfect(a: int, b: int, rng: random.Random) -> Side | None:
    return "A" if a > b else "B"


def coin(a: int, b: int, rng: random.Random) -> Side | None:
    return rng.choice(["A", "B"])


def coin_or_draw(a: int, b: int, rng: random.Random) -> Side | None:
    return rng.choice(["A", "B", None])


@given(st.integers(0, 60), st.integers(1, 10), seeds, st.sampled_from([perfect, coin]))
def test_without_draws_a_tournament_takes_n_times_players_minus_1_to_n(
    n: int, n_losses: int, seed: int, judge: Judge
) -> None:
    run = play(n, n_losses, seed, judge)
    assert len(active_players(run.losses, n_losses)) == min(n, 1)
    if n >= 1:
        assert n_losses * n - n_losses <= run.matches <= n_losses * n - 1
    else:
        assert run.matches == 0


@given(st.integers(2, 60), st.integers(1, 10), seeds)
def test_with_draws_a_tournament_takes_at_most_n_times_players_minus_1(
    n: int, n_losses: int, seed: int
) -> None:
    run = play(n, n_losses, seed, coin_or_draw)
    assert len(active_players(run.losses, n_losses)) <= 1
    assert run.matches <= n_losses * n - 1
    # Each match costs one loss, a draw two, so the losses account for every match.
    assert sum(run.losses) == run.matches + run.draws


@given(st.integers(2, 60), st.integers(2, 10), seeds)
def test_a_perfect_judge_leaves_the_best_alone_at_rank_1(
    n: int, n_losses: int, seed: int
) -> None:
    run = play(n, n_losses, seed, perfect)
    assert final_ranks(run.wins, run.losses, n_losses)[0] == (1, [n - 1])


@given(st.integers(1, 6), seeds)
def test_single_elimination_without_byes_puts_the_best_alone_at_rank_1(
    power: int, seed: int
) -> None:
    n = 2**power  # every round halves the field: nobody ever sits out
    run = play(n, 1, seed, perfect)
    assert final_ranks(run.wins, run.losses, 1)[0] == (1, [n - 1])


@settings(max_examples=300)
@given(st.integers(3, 60), seeds)
def test_single_elimination_with_byes_puts_the_best_alone_at_rank_1(
    n: int, seed: int
) -> None:
    run = play(n, 1, seed, perfect)
    assert final_ranks(run.wins, run.losses, 1)[0] == (1, [n - 1])


@given(st.integers(2, 40), st.integers(1, 6), seeds, st.sampled_from([coin, coin_or_draw]))
def test_the_bound_covers_what_is_left_from_every_round(
    n: int, n_losses: int, seed: int, judge: Judge
) -> None:
    losses, wins = [0] * n, [0] * n
    rng = random.Random(seed)
    bounds_and_played: list[tuple[int, int]] = []
    round_number = 0
    while len(active_players(losses, n_losses)) >= 2:
        round_number += 1
        assert round_number <= n_losses * n, "the tournament does not end"
        bounds_and_played.append((remaining_match_bound(losses, n_losses), 0))
        pairs = pair_round(losses, n_losses, round_rng(seed, round_number)).pairs
        losses, wins, _ = apply_round(
            losses, wins, pairs, [judge(a, b, rng) for a, b in pairs], n_losses
        )
        bounds_and_played = [(bound, done + len(pairs)) for bound, done in bounds_and_played]
    assert remaining_match_bound(losses, n_losses) == 0
    for bound, played_after in bounds_and_played:
        assert played_after <= bound


# --- ranking ----------------------------------------------------------------------------------


@given(st.lists(st.integers(0, 8)))
def test_competition_rank_is_one_plus_the_number_with_more_wins(wins: list[int]) -> None:
    ranks = competition_ranks(wins)
    assert sorted(p for _, group in ranks for p in group) == list(range(len(wins)))
    for rank, group in ranks:
        assert group == sorted(group)
        assert len({wins[p] for p in group}) == 1
        assert rank == 1 + sum(w > wins[group[0]] for w in wins)
