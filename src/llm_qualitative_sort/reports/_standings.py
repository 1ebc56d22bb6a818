"""Per-item figures derived from a `SortResult`: wins, losses, matches, bracket history."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

from llm_qualitative_sort.models import SortResult
from llm_qualitative_sort.verdicts import MatchResult


@dataclass
class Standing:
    """One item's place in the final ranking and the matches it played."""

    item: str
    rank: int
    wins: int = 0
    losses: int = 0
    tied: int = 1
    matches: list[MatchResult] = field(default_factory=list)


def losers(match: MatchResult) -> list[str]:
    """Who took a loss in `match`: the loser, or both players of a draw."""
    if match.winner == "A":
        return [match.item_b]
    if match.winner == "B":
        return [match.item_a]
    return [match.item_a, match.item_b]


def standings(result: SortResult) -> list[Standing]:
    """Every ranked item, best first, with its record."""
    table = {
        item: Standing(item, rank, tied=len(group))
        for rank, group in result.rankings
        for item in group
    }
    for match in result.match_history:
        for item in (match.item_a, match.item_b):
            table[item].matches.append(match)
        if match.winner is not None:
            table[match.item_a if match.winner == "A" else match.item_b].wins += 1
        for item in losers(match):
            table[item].losses += 1
    return list(table.values())


def rank_rows(ranked: list[tuple[int, Any]]) -> list[dict[str, Any]]:
    """Table rows of `(rank, member)` pairs, best first: each rank group shaded in turn.

    A group's first row holds its `rank` and `size` (the rank cell spans the group); the
    others hold `rank` None. The very first row is `open`, to show the reader that rows
    unfold.

    Example:
        >>> [(r["rank"], r["size"], r["shade"]) for r in rank_rows([(1, "a"), (1, "b"), (3, "c")])]
        [(1, 2, 0), (None, 2, 0), (3, 1, 1)]
    """
    rows: list[dict[str, Any]] = []
    for shade, (rank, group) in enumerate(groupby(ranked, key=lambda pair: pair[0])):
        members = [member for _, member in group]
        rows += [{"shade": shade % 2, "rank": rank if index == 0 else None,
                  "size": len(members), "open": not rows and index == 0, "member": member}
                 for index, member in enumerate(members)]
    return rows


def infer_elimination_count(result: SortResult) -> int:
    """N from the result alone: a finished run of two or more items eliminated someone."""
    losses = Counter(item for match in result.match_history for item in losers(match))
    return max(losses.values(), default=1)


def bracket_history(result: SortResult, elimination_count: int) -> list[list[int]]:
    """Players per bracket after each round, the start first.

    Each row holds the counts of brackets 0 … N−1 (by losses), then the eliminated.
    """
    losses = {item: 0 for _, group in result.rankings for item in group}
    rows = [_bracket_row(losses, elimination_count)]
    by_round = groupby(result.match_history, key=lambda match: match.round_number)
    for _, matches in by_round:
        for match in matches:
            for item in losers(match):
                losses[item] += 1
        rows.append(_bracket_row(losses, elimination_count))
    return rows


def _bracket_row(losses: dict[str, int], elimination_count: int) -> list[int]:
    row = [0] * (elimination_count + 1)
    for lost in losses.values():
        row[min(lost, elimination_count)] += 1
    return row
