"""The verdict of a match from its calls, and the presentation orders of its calls."""

from __future__ import annotations

from collections.abc import Iterable

from llm_qualitative_sort.verdicts import Order, Side, Verdict


def presentation_orders(comparison_rounds: int) -> list[tuple[Order, int]]:
    """The calls of a match as (order, repetition within that order), half in each order.

    One call per match (Swiss only) is shown in the match's own orientation: the strategy
    puts first whichever item should be shown first.

    Example:
        >>> presentation_orders(4)
        [('AB', 0), ('BA', 0), ('AB', 1), ('BA', 1)]
        >>> presentation_orders(1)
        [('AB', 0)]
    """
    if comparison_rounds == 1:
        return [("AB", 0)]
    orders: list[tuple[Order, int]] = []
    for repetition in range(comparison_rounds // 2):
        orders += [("AB", repetition), ("BA", repetition)]
    return orders


def match_winner(call_winners: Iterable[Verdict | None]) -> Side | None:
    """The side that won more calls; `None` (a draw) when both won as many.

    Calls without a verdict (`None`) count for neither side; a tied call counts half for
    each, so it never tips the balance: a match whose calls tie overall is a draw.

    Example:
        >>> match_winner(["A", "B", "A", None])
        'A'
        >>> match_winner(["A", "tie"]), match_winner(["tie", "tie"])
        ('A', None)
    """
    winners = list(call_winners)
    a_wins, b_wins = winners.count("A"), winners.count("B")
    if a_wins == b_wins:
        return None
    return "A" if a_wins > b_wins else "B"
