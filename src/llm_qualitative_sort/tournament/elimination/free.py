"""Pairing without round barriers: who among the free players meets whom right now.

The pipelined schedule pairs players as soon as they are free instead of waiting for a
round to end. The rule is the round's rule applied to the free players, with one addition
for a player left alone in its bracket: it waits while someone still playing could join its
bracket (anyone busy in a bracket with no more losses than its own), and otherwise floats
down to the nearest bracket with more losses that has a free player, as an odd one out does
in a round. With nobody busy, it pairs exactly as `pair_round` would.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence


def pair_free_players(
    losses: Sequence[int],
    free: Sequence[int],
    busy_brackets: Mapping[int, int],
    elimination_count: int,
    rng: random.Random,
) -> list[tuple[int, int]]:
    """Pair the free, active players that should not wait.

    Args:
        losses: Loss count of every player (its bracket).
        free: Players not in a match (in a fixed order, for reproducible draws).
        busy_brackets: How many players in matches sit in each bracket.
        elimination_count: Losses that eliminate.
        rng: The draws (shuffles within brackets).

    Example:
        >>> pair_free_players([0, 0, 1], [0, 1, 2], {}, 2, random.Random(0))
        [(1, 0)]
        >>> pair_free_players([0, 1], [1], {0: 2}, 2, random.Random(0))
        []
    """
    brackets: dict[int, list[int]] = {}
    for player in free:
        if losses[player] < elimination_count:
            brackets.setdefault(losses[player], []).append(player)
    pairs: list[tuple[int, int]] = []
    alone: list[tuple[int, int]] = []  # (bracket, player) left without a partner
    for lost in sorted(brackets):
        members = brackets[lost]
        rng.shuffle(members)
        while len(members) >= 2:
            pairs.append((members.pop(), members.pop()))
        if members:
            alone.append((lost, members.pop()))
    lowest_busy = min((b for b, count in busy_brackets.items() if count > 0), default=None)
    index = 0
    while index < len(alone) - 1:
        lost, player = alone[index]
        if lowest_busy is not None and lowest_busy <= lost:
            index += 1  # a player still in a match may join this bracket: wait for it
            continue
        pairs.append((player, alone[index + 1][1]))  # float down to the next lone player
        del alone[index : index + 2]
    return pairs
