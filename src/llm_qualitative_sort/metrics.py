"""Accuracy of a ranking against a known true order.

Rankings are the library's form, `list[tuple[int, list[str]]]`: competition ranks, best
first, tied items sharing a rank (as in `SortResult.rankings`). The true order is a sequence
of the same items, best first, without ties. Every function checks that both name exactly
the same items and raises `ValueError` otherwise.

Example:
    >>> rankings = [(1, ["c"]), (2, ["a", "b"])]
    >>> correct_pair_ratio(rankings, ["c", "b", "a"])
    0.8333333333333334
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from llm_qualitative_sort.errors import InputError

Rankings = Sequence[tuple[int, Sequence[str]]]

__all__ = [
    "correct_pair_ratio",
    "flatten_rankings",
    "kendall_tau",
    "segment_pair_ratio",
    "top_k_accuracy",
]


def flatten_rankings(rankings: Rankings) -> list[tuple[str, int]]:
    """Every item with its rank, in rank order.

    Raises:
        ValueError: A rank is not a positive int larger than the one before, a group is
            empty, or an item appears twice.

    Example:
        >>> flatten_rankings([(1, ["x"]), (2, ["y", "z"])])
        [('x', 1), ('y', 2), ('z', 2)]
    """
    flat: list[tuple[str, int]] = []
    previous = 0
    for rank, group in rankings:
        if isinstance(rank, bool) or not isinstance(rank, int) or rank <= previous:
            raise InputError(f"ranks must be positive ints in increasing order; {rank!r} "
                             f"follows {previous}")
        if not group:
            raise InputError(f"rank {rank} has no items")
        flat.extend((item, rank) for item in group)
        previous = rank
    seen: set[str] = set()
    for item, _ in flat:
        if item in seen:
            raise InputError(f"item {item!r} appears more than once in the rankings")
        seen.add(item)
    return flat


def kendall_tau(rankings: Rankings, true_order: Sequence[str]) -> float:
    """Kendall's τ-b between the predicted ranks and the true positions.

    Ties in the prediction are corrected for as in τ-b; the true order has none. A
    prediction that ties every item carries no order and scores 0.0.

    Raises:
        ValueError: Fewer than two items, or the rankings and true order differ in items.

    Example:
        >>> kendall_tau([(1, ["a"]), (2, ["b"]), (3, ["c"])], ["c", "b", "a"])
        -1.0
    """
    ranks = _ranks_in_true_order(rankings, true_order)
    _need_pairs(len(ranks), "kendall_tau")
    pairs = len(ranks) * (len(ranks) - 1) // 2
    tied = _tied_pairs(ranks)
    if tied == pairs:
        return 0.0
    discordant = _inversions(ranks)
    concordant = pairs - tied - discordant
    return (concordant - discordant) / math.sqrt((pairs - tied) * pairs)


def top_k_accuracy(rankings: Rankings, true_order: Sequence[str], k: int) -> float:
    """Expected share of the true top `k` that lands in the predicted top `k`.

    When a tied group straddles place `k`, the places left are filled by drawing from the
    group uniformly at random; the expectation over that draw is computed exactly: each
    member of the group gets in with probability (places left) / (group size).

    Raises:
        ValueError: `k` outside 1..n, or the rankings and true order differ in items.

    Example:
        >>> top_k_accuracy([(1, ["a", "b"]), (3, ["c"])], ["a", "c", "b"], 1)
        0.5
    """
    _check_same_items(flatten_rankings(rankings), true_order)
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= len(true_order):
        raise InputError(f"k must be an int in 1..{len(true_order)}, got {k!r}")
    true_top = set(true_order[:k])
    expected, places = 0.0, k
    for _, group in rankings:
        if places == 0:
            break
        share = min(places, len(group)) / len(group)
        expected += share * sum(item in true_top for item in group)
        places -= min(places, len(group))
    return expected / k


def correct_pair_ratio(rankings: Rankings, true_order: Sequence[str]) -> float:
    """Share of item pairs that the prediction orders as the truth does; a tie counts ½.

    Raises:
        ValueError: Fewer than two items, or the rankings and true order differ in items.

    Example:
        >>> correct_pair_ratio([(1, ["a", "b"]), (3, ["c"])], ["a", "b", "c"])
        0.8333333333333334
    """
    ranks = _ranks_in_true_order(rankings, true_order)
    _need_pairs(len(ranks), "correct_pair_ratio")
    return _pair_ratio(ranks)


def segment_pair_ratio(
    rankings: Rankings, true_order: Sequence[str], start: int, stop: int
) -> float:
    """`correct_pair_ratio` over the pairs inside `true_order[start:stop]` only.

    Use it to compare how finely parts of the order are resolved, e.g. the true top 100
    (`0, 100`) against the true bottom 100 (`n - 100, n`).

    Raises:
        ValueError: Not `0 <= start`, `start + 2 <= stop <= n`, or the rankings and true
            order differ in items.

    Example:
        >>> rankings = [(1, ["a"]), (2, ["b", "c"])]
        >>> segment_pair_ratio(rankings, ["a", "b", "c"], 1, 3)
        0.5
    """
    ranks = _ranks_in_true_order(rankings, true_order)
    for name, value in (("start", start), ("stop", stop)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"{name} must be an int, got {value!r}")
    if not 0 <= start <= stop - 2 or stop > len(ranks):
        raise InputError(f"need 0 <= start and start + 2 <= stop <= {len(ranks)} (a segment "
                         f"with at least one pair), got start={start}, stop={stop}")
    return _pair_ratio(ranks[start:stop])


def _ranks_in_true_order(rankings: Rankings, true_order: Sequence[str]) -> list[int]:
    """The predicted rank of each item, listed in true order (best first)."""
    rank_of = dict(flatten_rankings(rankings))
    _check_same_items(rank_of, true_order)
    return [rank_of[item] for item in true_order]


def _check_same_items(
    predicted: Sequence[tuple[str, int]] | dict[str, int], true_order: Sequence[str]
) -> None:
    if isinstance(true_order, str):
        raise InputError("true_order must be a sequence of items, not one str")
    truth = set(true_order)
    if len(truth) != len(true_order):
        raise InputError("true_order lists an item more than once")
    names = set(predicted) if isinstance(predicted, dict) else {item for item, _ in predicted}
    missing, extra = sorted(truth - names), sorted(names - truth)
    if missing or extra:
        raise InputError(f"rankings and true_order must hold the same items; missing from "
                         f"rankings: {missing[:5]!r}, not in true_order: {extra[:5]!r}")


def _need_pairs(n: int, name: str) -> None:
    if n < 2:
        raise InputError(f"{name} needs at least two items, got {n}")


def _pair_ratio(ranks: Sequence[int]) -> float:
    pairs = len(ranks) * (len(ranks) - 1) // 2
    tied = _tied_pairs(ranks)
    concordant = pairs - tied - _inversions(ranks)
    return (concordant + tied / 2) / pairs


def _tied_pairs(ranks: Sequence[int]) -> int:
    counts: dict[int, int] = {}
    for rank in ranks:
        counts[rank] = counts.get(rank, 0) + 1
    return sum(c * (c - 1) // 2 for c in counts.values())


def _inversions(ranks: Sequence[int]) -> int:
    """Pairs i < j with ranks[i] > ranks[j] (strictly), in O(n log n).

    A Fenwick tree over the rank values counts, for each position, the earlier ranks that
    are strictly larger.
    """
    values = sorted(set(ranks))
    index = {value: i + 1 for i, value in enumerate(values)}
    tree = [0] * (len(values) + 1)
    inversions = 0
    for seen, rank in enumerate(ranks):
        at_most = 0  # earlier ranks <= this one
        i = index[rank]
        while i > 0:
            at_most += tree[i]
            i -= i & -i
        inversions += seen - at_most
        i = index[rank]
        while i < len(tree):
            tree[i] += 1
            i += i & -i
    return inversions
