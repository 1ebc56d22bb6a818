"""Moving players between loss brackets after a round, and bounding what is left."""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass

from llm_qualitative_sort.verdicts import Side


@dataclass(frozen=True)
class BracketChange:
    """A player who took a loss: from bracket `before` to `after` (= losses)."""

    player: int
    before: int
    after: int
    eliminated: bool


def apply_round(
    losses: Sequence[int],
    wins: Sequence[int],
    pairs: Sequence[tuple[int, int]],
    winners: Sequence[Side | None],
    elimination_count: int,
) -> tuple[list[int], list[int], list[BracketChange]]:
    """Apply a round's match verdicts.

    The loser takes one loss; a draw (`None`) gives both players one loss; the winner
    gains a win. A player with `elimination_count` losses is eliminated.

    Returns:
        The new losses, the new wins, and one `BracketChange` per loss taken.

    Example:
        >>> apply_round([0, 0], [0, 0], [(0, 1)], ["B"], 2)[0]
        [1, 0]
    """
    new_losses, new_wins = list(losses), list(wins)
    changes: list[BracketChange] = []
    for (a, b), winner in zip(pairs, winners, strict=True):
        changes += apply_match(new_losses, new_wins, a, b, winner, elimination_count)
    return new_losses, new_wins, changes


def apply_match(
    losses: MutableSequence[int],
    wins: MutableSequence[int],
    a: int,
    b: int,
    winner: Side | None,
    elimination_count: int,
) -> list[BracketChange]:
    """Apply one match's verdict in place; one `BracketChange` per loss taken.

    The loser takes a loss, a draw gives both one, the winner gains a win (as in
    `apply_round`, which applies a round's matches this way).

    Example:
        >>> losses, wins = [0, 0], [0, 0]
        >>> [c.player for c in apply_match(losses, wins, 0, 1, "A", 2)], losses, wins
        ([1], [0, 1], [1, 0])
    """
    losers: tuple[int, ...] = (a, b)
    if winner == "A":
        wins[a] += 1
        losers = (b,)
    elif winner == "B":
        wins[b] += 1
        losers = (a,)
    changes = []
    for loser in losers:
        before = losses[loser]
        losses[loser] = before + 1
        changes.append(BracketChange(loser, before, before + 1, before + 1 >= elimination_count))
    return changes


def active_players(losses: Sequence[int], elimination_count: int) -> list[int]:
    """Indices of the players not yet eliminated."""
    return [i for i, lost in enumerate(losses) if lost < elimination_count]


def remaining_match_bound(losses: Sequence[int], elimination_count: int) -> int:
    """An upper bound on the matches still to play.

    Every match costs at least one loss and play stops when at most one player is left,
    who keeps at least one life: so at most (sum of lives left) - 1 matches remain.
    With n fresh players this is N·n−1.
    """
    lives = [elimination_count - lost for lost in losses if lost < elimination_count]
    return 0 if len(lives) <= 1 else sum(lives) - 1
