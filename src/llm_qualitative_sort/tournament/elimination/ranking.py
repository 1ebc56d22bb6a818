"""Final ranks: the tournament's winner first, then everyone by number of wins."""

from __future__ import annotations

from collections.abc import Sequence

from llm_qualitative_sort.tournament.elimination.brackets import active_players


def competition_ranks(wins: Sequence[float], first: int = 1) -> list[tuple[int, list[int]]]:
    """Group players by wins (or any score), most first, with competition ranks (1, 2, 2, 4).

    Players of equal wins share a rank and are listed by index; ranks start at `first`.

    Example:
        >>> competition_ranks([3, 1, 3, 0])
        [(1, [0, 2]), (3, [1]), (4, [3])]
    """
    by_wins: dict[float, list[int]] = {}
    for player, won in enumerate(wins):
        by_wins.setdefault(won, []).append(player)
    ranks: list[tuple[int, list[int]]] = []
    rank = first
    for won in sorted(by_wins, reverse=True):
        ranks.append((rank, by_wins[won]))
        rank += len(by_wins[won])
    return ranks


def final_ranks(
    wins: Sequence[int], losses: Sequence[int], elimination_count: int
) -> list[tuple[int, list[int]]]:
    """Rank a finished tournament: its winner alone first, the others by wins.

    The winner is the one player still active at the end. Ranking by wins alone can tie
    the winner with, or even put it below, a player it beat: a bye is not a win, so in
    single elimination the winner may have played fewer matches. Whoever the tournament
    left standing is ranked first; when a final draw eliminated everyone, all rank by wins.

    Example:
        >>> final_ranks([1, 0, 1], [1, 1, 0], 1)   # player 2 won, having had a bye
        [(1, [2]), (2, [0]), (3, [1])]
    """
    left = active_players(losses, elimination_count)
    if len(left) != 1:
        return competition_ranks(wins)
    winner = left[0]
    others = [i for i in range(len(wins)) if i != winner]
    rest = competition_ranks([wins[i] for i in others], first=2)
    return [(1, [winner])] + [(rank, [others[i] for i in group]) for rank, group in rest]
