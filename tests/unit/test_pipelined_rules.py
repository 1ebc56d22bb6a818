"""The pure rules of pipelined play: pairing free players, applying one match, deadlines."""

import random

from hypothesis import given
from hypothesis import strategies as st

from llm_qualitative_sort.testing._draws import KeyedDraws, keyed_rng
from llm_qualitative_sort.tournament.elimination import (
    apply_match,
    apply_round,
    pair_free_players,
    pair_round,
)

N = 3
losses_lists = st.lists(st.integers(0, N), min_size=2, max_size=40)


@given(losses_lists, st.integers(0, 2**32), st.data())
def test_pairs_only_free_active_players_each_once(losses, seed, data) -> None:
    free = sorted(data.draw(st.sets(st.sampled_from(range(len(losses))))))
    busy = data.draw(st.dictionaries(st.integers(0, N - 1), st.integers(0, 3)))
    pairs = pair_free_players(losses, free, busy, N, random.Random(seed))
    players = [p for pair in pairs for p in pair]
    assert len(players) == len(set(players))
    assert all(p in free and losses[p] < N for p in players)
    for a, b in pairs:  # same bracket, or a lone player floated down to one with more losses
        assert losses[a] <= losses[b]


@given(losses_lists, st.integers(0, 2**32))
def test_with_nobody_busy_it_pairs_as_a_round_does(losses, seed) -> None:
    """Nobody busy: everyone active is paired but at most one (as in `pair_round`)."""
    free = list(range(len(losses)))
    pairs = pair_free_players(losses, free, {}, N, random.Random(seed))
    active = [p for p in free if losses[p] < N]
    assert 2 * len(pairs) >= len(active) - 1
    assert len(pairs) == len(pair_round(losses, N, random.Random(seed)).pairs)


def test_a_lone_player_waits_while_someone_busy_could_join_its_bracket() -> None:
    assert pair_free_players([1, 2], [0, 1], {0: 2}, N, random.Random(0)) == []
    assert pair_free_players([1, 2], [0, 1], {2: 2}, N, random.Random(0)) == [(0, 1)]


@given(losses_lists, st.integers(0, 2**32), st.data())
def test_one_match_at_a_time_equals_the_round(losses, seed, data) -> None:
    pairs = pair_round(losses, N, random.Random(seed)).pairs
    winners = [data.draw(st.sampled_from(["A", "B", None])) for _ in pairs]
    wins = [0] * len(losses)
    expected = apply_round(losses, wins, pairs, winners, N)
    got_losses, got_wins = list(losses), list(wins)
    changes = []
    for (a, b), winner in zip(pairs, winners, strict=True):
        changes += apply_match(got_losses, got_wins, a, b, winner, N)
    assert (got_losses, got_wins, changes) == expected


@given(st.integers(0, 2**63), st.text(min_size=1), st.text(min_size=1), st.integers(0, 9))
def test_keyed_draws_are_keyed_rng_exactly(seed, a, b, repetition) -> None:
    draws = KeyedDraws(seed)
    draws.rng("other", a, 0).random()  # a shared generator: earlier use must not leak
    assert draws.rng(a, b, repetition).gauss(0, 1) == keyed_rng(seed, a, b, repetition).gauss(0, 1)
