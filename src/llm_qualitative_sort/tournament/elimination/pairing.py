"""Who meets whom in a round: pairing inside loss brackets, with the float rule."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Pairing:
    """The matches of one round, as index pairs, and who sits out (at most one)."""

    pairs: list[tuple[int, int]]
    bye: int | None


def round_rng(seed: int, round_number: int) -> random.Random:
    """The pairing generator of a round, derived from the run seed and the round number.

    Deriving it (rather than carrying one generator across rounds) lets a resumed run pair
    exactly as the uninterrupted one would.
    """
    return random.Random(f"llm-qualitative-sort/pairing/{seed}/{round_number}")


def pair_round(losses: Sequence[int], elimination_count: int, rng: random.Random) -> Pairing:
    """Pair the active participants of a round.

    Participants are indices into `losses`; those with fewer than `elimination_count`
    losses are active and sit in the bracket of their loss count. Brackets are visited from
    the fewest losses; each is shuffled and paired off. An odd one out floats down to the
    nearest non-empty bracket with more losses and meets a random member there; only the
    last bracket's odd one sits out. So two or more active participants always give a match.

    Example:
        >>> pair_round([0, 0, 0, 1], 2, random.Random(0)).bye is None
        True
    """
    # Only the occupied brackets, by loss count: the work is per player, never per bracket,
    # so a huge elimination_count with few players stays cheap.
    brackets: dict[int, list[int]] = {}
    for index, lost in enumerate(losses):
        if lost < elimination_count:
            brackets.setdefault(lost, []).append(index)
    pairs: list[tuple[int, int]] = []
    floater: int | None = None
    for lost in sorted(brackets):
        members = brackets[lost]
        rng.shuffle(members)
        if floater is not None:
            pairs.append((floater, members.pop()))
            floater = None
        while len(members) >= 2:
            pairs.append((members.pop(), members.pop()))
        if members:
            floater = members.pop()
    return Pairing(pairs=pairs, bye=floater)
