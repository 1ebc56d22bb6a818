"""Swiss pairing: neighbours in the current strength order, no rematch while avoidable."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from llm_qualitative_sort.tournament.swiss.evidence import pair_key

Pairs = list[tuple[int, int]]


def choose_bye(order: Sequence[int], last_bye: int | None, rng: random.Random) -> int | None:
    """Who sits out when the count is odd: drawn at random, never last round's bye again.

    Example:
        >>> choose_bye([4, 2, 0], last_bye=2, rng=random.Random(1)) in (4, 0)
        True
    """
    if len(order) % 2 == 0:
        return None
    candidates = [i for i in order if i != last_bye] or list(order)
    return rng.choice(sorted(candidates))


def neighbour_pairs(order: Sequence[int], meetings: Mapping[tuple[int, int], int]) -> Pairs:
    """Pair an even-sized list of items, given strongest first, with their nearest neighbours.

    The strongest unpaired item meets the next unpaired item it has not met yet; only when
    it has met every unpaired item does it meet the nearest again. A rematch left at the end
    is swapped away with an earlier pair when that makes both pairs new.

    Example:
        >>> neighbour_pairs([5, 3, 1, 0], {(3, 5): 1})
        [(5, 1), (3, 0)]
    """
    unpaired = list(order)
    pairs: Pairs = []
    while len(unpaired) >= 2:
        top = unpaired.pop(0)
        pick = next(
            (k for k, other in enumerate(unpaired) if not meetings.get(pair_key(top, other))), 0
        )
        pairs.append((top, unpaired.pop(pick)))
    return _swap_away_rematches(pairs, meetings)


# How many earlier pairs a rematch may swap partners with: near ones keep pairs close in
# strength, and the bound keeps pairing linear in the number of items.
SWAP_WINDOW = 16


def _swap_away_rematches(pairs: Pairs, meetings: Mapping[tuple[int, int], int]) -> Pairs:
    def new(a: int, b: int) -> bool:
        return not meetings.get(pair_key(a, b))

    for index in range(len(pairs) - 1, -1, -1):
        a, b = pairs[index]
        if new(a, b):
            continue
        for other in range(index - 1, max(index - 1 - SWAP_WINDOW, -1), -1):
            c, d = pairs[other]
            if new(a, d) and new(c, b):
                pairs[index], pairs[other] = (c, b), (a, d)
                break
            if new(a, c) and new(d, b):
                pairs[index], pairs[other] = (d, b), (a, c)
                break
    return pairs


def orient(pairs: Pairs, shown_first: Sequence[int], rng: random.Random) -> Pairs:
    """Put first the item shown first less often so far (a coin decides equal counts).

    With one call per match this keeps every item first in about half of its calls.

    Example:
        >>> orient([(0, 1)], shown_first=[2, -1], rng=random.Random(0))
        [(1, 0)]
    """
    balance = list(shown_first)
    oriented: Pairs = []
    for a, b in pairs:
        if balance[a] > balance[b] or (balance[a] == balance[b] and rng.random() < 0.5):
            a, b = b, a
        balance[a] += 1
        balance[b] -= 1
        oriented.append((a, b))
    return oriented
