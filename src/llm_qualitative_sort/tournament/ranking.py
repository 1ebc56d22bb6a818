"""Final ranks by number of wins."""

from __future__ import annotations

from collections.abc import Sequence


def competition_ranks(wins: Sequence[int]) -> list[tuple[int, list[int]]]:
    """Group players by wins, most first, with competition ranks (1, 2, 2, 4).

    Players of equal wins share a rank and are listed by index.

    Example:
        >>> competition_ranks([3, 1, 3, 0])
        [(1, [0, 2]), (3, [1]), (4, [3])]
    """
    by_wins: dict[int, list[int]] = {}
    for player, won in enumerate(wins):
        by_wins.setdefault(won, []).append(player)
    ranks: list[tuple[int, list[int]]] = []
    rank = 1
    for won in sorted(by_wins, reverse=True):
        ranks.append((rank, by_wins[won]))
        rank += len(by_wins[won])
    return ranks
