"""A run's ranking calls as its result shows them, and the audit of their slots.

Read from the rounds' stored ranking calls (`RoundLog["groups"]`): each becomes a
`RankingCall` in the texts' terms, and `slot_shares` counts how often the text in each
shown slot took the first place.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from statistics import NormalDist
from typing import Any

from llm_qualitative_sort.audit import SlotShare
from llm_qualitative_sort.verdicts import RankingCall

# From the standard library: SciPy's statistics cost every run some 30 MB to import.
_Z = NormalDist().inv_cdf(0.975)


def ranking_calls(items: Sequence[str], history: Iterable[Any]) -> tuple[RankingCall, ...]:
    """Every ranking call of the rounds in `history`, in the order made."""
    found = []
    for entry in history:
        for log in entry.get("groups") or ():
            order = log.get("order")
            found.append(RankingCall(
                tuple(items[i] for i in log["items"]),
                None if order is None else tuple(tuple(items[i] for i in place)
                                                 for place in order),
                log["reasoning"], bool(log["cached"]), int(log["input_tokens"]),
                int(log["output_tokens"]), int(entry["round"]), log.get("problem"),
                log.get("judge"), bool(log.get("batch", False))))
    return tuple(found)


def slot_shares(calls: Iterable[RankingCall]) -> tuple[SlotShare, ...]:
    """The share of first places per shown slot, per group size, with Wilson intervals.

    Example:
        >>> calls = [RankingCall(("x", "y", "z"), (("x",), ("y",), ("z",)), "", False)] * 3
        >>> [share.share for share in slot_shares(calls)]
        [1.0, 0.0, 0.0]
    """
    firsts: dict[int, list[float]] = {}
    counted: dict[int, int] = {}
    for call in calls:
        if call.order is None:
            continue
        size = len(call.items)
        slots = firsts.setdefault(size, [0.0] * size)
        counted[size] = counted.get(size, 0) + 1
        top = call.order[0]
        for slot, text in enumerate(call.items):
            if text in top:
                slots[slot] += 1.0 / len(top)
    return tuple(_share(slot + 1, size, first, counted[size])
                 for size, slots in sorted(firsts.items())
                 for slot, first in enumerate(slots))


def _share(slot: int, size: int, first: float, calls: int) -> SlotShare:
    share = first / calls
    low, high = wilson(share, calls)
    return SlotShare(slot, size, round(first, 6), calls, round(share, 6), round(low, 6),
                     round(high, 6))


def wilson(share: float, count: int) -> tuple[float, float]:
    """The 95 % Wilson interval of a share observed over `count` trials.

    Example:
        >>> [round(x, 3) for x in wilson(0.5, 100)]
        [0.404, 0.596]
    """
    z2 = _Z * _Z
    centre = (share + z2 / (2 * count)) / (1 + z2 / count)
    half = _Z * (share * (1 - share) / count + z2 / (4 * count * count)) ** 0.5 / (1 + z2 / count)
    return max(centre - half, 0.0), min(centre + half, 1.0)
